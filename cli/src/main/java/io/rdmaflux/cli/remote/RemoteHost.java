package io.rdmaflux.cli.remote;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A host reached over ssh, written {@code [user@]host} as for ssh, scp and rsync; an IPv6
 * address goes in brackets ({@code [fe80::1]}). The name is what ssh is given, so an alias from
 * the ssh configuration works.
 *
 * @param user the login name, or null for ssh's default
 * @param host the host name, alias or address (without brackets)
 */
public record RemoteHost(String user, String host) {

    // A host: a name or IPv4 address, or an IPv6 address in brackets. No spaces, no shell or ssh
    // syntax, and never a leading dash, which ssh would read as an option. A user name may hold
    // '@' (ssh splits at the last one).
    private static final String USER = "([^\\s/:\\[\\]'\"\\\\;|&$`<>()*?!{}]+)";
    private static final String NAME = "[A-Za-z0-9_][A-Za-z0-9_.-]*|\\[[0-9A-Fa-f:.%A-Za-z_-]+\\]";
    private static final Pattern HOST = Pattern.compile("(?:" + USER + "@)?(" + NAME + ")");
    private static final Pattern LOCATION = Pattern.compile("(?:" + USER + "@)?(" + NAME + "):(.*)", Pattern.DOTALL);

    public RemoteHost {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty() || host.startsWith("-")) {
            throw new IllegalArgumentException("bad host name '" + host + "'" + dash(host));
        }
        if (user != null && (user.isEmpty() || user.startsWith("-"))) {
            throw new IllegalArgumentException("bad user name '" + user + "'" + dash(user));
        }
    }

    private static String dash(String name) {
        return name.startsWith("-") ? " (it starts with '-', which ssh would take as an option)" : "";
    }

    /**
     * Parses {@code [user@]host}.
     *
     * @throws IllegalArgumentException with a one-line message when it is not a host
     */
    public static RemoteHost parse(String text) {
        Matcher m = HOST.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a host: '" + text + "' (expected [user@]host)");
        }
        return of(m.group(1), m.group(2));
    }

    private static RemoteHost of(String user, String host) {
        return new RemoteHost(user, host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
    }

    /**
     * A command-line argument that may name a remote place, {@code [user@]host:rest} (a path for
     * rdcp, a command for rdpipe), or a local one. As with rsync, a colon makes it remote only
     * when what precedes it is a host: {@code ./a:b} and {@code sort -t:} are local.
     *
     * @param host where, or null for this host
     * @param rest the path or command (the whole argument when local)
     */
    public record Location(RemoteHost host, String rest) {

        /** Whether it names this host. */
        public boolean isLocal() {
            return host == null;
        }

        @Override
        public String toString() {
            return host == null ? rest : host + ":" + rest;
        }
    }

    /** Splits an argument into its host (if any) and the rest; see {@link Location}. */
    public static Location location(String argument) {
        Matcher m = LOCATION.matcher(argument);
        if (!m.matches()) {
            return new Location(null, argument);
        }
        return new Location(of(m.group(1), m.group(2)), m.group(3));
    }

    /** The destination argument for ssh: {@code user@host}, or {@code host}. */
    public String destination() {
        return user == null ? host : user + "@" + host;
    }

    @Override
    public String toString() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return user == null ? h : user + "@" + h;
    }
}
