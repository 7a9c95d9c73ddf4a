package io.rdmaflux.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * rdcp's options that rsync and scp users bring from habit: {@code -a}, {@code -n} and
 * {@code --bwlimit}, with rsync's meanings where rdcp has them.
 */
final class CopyHabits {

    @Option(names = {"-a", "--archive"}, description = "As rsync -a: copy directories (-r), keeping modes, times "
            + "and links, which rdcp always does.")
    boolean archive;

    @Option(names = {"-n", "--dry-run"}, description = "List what would be copied and deleted, as -v names them, "
            + "and change nothing at the destination. The files to copy are still read and sent (with --sync "
            + "only those that differ), to be checked and dropped.")
    boolean dryRun;

    @Option(names = "--bwlimit", paramLabel = "RATE", converter = RateConverter.class, description = "Send at "
            + "most RATE per second, as rsync: a plain number is KiB/s, or with a suffix K, M or G (1024s), "
            + "e.g. 500, 20M; 0 for no limit.")
    long bwlimit;

    /**
     * --delete with a single local file SRC: a usage error, as there is nothing it could remove
     * (a remote one is found out there, and deletes nothing).
     */
    void checkDelete(boolean delete, RdcpCommand.Plan plan) {
        if (delete && plan.sourceHost() == null && plan.source().get("path") instanceof String path
                && Files.exists(Path.of(path)) && !Files.isDirectory(Path.of(path))) {
            throw new UsageException("--delete with a single file SRC (" + path + "): it removes files inside copied "
                    + "directories only");
        }
    }

    /** Whether the last component of a remote SRC holds a wildcard (*, ? or [), which its host expands. */
    static boolean hasWildcard(String path) {
        return path.substring(path.lastIndexOf('/') + 1).matches(".*[*?\\[].*");
    }

    /** Parses rsync's rates: a number of KiB, or a number with K, M or G (optionally B or iB after it). */
    static final class RateConverter implements picocli.CommandLine.ITypeConverter<Long> {

        private static final Pattern RATE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)([kmg]?)(?:i?b)?");

        @Override
        public Long convert(String value) {
            return parse(value);
        }

        /** Bytes per second for {@code value}. */
        static long parse(String value) {
            Matcher m = RATE.matcher(value.trim().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new IllegalArgumentException("not a rate: '" + value + "' (examples: 500 for 500 KiB/s, 20M, 1G)");
            }
            int shift = switch (m.group(2)) {
                case "m" -> 20;
                case "g" -> 30;
                default -> 10;   // K, and a plain number: KiB/s, as rsync
            };
            double bytes = Double.parseDouble(m.group(1)) * (1L << shift);
            if (bytes > Long.MAX_VALUE / 2) {
                throw new IllegalArgumentException("rate too large: '" + value + "'");
            }
            if (bytes > 0 && bytes < 512) {
                // rsync's smallest too: a chunk of a tree stream takes ages below it.
                throw new IllegalArgumentException("rate too small: '" + value + "' (the least is 0.5K)");
            }
            return (long) bytes;
        }
    }
}
