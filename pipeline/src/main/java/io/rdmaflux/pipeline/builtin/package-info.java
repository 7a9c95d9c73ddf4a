/**
 * The plugins every process has: sources, filters, stages and sinks for files, standard input
 * and output, commands, directory trees and the channel, each a thin layer that checks its
 * options and builds a connector or a pipeline end. They are found as any plugin is, through
 * {@code META-INF/services}, so they are also the worked examples for writing one.
 */
package io.rdmaflux.pipeline.builtin;
