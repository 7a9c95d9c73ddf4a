package io.rdmaflux.cli.remote;

/**
 * Text from another host (its ssh's messages, its agent's errors, its commands' stderr) made
 * safe to print on a terminal: the same rule as a channel peer's words, in
 * {@link io.rdmaflux.protocol.RemoteText}, which this names for the remote-host code.
 */
public final class RemoteText {

    /** The most characters kept of one line; the rest is cut and marked. */
    public static final int MAX_LENGTH = io.rdmaflux.protocol.RemoteText.MAX_LENGTH;

    private RemoteText() {
    }

    /** The text as one printable line, bounded, with no control characters or escape sequences. */
    public static String sanitize(String text) {
        return io.rdmaflux.protocol.RemoteText.sanitize(text);
    }
}
