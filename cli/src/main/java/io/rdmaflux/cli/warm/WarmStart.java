package io.rdmaflux.cli.warm;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Starts the warm agent's daemon for a place, detached: in a session of its own ({@code setsid}),
 * its standard streams on {@code /dev/null}, so that the ssh session that started it can end
 * (sshd waits for the command's streams) and no hang-up reaches it. It runs this JVM's own
 * command line (the same java, options and jar) with {@code agent --daemon}. An agent calls it
 * after its job, so the call that leaves the daemon pays only the fork.
 */
public final class WarmStart {

    private WarmStart() {
    }

    /**
     * Starts a daemon for {@code place} unless one holds it already; why not when it did not
     * (null when it started one or one was there).
     *
     * @param idle how long the daemon stays without a session
     */
    public static String start(WarmPlace place, Duration idle) {
        String why = io.rdmaflux.cli.remote.PrivateDirectory.ensure(place.dir());
        if (why != null) {
            return why;
        }
        if (!place.fits()) {
            return place.socket() + " is too long a path for a socket";
        }
        if (held(place)) {
            return null;
        }
        Optional<List<String>> command = command(place, idle);
        if (command.isEmpty()) {
            return "cannot tell this JVM's command line";
        }
        List<String> argv = new ArrayList<>();
        argv.add("setsid");
        argv.addAll(command.get());
        try {
            new ProcessBuilder(argv)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return null;
        } catch (IOException e) {
            return "cannot start it: " + e.getMessage();
        }
    }

    /** Whether a daemon holds the place's lock now (a race with one starting is settled by its own lock). */
    private static boolean held(WarmPlace place) {
        if (!Files.exists(place.lock())) {
            return false;
        }
        try (FileChannel f = FileChannel.open(place.lock(), StandardOpenOption.WRITE);
             FileLock lock = f.tryLock()) {
            return lock == null;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * This JVM's command line up to {@code -jar JAR TOOL}, then {@code agent --daemon --warm
     * SECONDS --warm-dir DIR}; empty when it was not started with {@code -jar} (a test in-process).
     */
    static Optional<List<String>> command(WarmPlace place, Duration idle) {
        ProcessHandle.Info info = ProcessHandle.current().info();
        Optional<String> java = info.command();
        Optional<String[]> args = info.arguments();
        if (java.isEmpty() || args.isEmpty()) {
            return Optional.empty();
        }
        List<String> a = List.of(args.get());
        int jar = a.indexOf("-jar");
        if (jar < 0 || jar + 2 >= a.size()) {
            return Optional.empty();
        }
        List<String> argv = new ArrayList<>();
        argv.add(java.get());
        argv.addAll(a.subList(0, jar + 3));
        argv.addAll(List.of("agent", "--daemon", "--warm", Long.toString(idle.toSeconds()),
                "--warm-dir", place.dir().toString()));
        return Optional.of(argv);
    }
}
