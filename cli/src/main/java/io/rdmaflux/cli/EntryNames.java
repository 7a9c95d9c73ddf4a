package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.text.RemoteText;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * rdcp's lines for the entries the receiving end names, as rsync -v prints them: the path of
 * each file or link copied, {@code deleting PATH} for each removed, {@code PATH is uptodate}
 * for each kept (-vv). A path comes from the sending end, which may be a hostile host: control
 * characters and terminal escapes are made visible before it is printed. Each line is printed
 * as it arrives, so no list grows with the tree.
 */
final class EntryNames {

    /** A tree's paths are at most 4 KiB; a line shows that much of one. */
    private static final int MAX_PATH_SHOWN = 4096;

    /** Prints one line on stdout: {@link Console#outLine}, which clears a progress line first. */
    private final Consumer<String> out;
    private final AtomicLong deleted = new AtomicLong();

    EntryNames(Consumer<String> out) {
        this.out = out;
    }

    /** Prints {@code e}'s line. Called from the threads that read the ends' reports. */
    void print(AgentMessage.Entry e) {
        String path = RemoteText.sanitize(e.path(), MAX_PATH_SHOWN);
        String line = switch (e.change()) {
            case "deleted" -> {
                deleted.incrementAndGet();
                yield "deleting " + path;
            }
            case "unchanged" -> path + " is uptodate";
            default -> path;
        };
        out.accept(line);
    }

    /** How many deletions were named. */
    long deleted() {
        return deleted.get();
    }
}
