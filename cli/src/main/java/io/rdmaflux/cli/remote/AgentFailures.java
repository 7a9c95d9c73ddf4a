package io.rdmaflux.cli.remote;

import io.rdmaflux.cli.remote.RemoteException.Kind;
import io.rdmaflux.text.RemoteText;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Why a remote agent failed, as a {@link RemoteException} of one line that names the host and
 * says what to do. Pure: it decides from what {@link RemoteAgent} gathered (the exit status,
 * what ssh or the remote shell printed, what the agent reported), without processes or I/O,
 * so that every wording is tested as a table. Text from the remote host is sanitized here,
 * except stderr lines, which {@link StderrCapture} keeps sanitized already.
 */
final class AgentFailures {

    private AgentFailures() {
    }

    /**
     * What is known once the agent's output has ended, for {@link #ended}.
     *
     * @param protocolError why the agent's output was not understood (see {@link #otherProtocol},
     *                      {@link #malformed}); null when it was
     * @param outcome       the agent's report on its job; null when it sent none
     * @param startTimedOut whether the start timeout failed the agent before its hello
     * @param greeted       whether the agent said hello
     * @param exit          the ssh process's exit status (-1 when the wait for it was interrupted)
     * @param early         stderr lines from before the hello, sanitized
     * @param lastStderr    the last stderr line, sanitized; null when there was none
     * @param remoteVersion what {@code rdflux --version} says there, asked only when the agent
     *                      refused its sizing words ({@link #refusesSizing}); null when not known
     */
    record Ending(String protocolError, AgentMessage.Done outcome, boolean startTimedOut, boolean greeted, int exit,
                  List<String> early, String lastStderr, String remoteVersion) {

        /** An ending whose remote version is not known. */
        Ending(String protocolError, AgentMessage.Done outcome, boolean startTimedOut, boolean greeted, int exit,
               List<String> early, String lastStderr) {
            this(protocolError, outcome, startTimedOut, greeted, exit, early, lastStderr, null);
        }
    }

    /** The agent's failure once its ssh process ended; empty when it reported its job's success. */
    static Optional<RemoteException> ended(RemoteHost host, RemoteShell shell, Ending e) {
        AgentMessage.Done outcome = e.outcome();
        if (e.protocolError() != null) {
            return Optional.of(new RemoteException(Kind.TOOL_FAILED, host, e.protocolError()));
        }
        if (outcome != null && outcome.status() == 0) {
            return Optional.empty();
        }
        if (outcome != null) {
            return Optional.of(new RemoteException(Kind.JOB_FAILED, host, outcome.status(),
                    outcome.message() == null ? "failed with status " + outcome.status() : RemoteText.sanitize(outcome.message()),
                    outcome.failures().stream().map(RemoteText::sanitize).toList(), outcome.reportedByPeer()));
        }
        if (e.startTimedOut()) {
            return Optional.of(startTimedOut(host, shell, e.early()));
        }
        if (!e.greeted()) {
            return Optional.of(classify(host, e.exit(), e.early(), shell, e.remoteVersion()));
        }
        return Optional.of(new RemoteException(Kind.LOST, host, e.exit() == 255 && shell.isSsh()
                ? "the ssh connection was lost"
                : "the agent ended without reporting (exit " + e.exit() + ")"
                        + (e.lastStderr() == null ? "" : ": " + e.lastStderr())));
    }

    /** The local remote-shell program could not be started at all. */
    static RemoteException cannotRun(RemoteHost host, RemoteShell shell, String program, String reason) {
        return new RemoteException(Kind.UNREACHABLE, host, "cannot run '" + program + "': "
                + RemoteText.sanitize(reason) + (shell.isSsh() ? " (install OpenSSH's ssh client, or give -e)"
                : " (check -e or " + RemoteShell.RSH_ENV + ")"));
    }

    /** No hello within the start timeout; the command is the one that ran, less the nonce. */
    static RemoteException startTimedOut(RemoteHost host, RemoteShell shell, List<String> early) {
        // Quoted word by word for a shell: the remote command is one word, and the rdflux path
        // in it may hold quotes of its own.
        return new RemoteException(Kind.TOOL_FAILED, host, "rdflux did not start within "
                + shell.startTimeout().toSeconds() + " s" + lastLine(early, " (")
                + "; check that " + ShellWords.join(shell.command(host, shell.agentCommand()))
                + " prints a hello line, or give it longer with --start-timeout");
    }

    /** The job went out but no listening port came back in time. */
    static RemoteException noListeningPort(RemoteHost host, Duration timeout) {
        return new RemoteException(Kind.TOOL_FAILED, host, "the agent did not report a listening port within "
                + timeout.toSeconds() + " s");
    }

    /** Asked for the listening port of a job that ended well without one. */
    static RemoteException noReceiver(RemoteHost host) {
        return new RemoteException(Kind.TOOL_FAILED, host, "the job had no receiver");
    }

    /** The protocol error for a hello of another protocol version. */
    static String otherProtocol(AgentMessage.Hello hello) {
        return "rdflux there speaks agent protocol " + hello.protocol() + ", this one "
                + AgentMessage.PROTOCOL + " (" + RemoteText.sanitize(hello.version())
                + "): install the same version on both hosts";
    }

    /**
     * The protocol error for an agent whose release cannot serve this one ({@link
     * ReleaseVersion#worksWith}); null when it can, or when its hello's version is not of the
     * usual form (then the protocols' own checks decide).
     */
    static String otherVersion(AgentMessage.Hello hello, ReleaseVersion local) {
        return ReleaseVersion.parse(hello.version()).filter(theirs -> !local.worksWith(theirs))
                .map(theirs -> "rdflux there is " + RemoteText.sanitize(theirs.toString()) + ", this one " + local
                        + ": run with --install-remote to run this version there, or install the same version on both hosts")
                .orElse(null);
    }

    /** The protocol error for a message that could not be parsed, {@code reason} as the parser said. */
    static String malformed(String reason) {
        return "the agent sent a malformed message (" + RemoteText.sanitize(reason) + ")";
    }

    /** Why a line too long to be a message is malformed. */
    static String tooLong() {
        return "a line longer than " + AgentMessage.MAX_LINE + " bytes";
    }

    /**
     * Why the remote command ended before the agent said hello, from the exit status and what
     * ssh or the remote shell printed: one line with what to do.
     */
    static RemoteException classify(RemoteHost host, int exit, List<String> stderr, RemoteShell shell) {
        return classify(host, exit, stderr, shell, null);
    }

    /**
     * Whether an agent that ended with {@code exit} before its hello, printing {@code stderr},
     * refused {@code --frame-size} or {@code --slots} as unknown options: an rdflux older than
     * {@link AgentSizing}, given a job's sizes other than the defaults. Then its version is worth
     * asking for the message ({@link RemoteAgent}).
     */
    static boolean refusesSizing(int exit, List<String> stderr) {
        String said = String.join(" ", stderr);
        // picocli's words ("Unknown option: '--slots'") and this project's ("unknown option '--frame-size', ...").
        return exit == 64 && !said.contains("--hello") && said.toLowerCase(Locale.ROOT).contains("unknown option")
                && (said.contains("--frame-size") || said.contains("--slots"));
    }

    /** {@link #classify}, with what {@code rdflux --version} said there when it was asked (null: not known). */
    static RemoteException classify(RemoteHost host, int exit, List<String> stderr, RemoteShell shell, String remoteVersion) {
        String said = String.join(" ", stderr);
        String lower = said.toLowerCase(Locale.ROOT);
        String quoted = lastLine(stderr, " (");
        if (exit == 255 && shell.isSsh()) {
            if (lower.contains("could not resolve hostname") || lower.contains("name or service not known")) {
                return new RemoteException(Kind.UNREACHABLE, host, "unknown host name" + quoted
                        + "; check the name, or the Host entries of your ssh configuration");
            }
            if (lower.contains("connection refused")) {
                return new RemoteException(Kind.UNREACHABLE, host, "ssh connection refused" + quoted
                        + "; check that sshd runs there and listens on the port ssh uses");
            }
            if (lower.contains("timed out")) {
                return new RemoteException(Kind.UNREACHABLE, host, "ssh connection timed out after "
                        + shell.connectTimeout().toSeconds() + " s" + quoted + "; check that the host is up and reachable");
            }
            if (lower.contains("no route to host") || lower.contains("network is unreachable")) {
                return new RemoteException(Kind.UNREACHABLE, host, "host unreachable" + quoted
                        + "; check the network path to it");
            }
            if (lower.contains("host key verification failed") || lower.contains("remote host identification has changed")) {
                return new RemoteException(Kind.HOST_KEY, host, "ssh does not trust the host key" + quoted
                        + "; connect once with 'ssh " + host.destination() + "' to check and accept it");
            }
            if (lower.contains("permission denied") || lower.contains("too many authentication failures")) {
                return new RemoteException(Kind.AUTHENTICATION, host, "ssh could not log in without a password"
                        + quoted + "; rdflux runs ssh in batch mode: set up key-based login (ssh-copy-id "
                        + host.destination() + ") or load your key into ssh-agent");
            }
            return new RemoteException(Kind.UNREACHABLE, host, "ssh failed" + quoted
                    + "; try 'ssh " + host.destination() + " true' to see why");
        }
        String tool = shell.tool();
        if (exit == 127) {
            // The fix that needs nothing on the host: this host's release, copied over the same ssh.
            return new RemoteException(Kind.TOOL_MISSING, host, "'" + tool + "' not found there" + quoted
                    + (tool.equals(RemoteShell.DEFAULT_TOOL)
                            ? "; run with --install-remote to copy this host's rdma-flux there, or install it there"
                            : "; check the path given with --rdflux-path, or leave it out and run with --install-remote"
                                    + " to copy this host's rdma-flux there"));
        }
        if (exit == 126) {
            return new RemoteException(Kind.TOOL_MISSING, host, "'" + tool + "' cannot be run there" + quoted
                    + "; check the path given with --rdflux-path and its permissions");
        }
        if (exit == 64 && said.contains("--hello")) {
            return new RemoteException(Kind.TOOL_FAILED, host, "'" + tool + " agent' there does not take --hello, "
                    + "which this version gives it: install the same version on both hosts");
        }
        if (refusesSizing(exit, stderr)) {
            // An older agent: it would run the job, but not with its buffer memory sized for it.
            String version = remoteVersion == null || remoteVersion.isBlank() ? "an older version"
                    : RemoteText.sanitize(remoteVersion.strip());
            return new RemoteException(Kind.TOOL_FAILED, host, "'" + tool + " agent' there (" + version
                    + ") does not take --frame-size and --slots, which this version gives it for sizes other than the"
                    + " defaults: run with --install-remote to put this version there, or leave --frame-size and"
                    + " --slots at their defaults (1M, 16)");
        }
        return new RemoteException(Kind.TOOL_FAILED, host, "'" + tool + " agent' failed to start (exit " + exit + ")"
                + quoted + "; check the rdma-flux installation there");
    }

    /** The last of {@code lines} after {@code prefix} (closed again when it opens a parenthesis); "" when none. */
    private static String lastLine(List<String> lines, String prefix) {
        return lines.isEmpty() ? "" : prefix + lines.get(lines.size() - 1) + (prefix.endsWith("(") ? ")" : "");
    }
}
