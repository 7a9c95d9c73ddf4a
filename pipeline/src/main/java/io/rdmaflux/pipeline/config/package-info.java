/**
 * Option values and their types: how a value written in a pipeline file is parsed and checked
 * (integers, sizes, durations, enums, lists, paths with {@code ~}), how it is described in errors
 * and in the generated reference, and the errors themselves, one line each with the file and
 * line. Nothing here knows plugins or reads pipeline files.
 */
package io.rdmaflux.pipeline.config;
