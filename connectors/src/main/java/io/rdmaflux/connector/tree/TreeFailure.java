package io.rdmaflux.connector.tree;

/**
 * One entry of a tree that did not arrive, and why: unreadable or changed on the sending side,
 * or not writable on the receiving side.
 *
 * @param path   the entry's path relative to the tree's root (empty for the root). It comes from
 *               the stream, so from the peer: sanitize it before printing it on a terminal
 * @param reason one line saying what went wrong
 */
public record TreeFailure(String path, String reason) {

    /** {@code "path: reason"}, for messages. */
    @Override
    public String toString() {
        return (path.isEmpty() ? "." : path) + ": " + reason;
    }
}
