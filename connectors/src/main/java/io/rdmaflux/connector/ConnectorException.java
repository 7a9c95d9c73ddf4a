package io.rdmaflux.connector;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.OptionalInt;

/**
 * A source or sink failed for a reason the user can act on: a missing file, a full disk, a
 * permission problem. The message is one line for the terminal, naming the path and what
 * happened to any partial output.
 *
 * <p>It is a {@link RdmaFluxException} with code {@link ErrorCode#SOURCE_FAILED} or
 * {@link ErrorCode#SINK_FAILED}, so when it ends a channel stream, the peer is told the same
 * reason, and the command-line tools map it to their exit codes as for any stream failure.
 * {@link #reason()} classifies it further for tools that want a finer exit code, and
 * {@link #exitStatus()} gives a failed command's exit status.
 */
public final class ConnectorException extends RdmaFluxException {

    private static final long serialVersionUID = 1L;

    /** What went wrong, independent of the wording. */
    public enum Reason {
        /** The file or its directory does not exist. */
        NOT_FOUND,
        /** A directory (or another unusable kind of file) where a file was expected. */
        NOT_A_FILE,
        /** Permission denied, or a read-only file system. */
        PERMISSION_DENIED,
        /** No space left on the device, or a quota exceeded. */
        NO_SPACE,
        /** The reader of an output pipe went away (broken pipe). */
        BROKEN_PIPE,
        /** Any other I/O failure; also a command that failed ({@link ConnectorException#exitStatus()} is then set). */
        IO
    }

    private final Reason reason;
    private final int exitStatus;

    public ConnectorException(ErrorCode code, Reason reason, String message, Throwable cause) {
        this(code, reason, -1, message, cause);
    }

    private ConnectorException(ErrorCode code, Reason reason, int exitStatus, String message, Throwable cause) {
        super(code, message, cause);
        this.reason = reason;
        this.exitStatus = exitStatus;
    }

    /**
     * A command's failure, with its exit status (128 + N for death by signal N, as the shell
     * reports it).
     */
    public static ConnectorException command(ErrorCode code, Reason reason, int exitStatus, String message) {
        return new ConnectorException(code, reason, exitStatus, message, null);
    }

    /** A source failure. */
    public static ConnectorException source(Reason reason, String message, Throwable cause) {
        return new ConnectorException(ErrorCode.SOURCE_FAILED, reason, message, cause);
    }

    /** A sink failure. */
    public static ConnectorException sink(Reason reason, String message, Throwable cause) {
        return new ConnectorException(ErrorCode.SINK_FAILED, reason, message, cause);
    }

    /** What went wrong. */
    public Reason reason() {
        return reason;
    }

    /** The exit status of the command whose failure this is; empty for other failures. */
    public OptionalInt exitStatus() {
        return exitStatus < 0 ? OptionalInt.empty() : OptionalInt.of(exitStatus);
    }

    /** This failure with another message (more said about it), everything else kept. */
    public ConnectorException withMessage(String message) {
        return new ConnectorException(code(), reason, exitStatus, message, this);
    }
}
