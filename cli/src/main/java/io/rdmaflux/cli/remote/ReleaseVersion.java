package io.rdmaflux.cli.remote;

import io.rdmaflux.protocol.ProtocolVersion;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A release's version as the tools print it ({@code rdma-flux 0.1.0 (protocol 1, Java 17.0.9)},
 * the agent's hello carries the same text) and whether two of them can work together: the
 * same channel protocol and the same major.minor version. The version names the per-user
 * cache a remote host runs agents from ({@link RemoteInstall}).
 *
 * @param version  the release's version, e.g. {@code 0.1.0} or {@code 0.2.0-SNAPSHOT}
 * @param protocol the channel protocol it speaks ({@link ProtocolVersion#CURRENT} for this one)
 */
public record ReleaseVersion(String version, int protocol) {

    /** The version when the jar's manifest does not say (classes run from a build's directories). */
    static final String UNPACKAGED = "0.1.0-SNAPSHOT";
    private static final Pattern TEXT = Pattern.compile("rdma-flux (\\S+) \\(protocol (\\d{1,9})\\b.*");
    /** A version that can name a directory and travel in a shell command without quoting. */
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]{0,63}");

    /** This tool's own version, from its jar's manifest. */
    public static ReleaseVersion local() {
        String v = ReleaseVersion.class.getPackage().getImplementationVersion();
        return new ReleaseVersion(v != null ? v : UNPACKAGED, ProtocolVersion.CURRENT);
    }

    /** The version in a hello's or {@code --version}'s text; empty when the text is not of that form. */
    public static Optional<ReleaseVersion> parse(String text) {
        Matcher m = text == null ? null : TEXT.matcher(text);
        return m != null && m.matches() ? Optional.of(new ReleaseVersion(m.group(1), Integer.parseInt(m.group(2))))
                : Optional.empty();
    }

    /** Whether a directory may be named for this version ({@code ~/.cache/rdflux/VERSION}). */
    boolean nameable() {
        return SAFE.matcher(version).matches() && !version.contains("..");
    }

    /**
     * Whether an agent of {@code other} can serve this coordinator: the same channel protocol,
     * and the same major.minor version (a patch release or a snapshot of it differs only in fixes).
     */
    public boolean worksWith(ReleaseVersion other) {
        return protocol == other.protocol && majorMinor().equals(other.majorMinor());
    }

    private String majorMinor() {
        String[] parts = version.split("[.-]", 3);
        return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
    }

    /** {@code 0.1.0 (protocol 1)}, as messages name it. */
    @Override
    public String toString() {
        return version + " (protocol " + protocol + ")";
    }
}
