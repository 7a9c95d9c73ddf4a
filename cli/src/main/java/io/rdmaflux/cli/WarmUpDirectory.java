package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.DirectoryTree;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The private temporary directory a standby's warm-up writes its tiny tree in ({@link
 * StandbyWarmUp#treeCopy}), and what makes sure it never outlives the warm-up. A standby is
 * ended by SIGTERM at any moment (a test's or a benchmark's clean-up, a shutdown); no tool's
 * signal handlers are installed before its call, so the JVM's own handling runs the shutdown
 * hooks, and one held for the warm-up's duration removes the directory. A SIGKILL runs nothing:
 * the directory is named {@code rdflux-warm-up-PID-*}, and the next warm-up removes those of
 * this user whose process is gone.
 */
final class WarmUpDirectory implements AutoCloseable {

    /** The directories' names: the prefix, the owner's pid, a dash, then createTempDirectory's random part. */
    static final String PREFIX = "rdflux-warm-up-";
    /**
     * A test-only pause after the tree is made ({@link #pauseForTests}), in milliseconds, so
     * that a test can end the standby at that very moment (StandbyE2ETest). Unset: none.
     */
    static final String PAUSE_PROPERTY = "rdflux.test.warm-up-pause-ms";
    /** How long the shutdown hook keeps removing: the warm-up's threads still run while hooks do. */
    private static final Duration HOOK_LIMIT = Duration.ofSeconds(1);

    private final Path dir;
    private final Thread hook;

    private WarmUpDirectory(Path dir) {
        this.dir = dir;
        this.hook = new Thread(this::removeAtExit, "standby-warm-up-clean-up");
    }

    /**
     * Removes what dead warm-ups left under {@code under}, then makes a new directory there
     * (0700), removed by a shutdown hook until {@link #close}.
     *
     * @throws IOException when it cannot be made
     */
    static WarmUpDirectory create(Path under) throws IOException {
        removeStale(under);
        WarmUpDirectory d = new WarmUpDirectory(
                Files.createTempDirectory(under, PREFIX + ProcessHandle.current().pid() + "-"));
        try {
            Runtime.getRuntime().addShutdownHook(d.hook);
        } catch (IllegalStateException shuttingDown) {
            DirectoryTree.removeAll(d.dir);
            throw new IOException("the JVM is shutting down");
        }
        return d;
    }

    /** The directory. */
    Path path() {
        return dir;
    }

    /** Removes the directory and drops the hook (hooks must not pile up); whether it is gone. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook runs, or ran, and removes it.
        }
        DirectoryTree.removeAll(dir);
    }

    /** Whether the directory is gone. */
    boolean removed() {
        return !Files.exists(dir, LinkOption.NOFOLLOW_LINKS);
    }

    /** Sleeps the {@link #PAUSE_PROPERTY test-only pause}, if any. */
    static void pauseForTests() throws InterruptedException {
        long ms = Long.getLong(PAUSE_PROPERTY, 0);
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    /**
     * The hook: removes the directory, again while the warm-up (still running) makes files in
     * it, until it stays gone for a moment or {@link #HOOK_LIMIT} is spent.
     */
    private void removeAtExit() {
        long end = System.nanoTime() + HOOK_LIMIT.toNanos();
        try {
            while (System.nanoTime() < end) {
                if (DirectoryTree.removeAll(dir)) {
                    Thread.sleep(50);
                    if (removed()) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Removes the {@code rdflux-warm-up-PID-*} directories under {@code under} that this user
     * owns and whose process is gone (killed during its warm-up). Others' are left alone.
     */
    static void removeStale(Path under) {
        Object me;
        try {
            me = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return;   // no /proc: cannot tell whose they are
        }
        try (DirectoryStream<Path> found = Files.newDirectoryStream(under, PREFIX + "*")) {
            for (Path d : found) {
                long pid = pidOf(d.getFileName().toString());
                if (pid > 0 && ProcessHandle.of(pid).isEmpty()
                        && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                        && me.equals(Files.getAttribute(d, "unix:uid", LinkOption.NOFOLLOW_LINKS))) {
                    DirectoryTree.removeAll(d);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Left for the next warm-up.
        }
    }

    /** The pid in a name {@code rdflux-warm-up-PID-RANDOM}; -1 for any other name. */
    static long pidOf(String name) {
        if (!name.startsWith(PREFIX)) {
            return -1;
        }
        String rest = name.substring(PREFIX.length());
        int dash = rest.indexOf('-');
        if (dash < 1 || dash > 10 || !rest.substring(0, dash).chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Long.parseLong(rest.substring(0, dash));
    }
}
