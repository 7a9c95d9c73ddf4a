package io.rdmaflux.cli.remote;

import io.rdmaflux.cli.remote.RemoteException.Kind;
import io.rdmaflux.connector.process.ProcessGroup;
import io.rdmaflux.text.RemoteText;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * rdflux in a per-user cache on remote hosts, {@value #CACHE}/VERSION: the remote command that
 * runs the agent from there when the copy there is whole (before rdflux on the remote PATH), and
 * {@code --install-remote}, which puts this host's release there over the same remote shell.
 *
 * <p>The copy is a tar of the release (less its start-up archive, made for this host's paths),
 * gzipped here, its SHA-256 checked there; it is unpacked into a temporary directory beside the
 * cache and renamed into place only once whole, so two calls that race both end with a good
 * copy. A manifest of the launchers' and the jar's SHA-256 ({@value #MANIFEST}) is written last:
 * a copy without it, or whose files no longer match it, is never run.
 */
public final class RemoteInstall {

    /** Where on the remote host the releases are kept, one directory per version. */
    public static final String CACHE = "~/.cache/rdflux";
    /** The file in a cached release that lists its launchers' and jar's SHA-256, written last. */
    static final String MANIFEST = ".rdflux-sha256";
    /** How long one installation may take, from running ssh to the remote end's last word. */
    static final Duration TIMEOUT = Duration.ofMinutes(10);
    /** How recent an install of another version must be for tidy to leave it (its agent may be starting). */
    static final Duration KEEP_NEW = Duration.ofMinutes(10);
    /** The remote script's status when the host is of another architecture. */
    private static final int OTHER_ARCH = 90;

    /** Whether the copy in $d is whole: run in a subshell, so that the session's directory stays the home. */
    private static final String WHOLE = "(cd \"$d\" && sha256sum -c --status " + MANIFEST + ") >/dev/null 2>&1";

    /**
     * The agent from the cache when whole, else rdflux on PATH; $1 is the version, the words
     * after it the agent's arguments ($0, rdflux, names the shell in its messages). One line for sh, in single quotes: no login shell's syntax matters.
     */
    private static final String RUN = "d=\"$HOME/.cache/rdflux/$1\"; shift; if " + WHOLE
            + "; then exec \"$d/bin/rdflux\" \"$@\"; fi; exec rdflux \"$@\"";

    /**
     * After a good install, as a shell function {@code tidy}: the start-up archive for the copy
     * where it now lies (its lib/make-start-archive; Java 17's archive is valid for one jar path
     * only, so it cannot be sent), then the other versions in the cache removed, those that no
     * process of this user runs from, holds open or works in (/proc; nothing is removed without
     * it). Only our own directories: a plain name of the cache with a manifest, never a link,
     * a temporary directory (a dot name: another install at work) or anything else; and not one
     * installed in the last {@link #KEEP_NEW}, whose caller may not have started its agent yet.
     */
    private static final String TIDY = " tidy() { \"$d/lib/make-start-archive\" >/dev/null 2>&1;"
            + " [ -d /proc/self/fd ] || return 0; r=$(cd \"$base\" && pwd -P) || return 0;"
            + " for o in \"$r\"/*; do n=${o##*/};"
            + " case \"$n\" in \"$v\"|*[!A-Za-z0-9._+-]*) continue;; esac;"
            + " [ -d \"$o\" ] && [ ! -L \"$o\" ] && [ -f \"$o/" + MANIFEST + "\" ] || continue;"
            + " [ -z \"$(find \"$o/" + MANIFEST + "\" -mmin -" + KEEP_NEW.toMinutes() + " 2>/dev/null)\" ] || continue;"
            + " if find /proc/[0-9]*/exe /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth 1"
            + " \\( -lname \"$o\" -o -lname \"$o/*\" \\) 2>/dev/null | grep -q .; then continue; fi;"
            + " g=$(mktemp -d \"$r/.old.XXXXXX\") && mv -T \"$o\" \"$g/$n\" 2>/dev/null; rm -rf \"$g\"; done; };";

    /**
     * Installs the release on stdin ($1 version, $2 its SHA-256, $3 the jar's, $4 the
     * architecture). Prints "kept" when that very build is there already (stdin unread), or
     * "installed"; exits 90 for another architecture. Unpacked beside the cache and renamed in
     * whole; a broken copy or another build of the version is set aside and removed. Either
     * way {@link #TIDY} follows.
     */
    private static final String INSTALL = "v=$1; sum=$2; jar=$3; arch=$4; m=$(uname -m);"
            + " if [ \"$m\" != \"$arch\" ]; then echo \"this host is $m\" >&2; exit " + OTHER_ARCH + "; fi;"
            + " base=\"$HOME/.cache/rdflux\"; d=\"$base/$v\";" + TIDY
            + " same() { " + WHOLE + " && grep -q \"^$jar  lib/rdma-flux.jar\\$\" \"$d/" + MANIFEST + "\"; };"
            + " if same; then tidy; echo kept; exit 0; fi;"
            + " mkdir -p \"$base\" && t=$(mktemp -d \"$base/.$v.XXXXXX\") || exit 73;"
            + " clean() { rm -rf \"$t\"; }; trap clean EXIT; trap \"exit 75\" HUP INT TERM;"
            + " cat > \"$t/release.tar.gz\" || exit 74;"
            + " echo \"$sum  $t/release.tar.gz\" | sha256sum -c --status"
            + " || { echo \"the release arrived damaged (its SHA-256 differs)\" >&2; exit 74; };"
            + " mkdir \"$t/new\" && tar -xzf \"$t/release.tar.gz\" --no-same-owner -C \"$t/new\" || exit 74;"
            + " (cd \"$t/new\" && sha256sum bin/* lib/rdma-flux.jar > " + MANIFEST + ".part && mv "
            + MANIFEST + ".part " + MANIFEST + ") || exit 74;"
            + " i=0; while ! mv -T \"$t/new\" \"$d\" 2>/dev/null; do"
            + " if same; then tidy; echo kept; exit 0; fi; i=$((i+1));"
            + " [ $i -lt 5 ] || { echo \"cannot rename the release into $d\" >&2; exit 73; };"
            + " mv -T \"$d\" \"$t/old.$i\" 2>/dev/null; done; tidy; echo installed";

    /** Destinations this process installed on already (once is enough for all its agents). */
    private static final Set<String> done = ConcurrentHashMap.newKeySet();
    private static final Map<String, Object> locks = new ConcurrentHashMap<>();

    private final ReleaseVersion version;
    private final Path root;

    private RemoteInstall(ReleaseVersion version, Path root) {
        this.version = version;
        this.root = root;
    }

    /**
     * Runs agents from the cache of {@code version} where it is whole, installing nothing;
     * null when the version cannot name a directory (then rdflux on PATH, as without a cache).
     */
    public static RemoteInstall lookup(ReleaseVersion version) {
        return version.nameable() ? new RemoteInstall(version, null) : null;
    }

    /**
     * Installs the release at {@code root} (see {@link #releaseRoot}) on each host before its
     * first agent starts, and runs agents from there.
     *
     * @throws IllegalArgumentException when the version cannot name a directory
     */
    public static RemoteInstall from(ReleaseVersion version, Path root) {
        if (!version.nameable()) {
            throw new IllegalArgumentException("--install-remote cannot name a directory for version '"
                    + version.version() + "'");
        }
        return new RemoteInstall(version, root);
    }

    /**
     * The root of the release whose jar is {@code jar} ({@code ROOT/lib/rdma-flux.jar}, with
     * {@code ROOT/bin} and {@code ROOT/runtime}), as tar unpacked it or install.sh copied it.
     *
     * @throws IllegalArgumentException when the jar is not in a release; the message says what it is
     */
    public static Path releaseRoot(Path jar) {
        Path real;
        try {
            real = jar.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException("--install-remote cannot find this host's release: " + jar
                    + " (" + e.getMessage() + ")");
        }
        Path dir = real.getParent();
        Path root = dir == null ? null : dir.getParent();
        if (root != null && dir.getFileName().toString().equals("lib")
                && Files.isExecutable(root.resolve("bin/rdflux-launch")) && Files.isExecutable(root.resolve("runtime/bin/java"))) {
            return root;
        }
        String what = dir != null && dir.getFileName().toString().equals("target")
                ? "this rdflux runs from a build checkout (" + real + ")"
                : "this rdflux (" + real + ") is not in a release (no bin/ and runtime/ beside its lib/)";
        throw new IllegalArgumentException("--install-remote copies this host's release, but " + what
                + ": build the release (dist/target/rdflux-VERSION-linux-x86_64.tar.gz), unpack or install it, "
                + "and run its tools");
    }

    /** The jar this class was loaded from; null when it was not loaded from a file. */
    public static Path ownJar() {
        try {
            var source = RemoteInstall.class.getProtectionDomain().getCodeSource();
            return source == null ? null : Path.of(source.getLocation().toURI());
        } catch (java.net.URISyntaxException | IllegalArgumentException | SecurityException e) {
            return null;
        }
    }

    /** The remote command line that runs the agent from the cache, else from PATH; its options may follow. */
    String agentCommand() {
        return "sh -c " + ShellWords.quote(RUN) + " rdflux " + version.version() + " agent";
    }

    /** Whether this installs before an agent starts (not only looks). */
    boolean installs() {
        return root != null;
    }

    /**
     * Installs this release on {@code host} unless this process did already; says on the
     * shell's log what it did. Blocks: the copy goes out before the agent's start timeout begins.
     *
     * @throws RemoteException when it could not; one line naming the host and what to do
     */
    void ensure(RemoteShell shell, RemoteHost host) {
        if (root == null) {
            return;
        }
        String key = String.join("\0", shell.command(host, ""));
        synchronized (locks.computeIfAbsent(key, k -> new Object())) {
            if (!done.contains(key)) {
                install(shell, host);
                done.add(key);
            }
        }
    }

    private void install(RemoteShell shell, RemoteHost host) {
        Path work = null;
        try {
            work = Files.createTempDirectory("rdflux-install");
            Path tarball = work.resolve("release.tar.gz");
            String sum = pack(tarball);
            String remote = "sh -c " + ShellWords.quote(INSTALL) + " rdflux-install " + version.version() + " " + sum
                    + " " + sha256(root.resolve("lib/rdma-flux.jar")) + " " + arch();
            List<String> argv = ProcessGroup.command(shell.command(host, remote));
            Process p = SshPrompts.apply(new ProcessBuilder(argv)).redirectInput(tarball.toFile())
                    .redirectOutput(work.resolve("out").toFile()).redirectError(work.resolve("err").toFile()).start();
            ProcessGroup group = ProcessGroup.of(p, argv);
            if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                group.kill();
                throw new RemoteException(Kind.TOOL_FAILED, host, "installing rdflux there took longer than "
                        + TIMEOUT.toMinutes() + " min; try again, or install it there by hand");
            }
            List<String> said = lines(work.resolve("err"));
            String outcome = Files.readString(work.resolve("out"), StandardCharsets.UTF_8).strip();
            int exit = p.exitValue();
            if (exit == 0 && (outcome.endsWith("installed") || outcome.endsWith("kept"))) {
                String where = CACHE + "/" + version.version();
                shell.log().accept(host, outcome.endsWith("kept")
                        ? "rdma-flux " + version.version() + " is in " + where + " already"
                        : "installed rdma-flux " + version.version() + " in " + where + " ("
                                + (Files.size(tarball) + (1 << 19)) / (1 << 20) + " MB sent)");
                return;
            }
            throw failed(shell, host, exit, said);
        } catch (IOException | UncheckedIOException e) {
            throw new RemoteException(Kind.TOOL_FAILED, host, "cannot install rdflux there: "
                    + RemoteText.sanitize(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemoteException(Kind.LOST, host, "interrupted while installing rdflux there");
        } finally {
            if (work != null) {
                DirectoryTree.removeAll(work);   // a temporary directory: the system's cleaning takes what is left
            }
        }
    }

    private RemoteException failed(RemoteShell shell, RemoteHost host, int exit, List<String> said) {
        if (exit == OTHER_ARCH && !said.isEmpty() && said.get(said.size() - 1).startsWith("this host is ")) {
            String theirs = said.get(said.size() - 1).substring("this host is ".length());
            return new RemoteException(Kind.TOOL_MISSING, host, "--install-remote cannot run this host's release "
                    + "there: it is for " + arch() + ", that host is " + theirs + "; install rdma-flux for "
                    + theirs + " there, or give its path with --rdflux-path");
        }
        if (exit == 255 && shell.isSsh()) {
            return AgentFailures.classify(host, exit, said, shell);   // could not connect or log in
        }
        return new RemoteException(Kind.TOOL_FAILED, host, "installing rdflux in " + CACHE + " there failed (exit "
                + exit + (said.isEmpty() ? "" : ": " + said.get(said.size() - 1)) + ")");
    }

    /** Packs the release into {@code tarball} (gzip, fast level) and gives its SHA-256. */
    private String pack(Path tarball) throws IOException, InterruptedException {
        // The start-up archive is made for this host's paths: the remote launcher goes without it.
        List<String> tar = List.of("tar", "-cf", "-", "-C", root.toString(), "--exclude=rdma-flux.jsa",
                "--exclude=rdma-flux.jsa.for", ".");
        Path err = tarball.resolveSibling("tar.err");
        Process p = new ProcessBuilder(tar).redirectError(err.toFile()).start();
        MessageDigest digest = sha256();
        try (InputStream in = p.getInputStream();
             OutputStream out = new GZIPOutputStream(new DigestOutputStream(Files.newOutputStream(tarball), digest), 1 << 16) {
                 {
                     def.setLevel(Deflater.BEST_SPEED);
                 }
             }) {
            in.transferTo(out);
        }
        if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException("tar did not finish packing " + root);
        }
        if (p.exitValue() != 0) {
            List<String> said = lines(err);
            throw new IOException("tar could not pack " + root + (said.isEmpty() ? "" : ": " + said.get(said.size() - 1)));
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** The architecture this release's runtime is for, as uname -m names it. */
    static String arch() {
        String a = System.getProperty("os.arch");
        return a.equals("amd64") ? "x86_64" : a;
    }

    private static String sha256(Path file) throws IOException {
        MessageDigest digest = sha256();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                digest.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /** The non-blank lines of a small file, sanitized. */
    private static List<String> lines(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank())
                .map(RemoteText::sanitize).toList();
    }
}
