package io.rdmaflux.cli;

/** Port arguments, checked with messages a person can act on. */
final class Ports {

    private Ports() {
    }

    static int parse(String s, boolean allowZero) {
        int p;
        try {
            p = Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("bad port '" + s + "': expected a number from 1 to 65535");
        }
        if (p < (allowZero ? 0 : 1) || p > 65535) {
            throw new UsageException("bad port " + p + ": expected a number from 1 to 65535");
        }
        return p;
    }
}
