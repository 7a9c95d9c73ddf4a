/**
 * The command-line tools: {@code rdsend}, {@code rdrecv}, {@code rdcp}, {@code rdpipe} and
 * {@code rdflux} (its subcommands doctor, selftest, run, plugins and agent), built with picocli
 * and started by {@link io.rdmaflux.cli.Main} with the tool's name first.
 *
 * <p>Each tool is a command class that checks its options, builds a pipeline (or, for rdcp
 * and rdpipe, one per host: {@code CopyEnd}, {@code PipeChain})
 * and hands it to {@code Runner}, which turns the outcome into an exit code
 * ({@link io.rdmaflux.cli.ExitCode}, from sysexits.h) and ends it cleanly on a signal
 * ({@code Signals}). Everything said to a person goes to stderr, sanitized,
 * through {@link io.rdmaflux.cli.Console}; stdout carries data only. Command-line mistakes
 * end with exit 64 and one line ({@link io.rdmaflux.cli.Main} words picocli's exceptions).
 * What runs on other hosts, over ssh, is in {@link io.rdmaflux.cli.remote}.
 */
package io.rdmaflux.cli;
