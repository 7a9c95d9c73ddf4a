/**
 * Remote execution for rdcp and rdpipe: {@code rdflux agent} started over ssh, and the line
 * protocol the coordinator and the agent speak on its stdin and stdout (docs/remote.md).
 *
 * <p>The coordinator's side: {@link io.rdmaflux.cli.remote.RemoteShell} builds the ssh command
 * line (batch mode, timeouts, {@code -e}, {@code --rdflux-path}) for a
 * {@link io.rdmaflux.cli.remote.RemoteHost}; {@link io.rdmaflux.cli.remote.RemoteAgent} is the
 * protocol client of one started agent (the hello and its nonce, the job, the port it
 * listens on, progress, the outcome). Beside it, package-private: {@code AgentProcess} (the
 * ssh process in a process group of its own, and the registry the tool's end waits on),
 * {@code StderrCapture} (what ssh and the login print) and {@code AgentFailures} (every
 * failure in one line naming the host, as a {@link io.rdmaflux.cli.remote.RemoteException}
 * whose kind picks the exit code). The agent's side is {@link io.rdmaflux.cli.remote.Agent}.
 * The messages are {@link io.rdmaflux.cli.remote.AgentMessage}, one JSON object per line
 * ({@code Json}); everything a remote host sends is bounded and sanitized before it is shown.
 */
package io.rdmaflux.cli.remote;
