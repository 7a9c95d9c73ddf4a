package io.rdmaflux.connector;

import io.rdmaflux.connector.ConnectorException.Reason;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/** Turns I/O exceptions into one-line, classified messages. */
final class IoErrors {

    private IoErrors() {
    }

    /** The reason behind an I/O failure, from its type and the operating system's wording. */
    static Reason classify(Throwable e) {
        if (e instanceof NoSuchFileException) {
            return Reason.NOT_FOUND;
        }
        if (e instanceof AccessDeniedException) {
            return Reason.PERMISSION_DENIED;
        }
        if (e instanceof NotDirectoryException) {
            return Reason.NOT_FOUND;
        }
        String m = text(e).toLowerCase(Locale.ROOT);
        if (m.contains("no space left") || m.contains("quota exceeded") || m.contains("file too large")) {
            return Reason.NO_SPACE;
        }
        if (m.contains("permission denied") || m.contains("read-only file system")
                || m.contains("operation not permitted")) {
            return Reason.PERMISSION_DENIED;
        }
        if (m.contains("no such file")) {
            return Reason.NOT_FOUND;
        }
        if (m.contains("is a directory")) {
            return Reason.NOT_A_FILE;
        }
        if (m.contains("broken pipe")) {
            return Reason.BROKEN_PIPE;
        }
        return Reason.IO;
    }

    /** A short phrase for a reason, such as "disk full (no space left on device)". */
    static String phrase(Reason reason, Throwable e) {
        String m = text(e).toLowerCase(Locale.ROOT);
        return switch (reason) {
            case NOT_FOUND -> "no such file or directory";
            case NOT_A_FILE -> "is a directory";
            case PERMISSION_DENIED -> m.contains("read-only") ? "read-only file system" : "permission denied";
            case NO_SPACE -> m.contains("quota") ? "disk quota exceeded" : "disk full (no space left on device)";
            case BROKEN_PIPE -> "the reader closed the pipe (broken pipe)";
            case IO -> text(e);
        };
    }

    /**
     * The operating system's reason without the path Java prepends: for a
     * {@link FileSystemException} its reason, for others the message.
     */
    static String text(Throwable e) {
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        String m = e.getMessage();
        return m != null ? m.replace('\n', ' ') : e.getClass().getSimpleName();
    }

    static ConnectorException source(String what, Throwable e) {
        if (e instanceof ConnectorException ce) {
            return ce;
        }
        Reason r = classify(e);
        return ConnectorException.source(r, "cannot read " + what + ": " + phrase(r, e), e);
    }
}
