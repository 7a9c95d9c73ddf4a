package io.rdmaflux.cli.remote;

import java.util.List;

/**
 * Something went wrong on or on the way to a remote host. The message is one line that names
 * the host and says what to do; {@link #kind()} classifies it for the exit code
 * ({@code io.rdmaflux.cli.ExitCode} maps it).
 */
public final class RemoteException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** ssh could not reach the host: unknown name, connection refused, timed out, no route. */
        UNREACHABLE,
        /** ssh reached the host but could not log in without a prompt (batch mode). */
        AUTHENTICATION,
        /** The host's key is unknown or has changed. */
        HOST_KEY,
        /** The remote shell could not find or run the rdflux tool (exit 127 or 126). */
        TOOL_MISSING,
        /** The remote tool started but is not a usable agent: it failed, timed out, or speaks another protocol. */
        TOOL_FAILED,
        /** The agent or its ssh connection went away in the middle of the job. */
        LOST,
        /** The agent ran the job and reported a failure, with an exit code of its own. */
        JOB_FAILED
    }

    private final Kind kind;
    private final RemoteHost host;
    private final int remoteStatus;
    private final transient List<String> failures;
    private final boolean reportedByPeer;

    public RemoteException(Kind kind, RemoteHost host, String message) {
        this(kind, host, 0, message);
    }

    public RemoteException(Kind kind, RemoteHost host, int remoteStatus, String message) {
        this(kind, host, remoteStatus, message, List.of());
    }

    /**
     * @param failures for a partial transfer the agent reported: what did not arrive, as
     *                 {@code "path: reason"}, sanitized
     */
    public RemoteException(Kind kind, RemoteHost host, int remoteStatus, String message, List<String> failures) {
        this(kind, host, remoteStatus, message, failures, false);
    }

    /**
     * @param reportedByPeer for {@link Kind#JOB_FAILED}: the job's failure is one its channel
     *                       peer reported (see {@code RdmaFluxException.reportedByPeer()})
     */
    public RemoteException(Kind kind, RemoteHost host, int remoteStatus, String message, List<String> failures,
                           boolean reportedByPeer) {
        super(host + ": " + message);
        this.kind = kind;
        this.host = host;
        this.remoteStatus = remoteStatus;
        this.failures = List.copyOf(failures);
        this.reportedByPeer = reportedByPeer;
    }

    /** For {@link Kind#JOB_FAILED}: the agent said its job's channel peer reported the failure. */
    public boolean reportedByPeer() {
        return reportedByPeer;
    }

    /** For a partial transfer ({@link Kind#JOB_FAILED}): what did not arrive; empty otherwise. */
    public List<String> failures() {
        return failures;
    }

    public Kind kind() {
        return kind;
    }

    public RemoteHost host() {
        return host;
    }

    /** For {@link Kind#JOB_FAILED}: the exit status the agent reported. */
    public int remoteStatus() {
        return remoteStatus;
    }
}
