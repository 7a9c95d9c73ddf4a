/**
 * The warm agent: a per-user daemon on a remote host that serves the agent sessions of later
 * rdcp and rdpipe calls in one JVM, over a unix-domain socket in a private directory, and exits
 * after a few idle minutes (docs/remote.md, "The warm agent"). {@link io.rdmaflux.cli.warm.WarmPlace}
 * names its socket, {@link io.rdmaflux.cli.warm.WarmDaemon} listens and keeps time,
 * {@link io.rdmaflux.cli.warm.WarmSession} runs one session, {@link io.rdmaflux.cli.warm.WarmStart}
 * starts the daemon detached; {@code bin/rdflux-warm-client} is the client an ssh session runs.
 */
package io.rdmaflux.cli.warm;
