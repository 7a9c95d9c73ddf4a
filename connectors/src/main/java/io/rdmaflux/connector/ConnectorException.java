package io.rdmaflux.connector;

import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;

/**
 * A source or sink failed for a reason the user can act on: a missing file, a full disk, a
 * permission problem. The message is one line for the terminal, naming the path and what
 * happened to any partial output.
 *
 * <p>It is a {@link ProtocolException} with code {@link ErrorCode#SOURCE_FAILED} or
 * {@link ErrorCode#SINK_FAILED}, so when it ends a channel stream, the peer is told the same
 * reason, and the command-line tools map it to their exit codes as for any stream failure.
 * {@link #reason()} classifies it further for tools that want a finer exit code.
 */
public final class ConnectorException extends ProtocolException {

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
        /** Any other I/O failure. */
        IO
    }

    private final Reason reason;

    public ConnectorException(ErrorCode code, Reason reason, String message, Throwable cause) {
        super(code, message, cause);
        this.reason = reason;
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
}
