/**
 * The standby JVM: a JVM started ahead of time for one context (the key its client computed),
 * warmed up, waiting on a unix socket in the user's private directory for ONE call, whose
 * streams it opens from the client's {@code /proc/PID/fd}, which it runs as a cold process
 * would, and whose exit status it reports before it starts its successor and exits. It never
 * reaches into {@code io.rdmaflux.cli}: the tools give it their warm-up and their call
 * ({@link io.rdmaflux.cli.standby.StandbyProcess.Call}).
 */
package io.rdmaflux.cli.standby;
