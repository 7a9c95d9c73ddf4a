package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tools load as they start: only what the job needs (docs/benchmarks.md, "Start-up").
 * Checked on the classes real processes load through the launchers (the JVM's class+load log),
 * never on time.
 */
class StartupE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final ProcessBuilder.Redirect PIPE = ProcessBuilder.Redirect.PIPE;

    @TempDir
    Path dir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir);

    /** Runs bin/TOOL ARGS with the JVM logging each class it loads to {@code log}. */
    private Tool start(String tool, Path log, String... args) {
        return Tool.start(dir, tool, PIPE, PIPE, Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir
                + " -Xlog:class+load=info:file=" + log + ":none"), args);
    }

    /** The names of the classes in a class+load log, one per line ("NAME source: ..."). */
    private static List<String> classes(Path log) throws IOException {
        List<String> names = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            int space = line.indexOf(' ');
            names.add(space < 0 ? line : line.substring(0, space));
        }
        return names;
    }

    /** A 1-byte rdsend -> rdrecv over TCP with these extra flags for both; the classes each loaded. */
    private List<List<String>> transfer(String... flags) throws IOException {
        Path in = Files.write(dir.resolve("in"), new byte[] {42});
        Path out = dir.resolve("out");
        Path recvLog = dir.resolve("recv.classes");
        Path sendLog = dir.resolve("send.classes");
        List<String> recvArgs = new ArrayList<>(List.of("--transport", "tcp", "--bind", "127.0.0.1"));
        List<String> sendArgs = new ArrayList<>(List.of("--transport", "tcp"));
        sendArgs.addAll(List.of(flags));
        recvArgs.addAll(List.of("0", "k", out.toString()));
        Tool r = start("rdrecv", recvLog, recvArgs.toArray(String[]::new));
        sendArgs.addAll(List.of("127.0.0.1", Integer.toString(r.listeningPort()), "k", in.toString()));
        Tool s = start("rdsend", sendLog, sendArgs.toArray(String[]::new));
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("rdrecv: %s", r.err()).isZero();
        assertThat(Files.readAllBytes(out)).containsExactly(42);
        return List.of(classes(sendLog), classes(recvLog));
    }

    @Test
    void aPlainTransferOverTcpLoadsNeitherTheRdmaBindingNorACodecLibrary() throws IOException {
        for (List<String> loaded : transfer()) {
            assertThat(loaded).as("classes loaded").contains("io.rdmaflux.transport.tcp.TcpTransport")
                    .noneMatch(c -> c.startsWith("com.ibm.disni."))
                    .doesNotContain("io.rdmaflux.transport.rdma.RdmaTransport")
                    .noneMatch(c -> c.startsWith("com.github.luben.zstd."))
                    .doesNotContain("io.rdmaflux.codec.ZstdStage", "io.rdmaflux.codec.AesGcmStage")
                    .noneMatch(c -> c.startsWith("org.apache.commons.crypto."));
        }
    }

    /** The other side of the test above: the class names it looks for are the ones a codec loads. */
    @Test
    void zstdAndEncryptLoadTheirLibraries() throws IOException {
        for (List<String> loaded : transfer("--zstd", "--encrypt")) {
            assertThat(loaded).as("classes loaded").anyMatch(c -> c.startsWith("com.github.luben.zstd.util.Native"))
                    .anyMatch(c -> c.startsWith("org.apache.commons.crypto."));
        }
    }

    @Test
    void rdfluxVersionBuildsNoSubcommand() throws IOException {
        Path log = dir.resolve("version.classes");
        Tool t = start("rdflux", log, "--version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(new String(t.process.getInputStream().readAllBytes())).startsWith("rdma-flux ");
        assertThat(classes(log)).contains("io.rdmaflux.cli.Main$RdfluxCommand")
                .doesNotContain("io.rdmaflux.cli.AgentCommand", "io.rdmaflux.cli.RunCommand",
                        "io.rdmaflux.cli.DoctorCommand", "io.rdmaflux.cli.SelftestCommand", "io.rdmaflux.cli.PluginsCommand");
    }

    @Test
    void anRdfluxSubcommandBuildsOnlyItself() throws IOException {
        Path log = dir.resolve("plugins.classes");
        Tool t = start("rdflux", log, "plugins", "--help");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(classes(log)).contains("io.rdmaflux.cli.PluginsCommand")
                .doesNotContain("io.rdmaflux.cli.AgentCommand", "io.rdmaflux.cli.RunCommand",
                        "io.rdmaflux.cli.DoctorCommand", "io.rdmaflux.cli.SelftestCommand");
    }

    /**
     * rdsend and rdrecv run C1 only, as rdcp does, where the AES-GCM stage runs on OpenSSL
     * (bin/rdflux-launch): the JVM's final flags, which it prints on stderr.
     */
    @Test
    void rdsendAndRdrecvRunTheC1CompilerOnlyWhereOpenSslIsInstalled() {
        assumeTrue(Files.exists(Path.of("/lib/x86_64-linux-gnu/libcrypto.so.3"))
                || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libcrypto.so.3")), "no libcrypto.so.3 here");
        for (String tool : List.of("rdsend", "rdrecv")) {
            Tool t = Tool.start(dir, tool, PIPE, PIPE, Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir
                    + " -XX:+PrintFlagsFinal"), "--version");
            assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
            assertThat(t.err().lines()).as(tool).anyMatch(l -> l.matches("\\s*intx TieredStopAtLevel\\s+= 1\\s.*"));
        }
    }

    /**
     * The launchers start the JVM without running another program where they need none (each
     * fork costs a start 10-40 ms on a busy host): no readlink or dirname for a launcher that
     * is not a link, no locale for the C.UTF-8 locale, no getconf for the number of CPUs. So a
     * PATH with bash alone does: and the direct-memory limit still follows the CPUs online, as
     * getconf counts them (128 MiB + 1 MiB frames x (3 x 16 slots + 8 per core + 8), at least 192 MiB).
     */
    @Test
    void theLaunchersNeedNoOtherProgramToStartTheJvm() throws IOException, InterruptedException {
        Process getconf = new ProcessBuilder("getconf", "_NPROCESSORS_ONLN").start();
        int cores = Integer.parseInt(new String(getconf.getInputStream().readAllBytes()).strip());
        assertThat(getconf.waitFor()).isZero();
        Path onlyBash = Files.createDirectory(dir.resolve("only-bash"));
        Files.createSymbolicLink(onlyBash.resolve("bash"), Path.of("/bin/bash").toRealPath());
        for (String tool : List.of("rdsend", "rdrecv", "rdcp", "rdpipe", "rdflux")) {
            Tool t = Tool.start(dir, tool, PIPE, PIPE, Map.of("PATH", onlyBash.toString(), "LC_ALL", "C.UTF-8",
                    "JAVA_HOME", System.getProperty("java.home"),
                    "RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir + " -XX:+PrintFlagsFinal"), "--version");
            assertThat(t.exitCode(LIMIT)).as("%s: %s", tool, t.err()).isZero();
            assertThat(new String(t.process.getInputStream().readAllBytes())).startsWith("rdma-flux ");
            long direct = Math.max(192L << 20, (128L << 20) + (1L << 20) * (3 * 16 + 8 * cores + 8));
            assertThat(t.err().lines()).as(tool).anyMatch(l -> l.matches("\\s*\\S+ MaxDirectMemorySize\\s+= "
                    + direct + "\\s.*"));
        }
    }

    /**
     * Without JAVA_HOME, java comes from the PATH, usually through links (/usr/bin/java to
     * /etc/alternatives to the JDK's): the launcher finds it, and knows it for the java that
     * recorded the start-up archive, without running another program (no subshell for
     * 'command -v', no readlink; each fork costs a tiny call 10-40 ms on a busy host). The PATH
     * holds bash, that link and a readlink that leaves a mark when it runs: the JVM gets the
     * archive, and readlink never ran (before, it ran twice).
     */
    @Test
    void javaFoundOnThePathThroughLinksGetsTheStartUpArchiveWithoutAnotherProgram() throws IOException {
        Path jsa = Tool.HOME.resolve("cli/target/rdma-flux.jsa");
        assumeTrue(Files.isRegularFile(jsa), "the build recorded no start-up archive");
        Path onPath = Files.createDirectory(dir.resolve("bash-and-java"));
        Files.createSymbolicLink(onPath.resolve("bash"), Path.of("/bin/bash").toRealPath());
        // Two links, as the alternatives system makes them.
        Path alternative = Files.createSymbolicLink(dir.resolve("alternatives-java"),
                Path.of(System.getProperty("java.home"), "bin", "java"));
        Files.createSymbolicLink(onPath.resolve("java"), alternative);
        Path ran = dir.resolve("readlink-ran");
        Path readlink = Files.writeString(onPath.resolve("readlink"), "#!/bin/bash\n: > " + ran
                + "\nexec /usr/bin/readlink \"$@\"\n");
        Files.setPosixFilePermissions(readlink, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Tool t = Tool.start(dir, "rdflux", PIPE, PIPE, Map.of("PATH", onPath.toString(), "JAVA_HOME", "",
                "LC_ALL", "C.UTF-8", "RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir + " -XX:+PrintFlagsFinal"),
                "--version");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(ran).as("readlink ran").doesNotExist();
        String archive = java.util.regex.Pattern.quote(jsa.toRealPath().toString());
        assertThat(t.err().lines()).anyMatch(l -> l.matches("\\s*ccstr SharedArchiveFile\\s+= " + archive + "\\s.*"));
    }
}

