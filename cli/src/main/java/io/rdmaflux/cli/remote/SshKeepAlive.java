package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * or when a config file ssh reads (the words' {@code -F FILE}, else {@code ~/.ssh/config} and
 * the system's) names it anywhere (any Host block; an Include is not followed), since options
 * on the command line would override the file.
 */
final class SshKeepAlive {

    static final int INTERVAL_SECONDS = 15;
    static final int COUNT_MAX = 4;
    /** The most of a config file read: ssh's own are small; a larger one is not looked through. */
    private static final int MAX_CONFIG = 1 << 20;

    private SshKeepAlive() {
    }

    /** The options to add after {@code words} (the ssh command and its own options), or none. */
    static List<String> options(List<String> words, Path userConfig, Path systemConfig) {
        List<String> own = words.subList(1, words.size());
        Path config = userConfig;
        Path system = systemConfig;
        for (int i = 0; i < own.size(); i++) {
            String w = own.get(i);
            if (w.toLowerCase(Locale.ROOT).contains("serveralive")) {
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
        if (names(config) || names(system)) {
            return List.of();
        }
        List<String> o = new ArrayList<>();
        o.addAll(List.of("-o", "ServerAliveInterval=" + INTERVAL_SECONDS));
        o.addAll(List.of("-o", "ServerAliveCountMax=" + COUNT_MAX));
        return o;
    }

    /** The options for this user: ssh reads ~/.ssh/config of the user's passwd home (the JVM's user.home). */
    static List<String> options(List<String> words) {
        return options(words, Path.of(System.getProperty("user.home"), ".ssh", "config"), Path.of("/etc/ssh/ssh_config"));
    }

    /** Whether a non-comment line of {@code config} sets a ServerAlive option; false when it cannot be read. */
    private static boolean names(Path config) {
        if (config == null || !Files.isRegularFile(config)) {
            return false;
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(config)) {
            bytes = in.readNBytes(MAX_CONFIG);
        } catch (IOException | SecurityException e) {
            return false;
        }
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            String l = line.strip().toLowerCase(Locale.ROOT);
            if (!l.startsWith("#") && l.startsWith("serveralive")) {
                return true;
            }
        }
        return false;
    }
}
