package io.rdmaflux.cli;

import java.util.Locale;

/**
 * rdcp {@code -v}'s line of what crossed the wire, as rsync's {@code sent N bytes}: the tree
 * stream's bytes the source sent (before {@code --zstd}) against the bytes of the files
 * written, so that what a sync or a resume saved shows.
 */
final class SentLine {

    private SentLine() {
    }

    /**
     * {@code sent N bytes (H) for M bytes (H) of files written}, with the share when less than
     * all was sent (files resumed after a kept part, holes).
     *
     * @param sent    the stream's bytes, as the sending end counted them
     * @param written the contents of the files written at the destination (a resumed file's whole size)
     */
    static String of(long sent, long written) {
        String share = written > 0 && sent < written
                ? String.format(Locale.ROOT, " (%d%%)", Math.max(1, Math.round(sent * 100.0 / written))) : "";
        return "sent " + sent + " bytes (" + Meter.human(sent) + ") for " + Math.max(0, written) + " bytes ("
                + Meter.human(Math.max(0, written)) + ") of files written" + share;
    }
}
