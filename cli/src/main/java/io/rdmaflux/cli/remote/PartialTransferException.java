package io.rdmaflux.cli.remote;

import java.util.List;

/**
 * A transfer that arrived whole but for some of its parts: files of a tree that could not be read
 * on one end or written on the other, each named in {@link #failures()}; everything else was
 * copied and verified. rdcp's "partial transfer" (exit 23, as rsync's); an agent reports it with
 * its failures in the {@code done} message.
 */
public final class PartialTransferException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> failures;

    /**
     * @param failures what did not arrive, as {@code "path: reason"}; from the peer, so sanitize
     *                 them before printing them on a terminal
     */
    public PartialTransferException(List<String> failures) {
        this(failures, summary(failures));
    }

    private PartialTransferException(List<String> failures, String message) {
        super(message);
        this.failures = List.copyOf(failures);
    }

    /**
     * The same failures, for a tool that has printed each of them already: its message only
     * sums them up, as rsync's last line does, rather than repeat the first.
     */
    public PartialTransferException named() {
        return new PartialTransferException(failures, "partial transfer: what is named above did not arrive");
    }

    /** What did not arrive, each as {@code "path: reason"}, maybe with a last line counting the others. */
    public List<String> failures() {
        return failures;
    }

    private static String summary(List<String> failures) {
        String first = failures.isEmpty() ? "some entries did not arrive" : failures.get(0);
        return "partial transfer: " + first + (failures.size() > 1 ? " (and more)" : "");
    }
}
