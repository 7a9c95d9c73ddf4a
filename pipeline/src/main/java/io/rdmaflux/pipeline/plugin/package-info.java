/**
 * The plugin SPI and the configuration that selects plugins: the interfaces a source, filter,
 * stage or sink plugin implements, the registry that finds them (built in, on the class path, in
 * a plugin directory's jars), the YAML reader that keeps every value's line, and the validator
 * that turns a raw pipeline into a checked {@link io.rdmaflux.pipeline.plugin.PipelineConfig}.
 */
package io.rdmaflux.pipeline.plugin;
