package io.rdmaflux.protocol;

/**
 * A stream failure with a classified cause. Its message is written for the person at the
 * terminal: one line, no class names.
 */
public class ProtocolException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public ProtocolException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ProtocolException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** Why the stream failed. */
    public ErrorCode code() {
        return code;
    }

    /** Classifies any throwable: a {@code ProtocolException} keeps its code, others are INTERNAL. */
    public static ProtocolException wrap(Throwable t, ErrorCode fallback) {
        if (t instanceof ProtocolException pe) {
            return pe;
        }
        String msg = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
        return new ProtocolException(fallback, msg, t);
    }
}
