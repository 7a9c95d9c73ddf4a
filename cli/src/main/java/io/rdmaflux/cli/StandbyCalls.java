package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.SshPrompts;
import io.rdmaflux.cli.standby.ClientStreams;
import io.rdmaflux.cli.standby.StandbyContext;
import io.rdmaflux.cli.standby.StandbyPlace;
import io.rdmaflux.cli.standby.StandbyProcess;
import io.rdmaflux.cli.standby.StandbySpawn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.IntConsumer;

/**
 * The tools' side of the standby JVM ({@code cli.standby}): what {@code --standby KEY IDLE}
 * warms up and how it runs its one call (the client's streams made the process's own, then as
 * {@link Main#main} runs a tool), and the standby a cold run leaves at its end when its client
 * gave it a key.
 */
final class StandbyCalls implements StandbyProcess.Call {

    private StandbyCalls() {
    }

    /** {@code --standby KEY IDLE_SECONDS}: serves one call (which ends the process) or none; the exit status then. */
    static int serve(String key, String idleSeconds) {
        StandbyPlace place = StandbyPlace.of(System.getenv(), key);
        long idle;
        try {
            idle = Long.parseLong(idleSeconds);
        } catch (NumberFormatException e) {
            idle = -1;
        }
        if (place == null || idle < 1) {
            System.err.println("rdflux: --standby takes a key of 24 hex digits and an idle time in seconds");
            return ExitCode.USAGE;
        }
        return new StandbyProcess(place, Duration.ofSeconds(idle), new StandbyCalls(), System.err::println,
                Path.of("/proc")).run();
    }

    /**
     * At the end of a cold run: leaves a standby for the next call when the client gave a key
     * and standbys are on; never for {@code rdflux agent} (a remote side, warm through the warm
     * agent), nor after a call a standby served (its successor is started by the exit frame).
     */
    static void afterColdRun(String[] argv) {
        boolean agent = argv.length > 1 && argv[0].equals("rdflux") && argv[1].equals("agent");
        if (!agent && !served && System.getenv(StandbySpawn.KEY_ENV) != null) {
            StandbySpawn.afterColdRun(System.getenv());
        }
    }

    /**
     * At a call's start, cold or served: one line on stderr when {@code RDFLUX_STANDBY} is not
     * understood (a typo such as {@code of} would otherwise leave the user guessing). Not for
     * {@code rdflux agent}, a remote side whose stderr is the coordinator's.
     */
    static void warnIfNotUnderstood(String[] argv) {
        boolean agent = argv.length > 1 && argv[0].equals("rdflux") && argv[1].equals("agent");
        String warning = StandbySpawn.notUnderstood(System.getenv());
        if (!agent && warning != null && argv.length > 0) {
            System.err.println(argv[0] + ": " + warning);
        }
    }

    /** Whether this process serves a call for a client (not a cold run). */
    private static volatile boolean served;

    @Override
    public void warmUp() {
        StandbyWarmUp.run();
    }

    @Override
    public void run(StandbyContext context, ClientStreams streams, IntConsumer beforeExit) {
        served = true;
        streams.install();
        Console.useCallStreams();
        if (context.tty() != null) {
            SshPrompts.throughTerminal(context.tty());
        }
        Signals.beforeExit(beforeExit);
        Main.main(context.argv().toArray(String[]::new));
    }
}
