package io.rdmaflux.cli.standby;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a client hands its standby (docs/architecture.md, "The standby JVM"): its pid, the
 * tool and its arguments, what each of its standard descriptors is, and its terminal if it has
 * one. On the wire: NUL-terminated items {@code P<pid>}, {@code A<word>} (the tool first),
 * {@code F<fd> <kind> <pos> <a|->} for fds 0, 1 and 2 in that order, {@code T<tty path>}.
 *
 * @param pid   the client's process id, whose {@code /proc/PID/fd/N} the standby opens
 * @param argv  the tool, then its arguments
 * @param fds   fds 0, 1 and 2
 * @param tty   the client's controlling terminal's path; null when it has none
 */
public record StandbyContext(long pid, List<String> argv, List<Fd> fds, String tty) {

    /** What a descriptor is, as the client names it. */
    public enum Kind { PIPE, TTY, CHR, BLK, REG }

    /**
     * One of the client's standard descriptors.
     *
     * @param number 0, 1 or 2
     * @param kind   what it is
     * @param pos    its offset (regular files; 0 otherwise)
     * @param append whether it was opened with O_APPEND
     */
    public record Fd(int number, Kind kind, long pos, boolean append) {
    }

    /** The longest context accepted, in bytes. */
    public static final int MAX_BYTES = 1 << 20;

    /** Reads a context from its body (the bytes after the length); IllegalArgumentException when malformed. */
    public static StandbyContext parse(byte[] body) {
        List<String> items = items(body);
        long pid = -1;
        List<String> argv = new ArrayList<>();
        List<Fd> fds = new ArrayList<>();
        String tty = null;
        for (String item : items) {
            if (item.isEmpty()) {
                throw new IllegalArgumentException("an empty item");
            }
            String value = item.substring(1);
            switch (item.charAt(0)) {
                case 'P' -> {
                    if (pid != -1) {
                        throw new IllegalArgumentException("two pids");
                    }
                    pid = number(value, "pid");
                    if (pid <= 1) {
                        throw new IllegalArgumentException("pid " + pid);
                    }
                }
                case 'A' -> argv.add(value);
                case 'F' -> fds.add(fd(value, fds.size()));
                case 'T' -> {
                    if (tty != null || !value.startsWith("/dev/") || value.contains("/../")) {
                        throw new IllegalArgumentException("terminal '" + value + "'");
                    }
                    tty = value;
                }
                default -> throw new IllegalArgumentException("an item of kind '" + item.charAt(0) + "'");
            }
        }
        if (pid == -1 || argv.isEmpty() || fds.size() != 3) {
            throw new IllegalArgumentException("no pid, tool or fds 0, 1 and 2");
        }
        return new StandbyContext(pid, List.copyOf(argv), List.copyOf(fds), tty);
    }

    /** The NUL-terminated items of {@code body}; it must end with a NUL. */
    private static List<String> items(byte[] body) {
        if (body.length == 0 || body[body.length - 1] != 0) {
            throw new IllegalArgumentException("the items do not end with a NUL");
        }
        List<String> items = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < body.length; i++) {
            if (body[i] == 0) {
                items.add(new String(body, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return items;
    }

    /** {@code "<fd> <kind> <pos> <a|->"}, which must be fd {@code expected}. */
    private static Fd fd(String value, int expected) {
        String[] f = value.split(" ", -1);
        if (f.length != 4 || !f[0].equals(Integer.toString(expected))) {
            throw new IllegalArgumentException("fd item '" + value + "' (expected fd " + expected + ")");
        }
        Kind kind = switch (f[1]) {
            case "pipe" -> Kind.PIPE;
            case "tty" -> Kind.TTY;
            case "chr" -> Kind.CHR;
            case "blk" -> Kind.BLK;
            case "reg" -> Kind.REG;
            default -> throw new IllegalArgumentException("fd kind '" + f[1] + "'");
        };
        long pos = number(f[2], "offset");
        if (!f[3].equals("a") && !f[3].equals("-")) {
            throw new IllegalArgumentException("fd append flag '" + f[3] + "'");
        }
        return new Fd(expected, kind, pos, f[3].equals("a"));
    }

    private static long number(String s, String what) {
        if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(what + " '" + s + "'");
        }
        return Long.parseLong(s);
    }
}
