package io.rdmaflux.pipeline.plugin;

import java.util.List;

/**
 * A pipeline as written, before validation; parts that are missing or malformed are null
 * (their errors are already reported).
 */
record RawPipeline(int line, RawPlugin source, List<RawPlugin> filters, List<RawPlugin> stages, RawPlugin sink) {
}
