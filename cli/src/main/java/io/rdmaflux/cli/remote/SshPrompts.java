package io.rdmaflux.cli.remote;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where ssh asks the user for a password or a host key's confirmation. A cold run leaves that to
 * ssh. A call served by a standby JVM has no controlling terminal of its own, so when its client
 * has one, the ssh processes it starts ask through {@code bin/rdflux-askpass}, which prompts on
 * that terminal ({@code SSH_ASKPASS_REQUIRE=force}).
 */
public final class SshPrompts {

    private static volatile Map<String, String> environment = Map.of();

    private SshPrompts() {
    }

    /**
     * From now on ssh asks through the release's {@code bin/rdflux-askpass} on terminal {@code
     * tty}; nothing changes when that script is not found beside this jar.
     */
    public static void throughTerminal(String tty) {
        throughTerminal(askpass(RemoteInstall.ownJar()), tty);
    }

    /** ssh asks through {@code askpass} on {@code tty}; nothing changes when either is null. */
    static void throughTerminal(Path askpass, String tty) {
        if (askpass != null && tty != null) {
            environment = Map.of("SSH_ASKPASS", askpass.toString(), "SSH_ASKPASS_REQUIRE", "force",
                    "RDFLUX_ASKPASS_TTY", tty);
        }
    }

    /** As in a cold run: ssh left to itself (tests). */
    static void reset() {
        environment = Map.of();
    }

    /** {@code bin/rdflux-askpass} of the release ({@code ROOT/lib/JAR}) or checkout ({@code ROOT/cli/target/JAR}) of {@code jar}. */
    static Path askpass(Path jar) {
        if (jar == null) {
            return null;
        }
        Path dir = jar.toAbsolutePath().getParent();
        for (int up = 0; up < 2 && dir != null; up++) {
            dir = dir.getParent();
            Path p = dir == null ? null : dir.resolve("bin/rdflux-askpass");
            if (p != null && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** What an ssh process's environment gets on top of this process's (nothing in a cold run). */
    static Map<String, String> environment() {
        return environment;
    }

    /** {@code pb}, its environment given {@link #environment()}. */
    static ProcessBuilder apply(ProcessBuilder pb) {
        Map<String, String> add = environment;
        if (!add.isEmpty()) {
            pb.environment().putAll(add);
        }
        return pb;
    }
}
