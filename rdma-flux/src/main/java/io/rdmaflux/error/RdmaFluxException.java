package io.rdmaflux.error;

/**
 * The root of the project's failures: a stream failure with a classified cause, whatever
 * failed (the channel, a peer, a codec, a file, a command), which the tools turn into their
 * exit codes. Subclasses name where it happened ({@code ConnectorException}, say); the
 * {@link ErrorCode} says why. Its message is written for the person at the
 * terminal: one line, no class names. {@link #reportedByPeer()} tells a failure the other end
 * of the channel reported (its ERROR frame) from one of this side's own, so that a tool
 * running several streams can name the one that failed first rather than its consequences.
 */
public class RdmaFluxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final boolean reportedByPeer;

    public RdmaFluxException(ErrorCode code, String message) {
        this(code, message, null, false);
    }

    public RdmaFluxException(ErrorCode code, String message, Throwable cause) {
        this(code, message, cause, false);
    }

    private RdmaFluxException(ErrorCode code, String message, Throwable cause, boolean reportedByPeer) {
        super(message, cause);
        this.code = code;
        this.reportedByPeer = reportedByPeer;
    }

    /** The failure the peer reported in its ERROR frame, as this side sees it. */
    public static RdmaFluxException fromPeer(ErrorCode code, String message) {
        return new RdmaFluxException(code, message, null, true);
    }

    /**
     * Whether the other end of the channel reported this failure (it failed first, or stopped
     * reading): then the cause lies there, and this side's failure is its consequence.
     */
    public boolean reportedByPeer() {
        return reportedByPeer;
    }

    /** Whether {@code t}, or a cause of it (a failure that wraps it), is one the peer reported. */
    public static boolean isReportedByPeer(Throwable t) {
        int depth = 0;
        for (Throwable c = t; c != null && depth++ < 16; c = c.getCause()) {
            if (c instanceof RdmaFluxException pe && pe.reportedByPeer()) {
                return true;
            }
        }
        return false;
    }

    /** Why the stream failed. */
    public ErrorCode code() {
        return code;
    }

    /** Classifies any throwable: a {@code RdmaFluxException} keeps its code, others are INTERNAL. */
    public static RdmaFluxException wrap(Throwable t, ErrorCode fallback) {
        if (t instanceof RdmaFluxException pe) {
            return pe;
        }
        String msg = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
        return new RdmaFluxException(fallback, msg, t);
    }
}
