package io.rdmaflux.cli.remote;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * ssh's keep-alive for the coordinators' control connections: without it a peer host that
 * vanishes (powered off, cable out) leaves ssh, and the tool, waiting on a connection that TCP
 * alone gives up on only after many minutes. {@code ServerAliveInterval=15} and {@code
 * ServerAliveCountMax=4} end ssh (exit 255) about a minute after the host stops answering.
 * The user's choice wins: nothing is added when the ssh words ({@code -e}) set either option,
 * or when a config file ssh reads for the host (the words' {@code -F FILE}, else
 * {@code ~/.ssh/config} and the system's) sets it for that host ({@link SshConfig}: a Host
 * block for another host does not count, an Include is followed), since options on the
 * command line would override the file. Read from the files, not asked of {@code ssh -G}:
 * that would be one more process before every call's ssh.
 */
final class SshKeepAlive {

    static final int INTERVAL_SECONDS = 15;
    static final int COUNT_MAX = 4;
    private static final String OPTION = "serveralive";

    private SshKeepAlive() {
    }

    /** The options to add after {@code words} (the ssh command and its own options) for {@code host}, or none. */
    static List<String> options(List<String> words, String host, Path userConfig, Path systemConfig) {
        List<String> own = words.subList(1, words.size());
        Path config = userConfig;
        Path system = systemConfig;
        for (int i = 0; i < own.size(); i++) {
            String w = own.get(i);
            if (w.toLowerCase(Locale.ROOT).contains(OPTION)) {
                return List.of();
            }
            // -F FILE: ssh reads that file alone, neither the user's nor the system's.
            if (w.equals("-F") && i + 1 < own.size()) {
                config = Path.of(own.get(i + 1));
                system = null;
            } else if (w.startsWith("-F") && w.length() > 2) {
                config = Path.of(w.substring(2));
                system = null;
            }
        }
        // A relative Include in the user's file (or -F's) is under ~/.ssh, in the system's under /etc/ssh.
        Path userBase = Path.of(System.getProperty("user.home"), ".ssh");
        if (SshConfig.sets(config, userBase, host, OPTION)
                || system != null && SshConfig.sets(system, system.toAbsolutePath().getParent(), host, OPTION)) {
            return List.of();
        }
        List<String> o = new ArrayList<>();
        o.addAll(List.of("-o", "ServerAliveInterval=" + INTERVAL_SECONDS));
        o.addAll(List.of("-o", "ServerAliveCountMax=" + COUNT_MAX));
        return o;
    }

    /** The options for this user: ssh reads ~/.ssh/config of the user's passwd home (the JVM's user.home). */
    static List<String> options(List<String> words, String host) {
        return options(words, host, Path.of(System.getProperty("user.home"), ".ssh", "config"), Path.of("/etc/ssh/ssh_config"));
    }
}
