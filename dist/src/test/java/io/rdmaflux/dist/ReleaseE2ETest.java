package io.rdmaflux.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tarball as a user gets it: unpacked into a temporary directory, installed with its
 * install.sh under a temporary prefix, and its tools run from symlinks on a PATH that has no
 * java (and no JAVA_HOME), so only the bundled runtime can run them. Real processes, real files,
 * real loopback sockets; no timing is asserted.
 */
class ReleaseE2ETest {

    private static final String VERSION = System.getProperty("rdflux.version", "0.1.0-SNAPSHOT");
    private static final Path TARBALL = Path.of(System.getProperty("rdflux.tarball",
            "target/rdflux-" + VERSION + "-linux-x86_64.tar.gz"));
    private static final List<String> TOOLS = List.of("rdsend", "rdrecv", "rdcp", "rdpipe", "rdflux");
    /** What the launchers and install.sh call besides the tools: the whole of PATH in these tests. */
    private static final List<String> SYSTEM_COMMANDS = List.of("bash", "env", "readlink", "dirname", "locale",
            "getconf", "mkdir", "mktemp", "cp", "rm", "mv", "ln", "chmod", "sed", "cat");

    @TempDir
    static Path root;
    private static Path unpacked;
    private static Path prefix;
    private static Path links;
    private static Path sysbin;
    /** The installed tools first, then only the system commands above: no java. */
    private static String path;

    @BeforeAll
    static void unpackAndInstall() throws IOException {
        assertThat(TARBALL).as("the tarball mvn package leaves").isRegularFile();
        sysbin = Files.createDirectories(root.resolve("sysbin"));
        for (String c : SYSTEM_COMMANDS) {
            Files.createSymbolicLink(sysbin.resolve(c), systemCommand(c));
        }
        Installed tar = Installed.run(root, System.getenv("PATH"), "tar", "-xzf", TARBALL.toString(), "-C", root.toString());
        assertThat(tar.exitCode()).as(tar.describe()).isZero();
        unpacked = root.resolve("rdflux-" + VERSION);
        prefix = root.resolve("prefix");
        Installed install = Installed.run(root, sysbin.toString(), unpacked.resolve("install.sh").toString(),
                "--prefix", prefix.toString());
        assertThat(install.exitCode()).as(install.describe()).isZero();
        assertThat(install.err()).as("no warning (a start-up archive that could not be made, say)").isEmpty();
        // The release's launchers linked straight from where tar left them, as `ln -s /opt/rdflux/bin/* ~/bin/`.
        links = Files.createDirectories(root.resolve("links"));
        for (String t : TOOLS) {
            Files.createSymbolicLink(links.resolve(t), unpacked.resolve("bin").resolve(t));
        }
        path = prefix.resolve("bin") + File.pathSeparator + sysbin;
    }

    /** The links to system commands, removed before JUnit cleans up (it warns of each link that leads out). */
    @AfterAll
    static void removeSystemLinks() throws IOException {
        for (String c : SYSTEM_COMMANDS) {
            Files.deleteIfExists(sysbin.resolve(c));
        }
    }

    private static Path systemCommand(String name) {
        return Stream.of(System.getenv("PATH").split(File.pathSeparator)).map(d -> Path.of(d, name))
                .filter(Files::isExecutable).findFirst()
                .orElseThrow(() -> new AssertionError(name + " is not on this host's PATH"));
    }

    /** A shell line run by bash on the test PATH, as a user would type it. */
    private static Installed shell(String line) {
        return Installed.run(root, path, sysbin.resolve("bash").toString(), "-c", line);
    }

    @Test
    void theToolsRunOnAPathWithNoJava() {
        Installed java = shell("command -v java");
        assertThat(java.exitCode()).as("java must not be on the test PATH: %s", java.describe()).isNotZero();
        for (String t : TOOLS) {
            Installed which = shell("command -v " + t);
            assertThat(which.out().strip()).isEqualTo(prefix.resolve("bin").resolve(t).toString());
            Installed version = shell(t + " --version");
            assertThat(version.exitCode()).as(version.describe()).isZero();
            assertThat(version.out()).startsWith("rdma-flux " + VERSION + " (");
            assertThat(version.err()).isEmpty();
        }
    }

    /** What the launchers run besides the JVM: the warm agent's and the standby JVM's clients, ssh's askpass. */
    @Test
    void theLaunchersHelpersAreInTheReleaseAndInstalledExecutable() {
        for (String helper : List.of("rdflux-launch", "rdflux-warm-client", "rdflux-standby-client", "rdflux-askpass")) {
            assertThat(unpacked.resolve("bin").resolve(helper)).as(helper).isRegularFile().isExecutable();
            assertThat(prefix.resolve("lib/rdflux/bin").resolve(helper)).as(helper).isRegularFile().isExecutable();
        }
    }

    @Test
    void installShRecordsTheStartUpArchiveForTheInstalledJar() throws IOException {
        Path lib = prefix.resolve("lib/rdflux/lib");
        assertThat(lib.resolve("rdma-flux.jsa")).isRegularFile();
        assertThat(Files.readAllLines(lib.resolve("rdma-flux.jsa.for"))).containsExactly(
                lib.resolve("rdma-flux.jar").toRealPath().toString(),
                prefix.resolve("lib/rdflux/runtime/bin/java").toRealPath().toString());
        // -Xshare:on makes a JVM that cannot map the archive fail instead of starting without it.
        Installed on = Installed.start(root, path, Map.of("RDFLUX_JAVA_OPTS", "-Xshare:on"),
                sysbin.resolve("bash").toString(), "-c", "rdsend --version");
        assertThat(on.exitCode()).as(on.describe()).isZero();
    }

    @Test
    void aStreamCrossesLoopbackFromTheInstalledRdsendToTheUnpackedRdrecv() throws Exception {
        Path in = random(root.resolve("in.bin"), (1 << 20) + 7, 1);
        Path out = root.resolve("out.bin");
        Installed recv = Installed.start(root, links + File.pathSeparator + sysbin, Map.of(),
                links.resolve("rdrecv").toString(), "--transport", "tcp", "0", "release-key", out.toString());
        try {
            Pattern listening = Pattern.compile("listening on \\S+:(\\d+)");
            String port = await("rdrecv's listening line").atMost(Duration.ofSeconds(120))
                    .until(() -> listeningPort(listening, recv), p -> p != null);
            Installed send = shell("rdsend --transport tcp 127.0.0.1 " + port + " release-key " + in);
            assertThat(send.exitCode()).as(send.describe()).isZero();
            assertThat(recv.exitCode()).as(recv.describe()).isZero();
        } finally {
            recv.kill();
        }
        assertThat(sha256(out)).isEqualTo(sha256(in));
    }

    @Test
    void rdcpCopiesATreeToALocalDirectory() throws Exception {
        Path tree = Files.createDirectories(root.resolve("tree/sub/deeper"));
        Files.writeString(tree.getParent().getParent().resolve("a.txt"), "hello, release\n");
        random(tree.getParent().resolve("b.bin"), 300_000, 2);
        Files.createFile(tree.resolve("empty"));
        Path dst = Files.createDirectories(root.resolve("copy"));
        Installed cp = shell("rdcp -r " + root.resolve("tree") + " " + dst);
        assertThat(cp.exitCode()).as(cp.describe()).isZero();
        Path copy = dst.resolve("tree");
        assertThat(Files.readString(copy.resolve("a.txt"))).isEqualTo("hello, release\n");
        assertThat(sha256(copy.resolve("sub/b.bin"))).isEqualTo(sha256(root.resolve("tree/sub/b.bin")));
        assertThat(copy.resolve("sub/deeper/empty")).isEmptyFile();
    }

    @Test
    void theManPagesRender() throws IOException {
        Path man = prefix.resolve("share/man/man1");
        for (String t : TOOLS) {
            Path page = man.resolve(t + ".1");
            assertThat(Files.readString(page)).startsWith(".TH \"" + t.toUpperCase() + "\" 1 ");
            if (Files.isExecutable(Path.of("/usr/bin/man"))) {
                Installed shown = Installed.start(root, System.getenv("PATH"), Map.of("MANWIDTH", "80", "MANPAGER", "cat"),
                        "/usr/bin/man", "-l", page.toString());
                assertThat(shown.exitCode()).as(shown.describe()).isZero();
                assertThat(shown.err()).as("man's and groff's complaints").isEmpty();
                assertThat(shown.out()).contains("NAME", "SYNOPSIS", "OPTIONS", "EXIT STATUS")
                        .containsPattern("NAME\\s+" + t + "\\s+-\\s+\\S").contains("--help").doesNotContain("\\-", "\\f");
            }
        }
    }

    @Test
    void bashCompletionCompletesTheToolsOptions() {
        Path completion = prefix.resolve("share/bash-completion/completions/rdsend");
        Installed done = shell("source " + completion + " && f=$(complete -p rdsend | sed -E 's/.*-F ([^ ]+).*/\\1/')"
                + " && COMP_WORDS=(rdsend --key-f) COMP_CWORD=1 COMP_LINE='rdsend --key-f' COMP_POINT=14 && $f"
                + " && printf '%s\\n' \"${COMPREPLY[@]}\"");
        assertThat(done.exitCode()).as(done.describe()).isZero();
        assertThat(done.out().lines()).contains("--key-file");
    }

    @Test
    void installingAgainReplacesTheInstallationAndUninstallRemovesIt() throws IOException {
        Path other = root.resolve("other-prefix");
        for (int i = 0; i < 2; i++) {
            Installed install = Installed.run(root, sysbin.toString(), unpacked.resolve("install.sh").toString(),
                    "--prefix=" + other);
            assertThat(install.exitCode()).as(install.describe()).isZero();
            assertThat(install.out()).contains("installed rdma-flux in " + other.toRealPath().resolve("lib/rdflux"))
                    .contains("to uninstall: ");
        }
        assertThat(Files.readSymbolicLink(other.resolve("bin/rdcp"))).isEqualTo(other.toRealPath().resolve("lib/rdflux/bin/rdcp"));
        try (Stream<Path> lib = Files.list(other.resolve("lib"))) {
            assertThat(lib).as("nothing left of the copy it swapped in").containsExactly(other.resolve("lib/rdflux"));
        }
        Installed uninstall = Installed.run(root, sysbin.toString(), other.resolve("lib/rdflux/install.sh").toString(),
                "--uninstall", "--prefix", other.toString());
        assertThat(uninstall.exitCode()).as(uninstall.describe()).isZero();
        assertThat(other.resolve("lib/rdflux")).doesNotExist();
        for (String t : TOOLS) {
            assertThat(other.resolve("bin").resolve(t)).doesNotExist();
            assertThat(other.resolve("share/man/man1").resolve(t + ".1")).doesNotExist();
            assertThat(other.resolve("share/bash-completion/completions").resolve(t)).doesNotExist();
        }
    }

    @Test
    void installShNeverReplacesAFileItDidNotMake() throws IOException {
        Path other = Files.createDirectories(root.resolve("taken/bin"));
        Files.writeString(other.resolve("rdcp"), "someone else's rdcp\n");
        Installed install = Installed.run(root, sysbin.toString(), unpacked.resolve("install.sh").toString(),
                "--prefix", other.getParent().toString());
        assertThat(install.exitCode()).as(install.describe()).isEqualTo(73);
        assertThat(install.err().lines()).singleElement().asString().contains(other.resolve("rdcp").toString())
                .contains("not a link");
        assertThat(Files.readString(other.resolve("rdcp"))).isEqualTo("someone else's rdcp\n");
        assertThat(other.getParent().resolve("lib")).doesNotExist();
    }

    @Test
    void installShExplainsItselfAndRefusesWhatItDoesNotKnow() {
        Installed help = Installed.run(root, sysbin.toString(), unpacked.resolve("install.sh").toString(), "--help");
        assertThat(help.exitCode()).as(help.describe()).isZero();
        assertThat(help.out()).contains("--prefix DIR", "/usr/local", "--uninstall");
        Installed bad = Installed.run(root, sysbin.toString(), unpacked.resolve("install.sh").toString(), "--prefx", "x");
        assertThat(bad.exitCode()).isEqualTo(64);
        assertThat(bad.err().lines()).singleElement().asString().contains("'--prefx'").contains("--help");
    }

    /** The port of rdrecv's "listening on" line; null while it has yet to say it; a failure once it ended without. */
    private static String listeningPort(Pattern listening, Installed recv) {
        boolean ended = !recv.isAlive();
        Matcher m = listening.matcher(recv.err());
        if (m.find()) {
            return m.group(1);
        }
        if (ended) {
            throw new AssertionError("rdrecv ended before listening: " + recv.describe());
        }
        return null;
    }

    private static Path random(Path file, int size, long seed) throws IOException {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return Files.write(file, bytes);
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
