package io.rdmaflux.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rdcp --install-remote} from the unpacked release tarball to the loopback sshd (cli's
 * {@link SshFixture}), whose sessions find no rdflux on their PATH: the hint, the install into
 * the per-user cache, the next call without the flag, a tampered or partial cache left unused,
 * two installs that race, a host of another architecture, the copy's start-up archive, and the
 * removal of other versions no process uses. Each test gives the sessions a home of its own
 * (the fixture's startup file exports HOME), so nothing touches this machine's own home;
 * another architecture is a {@code uname} of the test's own on the sessions' PATH.
 */
class RemoteInstallE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final String VERSION = System.getProperty("rdflux.version", "0.1.0-SNAPSHOT");
    private static final Path TARBALL = Path.of(System.getProperty("rdflux.tarball",
            "target/rdflux-" + VERSION + "-linux-x86_64.tar.gz"));

    @TempDir
    static Path unpackedIn;
    private static Path rdcp;

    @TempDir
    Path dir;
    private Path home;
    private Path cache;

    @BeforeAll
    static void unpack() {
        assertThat(TARBALL).as("the tarball mvn package leaves").isRegularFile();
        Installed tar = Installed.run(unpackedIn, System.getenv("PATH"), "tar", "-xzf", TARBALL.toString(),
                "-C", unpackedIn.toString());
        assertThat(tar.exitCode()).as(tar.describe()).isZero();
        rdcp = unpackedIn.resolve("rdflux-" + VERSION + "/bin/rdcp");
    }

    @BeforeEach
    void remoteHome() throws IOException {
        home = Files.createDirectories(dir.resolve("remote home"));
        cache = home.resolve(".cache/rdflux");
        sessionsRun("");
    }

    /** The sessions' startup file: this test's home, then {@code more}. */
    private void sessionsRun(String more) throws IOException {
        Files.writeString(sshd.startupFile(), "unset BASH_ENV\nexport HOME='" + home + "'\n" + more);
    }

    @AfterEach
    void nothingLeft() throws Exception {
        Files.deleteIfExists(sshd.startupFile());
        assertThat(sshd.awaitNoSessions(Duration.ofSeconds(30))).as("ssh sessions left running").isEmpty();
    }

    /** rdcp from the unpacked release, with this fixture's ssh; waits for its end (bounded). */
    private Installed rdcp(String... args) {
        Installed p = start(args);
        p.exitCode();
        return p;
    }

    private Installed start(String... args) {
        List<String> all = new ArrayList<>(List.of(rdcp.toString(), "-e", sshd.rsh(), "--start-timeout", "120"));
        all.addAll(List.of(args));
        return Installed.start(dir, System.getenv("PATH"), Map.of(), all.toArray(String[]::new));
    }

    private Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    /** Whether the cache holds a whole copy of this version, as the remote end checks it. */
    private void assertWholeCopy() {
        Path copy = cache.resolve(VERSION);
        assertThat(copy.resolve("bin/rdflux")).isExecutable();
        Installed check = Installed.run(copy, System.getenv("PATH"), "sha256sum", "-c", "--status", ".rdflux-sha256");
        assertThat(check.exitCode()).as(check.describe()).isZero();
        try (Stream<Path> left = Files.list(cache)) {
            assertThat(left).as("no temporary directory left beside it").containsExactly(copy);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aHostWithoutRdfluxHintsThenInstallRemoteInstallsAndTheNextCallNeedsNoFlag() throws IOException {
        Path in = file("in.txt", "to a host without rdflux\n");
        Installed hint = rdcp(in.toString(), "h1:" + dir.resolve("first.txt"));
        assertThat(hint.exitCode()).as(hint.describe()).isEqualTo(69);
        assertThat(hint.err().lines()).as(hint.describe()).singleElement().asString()
                .startsWith("rdcp: h1: 'rdflux' not found there").contains("--install-remote");
        assertThat(cache).doesNotExist();

        Installed install = rdcp("--install-remote", in.toString(), "h1:" + dir.resolve("second.txt"));
        assertThat(install.exitCode()).as(install.describe()).isZero();
        assertThat(install.err().lines()).as(install.describe()).singleElement().asString()
                .matches("rdcp: h1: installed rdma-flux " + VERSION.replace(".", "\\.") + " in ~/\\.cache/rdflux/"
                        + VERSION.replace(".", "\\.") + " \\(\\d+ MB sent\\)");
        assertThat(dir.resolve("second.txt")).hasContent("to a host without rdflux");
        assertWholeCopy();

        Installed next = rdcp(in.toString(), "h1:" + dir.resolve("third.txt"));
        assertThat(next.exitCode()).as(next.describe()).isZero();
        assertThat(next.err()).isEmpty();
        assertThat(dir.resolve("third.txt")).hasContent("to a host without rdflux");

        // Asked again, the same build is found there and nothing is sent.
        Installed again = rdcp("--install-remote", in.toString(), "h1:" + dir.resolve("fourth.txt"));
        assertThat(again.exitCode()).as(again.describe()).isZero();
        assertThat(again.err().strip()).isEqualTo("rdcp: h1: rdma-flux " + VERSION + " is in ~/.cache/rdflux/"
                + VERSION + " already");
    }

    @Test
    void aTamperedOrPartialCopyIsNotRunAndInstallRemoteReplacesIt() throws IOException {
        Path in = file("in.txt", "tamper\n");
        Installed install = rdcp("--install-remote", in.toString(), "h1:" + dir.resolve("a.txt"));
        assertThat(install.exitCode()).as(install.describe()).isZero();
        Path jar = cache.resolve(VERSION).resolve("lib/rdma-flux.jar");

        Files.write(jar, new byte[] {0}, StandardOpenOption.APPEND);
        Installed tampered = rdcp(in.toString(), "h1:" + dir.resolve("b.txt"));
        assertThat(tampered.exitCode()).as("a changed jar is not run: " + tampered.describe()).isEqualTo(69);
        assertThat(tampered.err()).contains("not found there").contains("--install-remote");

        Installed repaired = rdcp("--install-remote", in.toString(), "h1:" + dir.resolve("c.txt"));
        assertThat(repaired.exitCode()).as(repaired.describe()).isZero();
        assertThat(repaired.err()).contains("installed rdma-flux " + VERSION);
        assertThat(dir.resolve("c.txt")).hasContent("tamper");
        assertWholeCopy();

        // A copy without its manifest is one that was never completed.
        Files.delete(cache.resolve(VERSION).resolve(".rdflux-sha256"));
        Installed partial = rdcp(in.toString(), "h1:" + dir.resolve("d.txt"));
        assertThat(partial.exitCode()).as("a copy without its manifest is not run: " + partial.describe()).isEqualTo(69);
        assertThat(dir.resolve("d.txt")).doesNotExist();
    }

    @Test
    void twoInstallsThatRaceBothEndWithAGoodCopy() throws IOException {
        Path in = file("in.txt", "race\n");
        Installed one = start("--install-remote", in.toString(), "h1:" + dir.resolve("one.txt"));
        Installed two = start("--install-remote", in.toString(), "h2:" + dir.resolve("two.txt"));
        assertThat(one.exitCode()).as(one.describe()).isZero();
        assertThat(two.exitCode()).as(two.describe()).isZero();
        assertThat(dir.resolve("one.txt")).hasContent("race");
        assertThat(dir.resolve("two.txt")).hasContent("race");
        assertWholeCopy();
    }

    @Test
    void aHostOfAnotherArchitectureIsRefusedInOneLine() throws IOException {
        Path fake = Files.createDirectories(dir.resolve("fake bin"));
        Files.writeString(fake.resolve("uname"), "#!/bin/sh\necho aarch64\n");
        Files.setPosixFilePermissions(fake.resolve("uname"), PosixFilePermissions.fromString("rwxr-xr-x"));
        sessionsRun("export PATH='" + fake + "':\"$PATH\"\n");
        Installed refused = rdcp("--install-remote", file("in.txt", "x").toString(), "h1:" + dir.resolve("x.txt"));
        assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(69);
        assertThat(refused.err().lines()).as(refused.describe()).singleElement().asString()
                .isEqualTo("rdcp: h1: --install-remote cannot run this host's release there: it is for x86_64, that "
                        + "host is aarch64; install rdma-flux for aarch64 there, or give its path with --rdflux-path");
        assertThat(cache).doesNotExist();
    }

    @Test
    void theInstalledCopyGetsItsStartUpArchiveWhichItsToolsUse() throws IOException {
        // Java 17 takes no class of the jar from the archive when the jar's path has a space in
        // it (the other tests' home has one): this home has none.
        home = Files.createDirectories(dir.resolve("remote-home"));
        cache = home.resolve(".cache/rdflux");
        sessionsRun("");
        Installed install = rdcp("--install-remote", file("in.txt", "archive\n").toString(), "h1:" + dir.resolve("a.txt"));
        assertThat(install.exitCode()).as(install.describe()).isZero();
        Path copy = cache.resolve(VERSION).toRealPath();
        assertThat(Files.readAllLines(copy.resolve("lib/rdma-flux.jsa.for"))).containsExactly(
                copy.resolve("lib/rdma-flux.jar").toString(), copy.resolve("runtime/bin/java").toRealPath().toString());
        assertThat(Installed.mainClassSource(dir, copy.resolve("bin/rdflux"))).contains("source: shared objects file");
        assertWholeCopy();
    }

    @Test
    void anInstallRemovesOtherVersionsThatNoProcessUsesAndOnlyThose() throws Exception {
        Path old = ownCopy("0.0.1", true);            // ours, idle: removed
        Path recent = ownCopy("0.0.2", false);        // ours, installed minutes ago: its agent may be starting
        Path busy = ownCopy("0.0.3", true);           // ours, a process runs from it
        Path worksIn = ownCopy("0.0.4", true);        // ours, a process works in it
        Path foreign = Files.createDirectories(cache.resolve("0.0.5"));   // no manifest: not ours
        Files.writeString(foreign.resolve("keep.txt"), "someone else's\n");
        Path link = Files.createSymbolicLink(cache.resolve("0.0.6"), old);  // a link: never ours to remove
        Path sleep = Files.copy(Path.of("/bin/sleep"), busy.resolve("bin/sleep"));
        Files.setPosixFilePermissions(sleep, PosixFilePermissions.fromString("rwxr-xr-x"));
        Process runs = new ProcessBuilder(sleep.toString(), "300").start();
        Process inside = new ProcessBuilder("/bin/sleep", "300").directory(worksIn.toFile()).start();
        try {
            Installed install = rdcp("--install-remote", file("in.txt", "tidy\n").toString(), "h1:" + dir.resolve("a.txt"));
            assertThat(install.exitCode()).as(install.describe()).isZero();
            assertThat(dir.resolve("a.txt")).hasContent("tidy");
        } finally {
            runs.destroyForcibly().waitFor();
            inside.destroyForcibly().waitFor();
        }
        assertThat(old).doesNotExist();
        assertThat(recent.resolve(".rdflux-sha256")).isRegularFile();
        assertThat(busy.resolve(".rdflux-sha256")).isRegularFile();
        assertThat(worksIn.resolve(".rdflux-sha256")).isRegularFile();
        assertThat(foreign.resolve("keep.txt")).isRegularFile();
        assertThat(link).isSymbolicLink();
        assertThat(cache.resolve(VERSION).resolve("bin/rdflux")).isExecutable();
        try (Stream<Path> left = Files.list(cache)) {
            assertThat(left.map(p -> p.getFileName().toString())).as("no temporary directory left")
                    .containsExactlyInAnyOrder(VERSION, "0.0.2", "0.0.3", "0.0.4", "0.0.5", "0.0.6");
        }
    }

    /** A cached copy of another version, as an install leaves it (a manifest), made long ago or just now. */
    private Path ownCopy(String version, boolean longAgo) throws IOException {
        Path copy = Files.createDirectories(cache.resolve(version));
        Files.createDirectories(copy.resolve("bin"));
        Files.writeString(copy.resolve("bin/rdflux"), "#!/bin/sh\n");
        Path manifest = Files.writeString(copy.resolve(".rdflux-sha256"), "0  bin/rdflux\n");
        if (longAgo) {
            Files.setLastModifiedTime(manifest, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
        }
        return copy;
    }
}
