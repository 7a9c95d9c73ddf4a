package io.rdmaflux.cli;

/** Port arguments, checked with messages a person can act on. */
final class Ports {

    private Ports() {
    }

    /** A PORT argument: 1 to 65535, or 0 too where the tool picks a free one ({@code allowZero}). */
    static int parse(String s, boolean allowZero) {
        try {
            return check(Integer.parseInt(s.trim()), allowZero);
        } catch (NumberFormatException e) {
            throw new UsageException("bad port '" + s + "': " + expected(allowZero));
        }
    }

    /** A port option's value, checked as {@link #parse}. */
    static int check(int port, boolean allowZero) {
        if (port < (allowZero ? 0 : 1) || port > 65535) {
            throw new UsageException("bad port " + port + ": " + expected(allowZero));
        }
        return port;
    }

    private static String expected(boolean allowZero) {
        return allowZero ? "expected a number from 0 (any free port) to 65535" : "expected a number from 1 to 65535";
    }
}
