package io.rdmaflux.cli.warm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm agent's daemon that starts while a starter looks whether one serves (WarmStart.held
 * takes the place's lock for a moment) does not take the look for a daemon and exit: it tries
 * the lock again, bounded. The look is a real process ({@link LockHolder}: a POSIX lock is a
 * process's), held until the daemon's first try has failed, so the race is forced.
 */
class WarmDaemonLockTest {

    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Process holder;

    @AfterEach
    void endHolder() throws InterruptedException {
        if (holder != null) {
            holder.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aDaemonStartingDuringAStartersLookTakesTheLockOnceTheLookIsOver() throws Exception {
        Path lockFile = dir.resolve("agent.lock");
        holdLock(lockFile);
        try (FileChannel f = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            CompletableFuture<FileLock> taken = new CompletableFuture<>();
            Thread daemon = new Thread(() -> {
                try {
                    taken.complete(WarmDaemon.lock(f, LIMIT));
                } catch (Throwable e) {
                    taken.completeExceptionally(e);
                }
            }, "starting-daemon");
            daemon.start();
            // Its first try found the lock held: it waits to try again (or, without the retry, gave up).
            await("the daemon's first try").atMost(LIMIT)
                    .until(() -> daemon.getState() == Thread.State.TIMED_WAITING || taken.isDone());

            holder.getOutputStream().close();   // the look is over: its process releases the lock and exits

            FileLock lock = taken.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(lock).as("the place's lock, taken by the starting daemon").isNotNull();
            assertThat(lock.isValid()).isTrue();
            lock.release();
        }
    }

    @Test
    void aDaemonStartingWhileAnotherHoldsThePlaceGivesUpAfterItsWait() throws Exception {
        Path lockFile = dir.resolve("agent.lock");
        holdLock(lockFile);   // another daemon, for the whole test
        try (FileChannel f = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            assertThat(WarmDaemon.lock(f, Duration.ofMillis(50))).as("the lock of a place another holds").isNull();
        }
    }

    /** Starts a process that holds {@code lockFile}'s lock until its stdin ends; returns once it holds it. */
    private void holdLock(Path lockFile) throws Exception {
        holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Xmx32m", LockHolder.class.getName(), lockFile.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(line).as("the holder's word").isEqualTo("locked");
    }
}
