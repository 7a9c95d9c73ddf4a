/**
 * Running programs: process groups and the shell text that starts them. Public, so that the
 * command connectors and the command-line tools' remote shells use one implementation:
 * {@link io.rdmaflux.connector.process.ProcessGroup} (a program in a process group of its own,
 * its liveness read from {@code /proc}, ended with SIGTERM then SIGKILL) and
 * {@link io.rdmaflux.connector.process.ShellQuote} (words quoted for a POSIX shell). Nothing here
 * knows about streams or connectors.
 */
package io.rdmaflux.connector.process;
