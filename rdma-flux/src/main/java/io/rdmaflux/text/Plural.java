package io.rdmaflux.text;

/**
 * A count and its noun, in English as a person reads it: "1 file", "2 files", "0 files". The
 * one place the tools' messages make a plural, so that none says "the 1 files".
 */
public final class Plural {

    private Plural() {
    }

    /** {@code n} with {@code one} when it is 1, else {@code many}: count(1, "entry", "entries") is "1 entry". */
    public static String count(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    /** {@code n} with {@code noun}, an "s" added unless n is 1: count(2, "file") is "2 files". */
    public static String count(long n, String noun) {
        return count(n, noun, noun + "s");
    }
}
