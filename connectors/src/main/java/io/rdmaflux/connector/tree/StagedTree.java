package io.rdmaflux.connector.tree;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The deterministic names under which a copy keeps what is not complete yet, so that a re-run
 * finds it: a directory the copy creates is staged as {@code .rdflux-NAME.part} beside its
 * final name and renamed to it once its stream ended, and a large file cut part way keeps its
 * prefix under the same name in its own directory ({@code docs/tree-format.md}, "Resume").
 * Unlike the random {@code .rdflux-*.part} of a file being replaced, these names are the
 * same on every run.
 */
public final class StagedTree {

    private static final String PREFIX = ".rdflux-";
    private static final String SUFFIX = ".part";
    /** A file name's most bytes (Linux's NAME_MAX). */
    private static final int NAME_MAX = 255;

    private StagedTree() {
    }

    /** The name that holds the unfinished part of {@code name}: {@code .rdflux-NAME.part}, hashed when too long. */
    public static String partName(String name) {
        String plain = PREFIX + name + SUFFIX;
        if (plain.getBytes(StandardCharsets.UTF_8).length <= NAME_MAX) {
            return plain;
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(h, 0, 16) + SUFFIX;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }

    /** Where the unfinished copy of {@code dest} is kept: beside it (the root itself has no name to stage). */
    public static Path of(Path dest) {
        Path abs = dest.toAbsolutePath().normalize();
        Path name = abs.getFileName();
        return name == null ? null : abs.resolveSibling(partName(name.toString()));
    }

    /**
     * What a sync's listing of {@code dest} lists: {@code dest} when it exists (a link there
     * followed), else a staged directory a cut copy left beside it (a real one, no link
     * followed), else {@code dest} (missing: an empty listing).
     */
    public static Path listed(Path dest) {
        if (Files.exists(dest)) {
            return dest;
        }
        Path staged = of(dest);
        return staged != null && Files.isDirectory(staged, TreeFiles.NOFOLLOW) ? staged : dest;
    }

    /**
     * The part a cut copy kept of the file {@code dest} ({@code .rdflux-NAME.part} beside it, a
     * regular file, no link followed) when {@code dest} itself does not exist; else null. A
     * sync's listing of {@code dest} then offers it, so that a single-file copy resumes too.
     */
    public static Path rootPart(Path dest) {
        if (Files.exists(dest)) {
            return null;
        }
        Path part = of(dest);
        return part != null && Files.isRegularFile(part, TreeFiles.NOFOLLOW) ? part : null;
    }

    /** The attributes of {@code p}, no link followed, or null when there is nothing there. */
    static BasicFileAttributes at(Path p) throws IOException {
        return TreeFiles.attributes(null, p);
    }
}
