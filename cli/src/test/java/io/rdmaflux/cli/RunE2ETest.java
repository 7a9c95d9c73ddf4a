package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.pipeline.plugin.PluginApi;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rdflux run} and {@code rdflux plugins} as real processes over loopback: pipelines on
 * both ends of a channel, configuration errors, and a plugin jar loaded from a directory.
 */
class RunE2ETest {

    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final ProcessBuilder.Redirect PIPE = ProcessBuilder.Redirect.PIPE;
    private static final Pattern LISTENING = Pattern.compile("(?:rdflux|rdrecv): listening on 127\\.0\\.0\\.1:(\\d+)");
    /** The samples jar alone (copied there by the build): Crc32cStage and the sha256 sink. */
    private static final Path PLUGINS = Path.of(System.getProperty("rdflux.test.plugins", "target/test-plugins"))
            .toAbsolutePath();

    @TempDir
    Path dir;

    private Path emptyPlugins;

    @BeforeEach
    void noUserPlugins() throws IOException {
        // The default plugin directory comes from the environment: keep the user's out of the tests.
        emptyPlugins = Files.createDirectory(dir.resolve("no-plugins"));
    }

    private Tool rdflux(Map<String, String> env, String... args) {
        Map<String, String> e = new HashMap<>(env);
        e.putIfAbsent("RDFLUX_PLUGINS", emptyPlugins.toString());
        return Tool.start(dir, "rdflux", PIPE, PIPE, e, args);
    }

    private Path yaml(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private Path key() throws IOException {
        Path k = Files.writeString(dir.resolve("key"), "e2e secret\n");
        Files.setPosixFilePermissions(k, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        return k;
    }

    /** The port a receiving pipeline printed, read from its stderr as a script would. */
    private static int port(Tool t) {
        await("a 'listening on' line").atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).until(() -> LISTENING.matcher(t.err()).find() || !t.process.isAlive());
        Matcher m = LISTENING.matcher(t.err());
        if (!m.find()) {
            throw new AssertionError("the receiver exited: " + t.err());
        }
        return Integer.parseInt(m.group(1));
    }

    @Test
    void fileZstdAesSendToReceiveFileBetweenTwoProcesses() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), (24L << 20) + 3, 11);
        Path out = dir.resolve("out.bin");
        Path k = key();
        yaml("recv.yaml", """
                source:
                  type: receive
                  port: 0
                  bind: 127.0.0.1
                  key-file: %s
                  transport: tcp
                  require-encryption: true
                sink:
                  type: file
                  path: out.bin
                """.formatted(k));
        yaml("send.yaml", """
                source: {type: file, path: in.bin}
                stages:
                  - type: zstd
                    level: 3
                  - type: aes-256-gcm
                sink:
                  type: send
                  host: 127.0.0.1
                  port: ${PORT}
                  key-file: %s
                  transport: tcp
                """.formatted(k));
        Tool r = rdflux(Map.of(), "run", "-v", "recv.yaml");
        int port = port(r);
        Tool s = rdflux(Map.of("PORT", Integer.toString(port)), "run", "-v", "send.yaml");
        assertThat(s.exitCode(LIMIT)).as("sender: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("receiver: %s", r.err()).isZero();
        assertThat(Files2.sha256(out)).isEqualTo(Files2.sha256(in));
        assertThat(s.err()).contains("sending through codecs: zstd:1;level=3;block=1048538,aes-256-gcm:1", "stage zstd:1;level=3: 24.00 MiB in, ",
                "stage aes-256-gcm:1: ", "sink send to 127.0.0.1:" + port + ": ", "Bandwidth ");
        assertThat(r.err()).contains("listening on 127.0.0.1:" + port, "receiving through codecs: zstd:1;level=3;block=1048538,aes-256-gcm:1",
                "sink " + out.getFileName() + ": 24.00 MiB in", "Bandwidth ");
        assertThat(s.peakRssMiB()).as("sender peak RSS (MiB)").isLessThan(300);
        assertThat(r.peakRssMiB()).as("receiver peak RSS (MiB)").isLessThan(300);
    }

    @Test
    void aFailedCommandSinkDecidesTheReceiversStatusAsRdrecvCommandDoes() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), 200_000, 12);
        Path k = key();
        yaml("recv.yaml", """
                source: {type: receive, port: 0, bind: 127.0.0.1, key-file: %s, transport: tcp}
                sink: {type: command, command: "cat > /dev/null; echo cannot receive >&2; exit 3"}
                """.formatted(k));
        Tool r = rdflux(Map.of(), "run", "recv.yaml");
        int port = port(r);
        Tool s = Tool.start(dir, "rdsend", "--transport", "tcp", "--key-file", k.toString(), "127.0.0.1",
                Integer.toString(port), in.toString());
        // As rdrecv --command (CommandE2ETest): the command's own status here, 74 for the sender.
        assertThat(r.exitCode(LIMIT)).as("receiver: %s", r.err()).isEqualTo(3);
        assertThat(r.err()).contains("[cat] cannot receive", "rdflux: command 'cat > /dev/null; echo cannot receive >&2;"
                + " exit 3' exited with status 3 after the end of its input: cannot receive");
        assertThat(s.exitCode(LIMIT)).as("rdsend: %s", s.err()).isEqualTo(ExitCode.IO);
    }

    @Test
    void checkValidatesWithoutStartingAnything() throws IOException {
        Path k = key();
        yaml("p.yaml", """
                source: stdin
                stages: [zstd]
                sink: {type: send, host: 127.0.0.1, port: 1, key-file: %s}
                """.formatted(k));
        Tool t = rdflux(Map.of(), "run", "--check", "p.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(t.err()).isEqualTo("rdflux: p.yaml: valid (stdin -> zstd -> send)\n");
        // A key file others can read: a warning, as rdrecv gives.
        Files.setPosixFilePermissions(k, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Tool open = rdflux(Map.of(), "run", "--check", "p.yaml");
        assertThat(open.exitCode(LIMIT)).as(open.err()).isZero();
        assertThat(open.err()).isEqualTo("rdflux: warning: key file " + k + " can be read by other users (rw-r--r--): "
                + "restrict it with chmod 600 " + k + "\nrdflux: p.yaml: valid (stdin -> zstd -> send)\n");
    }

    @Test
    void anInvalidFileIsOneLinePerProblemAndExit78() throws IOException {
        yaml("bad.yaml", """
                source:
                  type: fle
                  path: ${NOT_SET_ANYWHERE}
                stages:
                  - type: zstd
                    levle: 3
                  - aes-256-gcm
                sink:
                  type: file
                  fsync: maybe
                """);
        for (String check : new String[] {"--check", "-v"}) {
            Tool t = rdflux(Map.of(), "run", check, "bad.yaml");
            assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.CONFIG);
            assertThat(t.err()).isEqualTo("""
                    bad.yaml:2: source.type: unknown source type 'fle', did you mean 'file'? (source types: file, stdin, receive, tree, tree-listing, command, empty)
                    bad.yaml:3: source.path: environment variable NOT_SET_ANYWHERE is not set (write ${NOT_SET_ANYWHERE:-default} to give a default)
                    bad.yaml:6: stages[0].levle: unknown key for stage 'zstd', did you mean 'level'?
                    bad.yaml:7: stages[1].type: aes-256-gcm derives its key from a channel session, so it needs a sink that sends over the channel (type: send), not a 'file' sink
                    bad.yaml:8: sink.path: missing (required by sink 'file')
                    bad.yaml:10: sink.fsync: expected true or false, got 'maybe'
                    """);
        }
        Tool missing = rdflux(Map.of(), "run", "nope.yaml");
        assertThat(missing.exitCode(LIMIT)).isEqualTo(ExitCode.NO_INPUT);
        assertThat(missing.err()).isEqualTo("rdflux: cannot read nope.yaml: no such file\n");
        Files.write(dir.resolve("latin1.yaml"), "sink: {type: file, path: caf\u00e9}\n".getBytes(StandardCharsets.ISO_8859_1));
        Tool latin1 = rdflux(Map.of(), "run", "latin1.yaml");
        assertThat(latin1.exitCode(LIMIT)).isEqualTo(ExitCode.NO_INPUT);
        assertThat(latin1.err()).isEqualTo("rdflux: cannot read latin1.yaml: not UTF-8 text: the byte at offset 28 "
                + "is not valid UTF-8\n");
    }

    @Test
    void aHostileFileIsOneLineNeverATraceNorAHang() throws Exception {
        // A FIFO blocked the read forever; /dev/zero filled the heap; deep brackets overflowed the stack.
        Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("fifo.yaml").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        for (String file : new String[] {"fifo.yaml", "/dev/zero"}) {
            Tool t = rdflux(Map.of(), "run", "--check", file);
            assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.NO_INPUT);
            assertThat(t.err()).isEqualTo("rdflux: cannot read " + file + ": not a regular file\n");
        }
        yaml("deep.yaml", "source: " + "[".repeat(20_000) + "]".repeat(20_000) + "\nsink: stdout\n");
        Tool deep = rdflux(Map.of(), "run", "--check", "deep.yaml");
        assertThat(deep.exitCode(LIMIT)).as(deep.err()).isEqualTo(ExitCode.CONFIG);
        assertThat(deep.err()).isEqualTo("deep.yaml:1: nested more than 64 levels deep (a pipeline needs 4)\n");
        // Every unknown key is an error, but 25 of them are not worth 25 lines.
        StringBuilder many = new StringBuilder("source: stdin\nsink:\n  type: stdout\n");
        for (int i = 0; i < 25; i++) {
            many.append("  k").append(i).append(": 1\n");
        }
        yaml("many.yaml", many.toString());
        Tool t = rdflux(Map.of(), "run", "--check", "many.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.CONFIG);
        assertThat(t.err()).hasLineCount(21).startsWith("many.yaml:4: sink.k0: unknown key for sink 'stdout'")
                .endsWith("many.yaml:23: sink.k19: unknown key for sink 'stdout' (it has no options)\n"
                        + "rdflux: ... and 5 more problems\n");
    }

    @Test
    void tildeInAPathIsHomeFromTheEnvironment() throws IOException {
        Path home = Files.createDirectory(dir.resolve("home"));
        Files.move(key(), home.resolve(".rdkey"));
        yaml("p.yaml", "source: stdin\nsink: {type: send, host: 127.0.0.1, port: 1, key-file: ~/.rdkey}\n");
        Tool t = rdflux(Map.of("HOME", home.toString()), "run", "--check", "p.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(t.err()).isEqualTo("rdflux: p.yaml: valid (stdin -> send)\n");
    }

    @Test
    void aMissingInputFileFailsWithItsOwnExitCode() throws IOException {
        yaml("p.yaml", "source: {type: file, path: no-such.bin}\nsink: {type: file, path: out.bin}\n");
        Tool t = rdflux(Map.of(), "run", "p.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.NO_INPUT);
        assertThat(t.err()).contains("no-such.bin").hasLineCount(1);
    }

    /** A tree copied but for a file: the file named, nothing deleted, exit 23, as rdcp (it was 0 and silent). */
    @Test
    void aTreeThatArrivedButForAFileNamesItAndExits23() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a\n");
        // A name that is not UTF-8 cannot be read by the source: that file fails, the rest goes.
        assertThat(new ProcessBuilder("sh", "-c", "touch \"$(printf 'src/bad\\377name')\"").directory(dir.toFile())
                .start().waitFor()).isZero();
        Path dst = Files.createDirectories(dir.resolve("dst"));
        Files.writeString(dst.resolve("extra.txt"), "not in the source\n");
        yaml("t.yaml", "source: {type: tree, path: src}\nsink: {type: tree, path: dst, delete: true}\n");
        Tool t = rdflux(Map.of(), "run", "t.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.PARTIAL);
        assertThat(t.err()).contains("not copied: bad", "partial transfer: what is named above did not arrive",
                "nothing deleted in ");
        assertThat(dst.resolve("a.txt")).hasContent("a");
        assertThat(dst.resolve("extra.txt")).exists();
    }

    /**
     * A peer's tree stream of 100,000 warning notices (written here byte by byte, per
     * docs/tree-format.md) prints the first 1000 and one line that counts the rest: it printed
     * 100,000 lines.
     */
    @Test
    void warningsFromAPeerArePrintedUpToTheCapAndCounted() throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        out.write("RDTR".getBytes(StandardCharsets.US_ASCII));
        out.writeShort(1);
        out.writeShort(0);
        // The root: ENTRY id 0, a directory, mode 0755, no path, no link.
        out.writeByte(1);
        out.writeInt(28);
        out.writeInt(0);
        out.writeByte(2);
        out.writeByte(0);
        out.writeShort(0755);
        out.writeLong(1_000_000_000_000_000_000L);
        out.writeLong(0);
        out.writeShort(0);
        out.writeShort(0);
        byte[] message = "worth knowing".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 100_000; i++) {
            byte[] path = ("w" + i).getBytes(StandardCharsets.US_ASCII);
            out.writeByte(5);
            out.writeInt(5 + path.length + message.length);
            out.writeByte(1);   // a warning
            out.writeShort(path.length);
            out.write(path);
            out.writeShort(message.length);
            out.write(message);
        }
        out.writeByte(6);
        out.writeInt(20);
        out.writeLong(1);
        out.writeLong(0);
        out.writeInt(0);
        Files.write(dir.resolve("warnings.tree"), bytes.toByteArray());
        yaml("w.yaml", "source: {type: file, path: warnings.tree}\nsink: {type: tree, path: dst}\n");
        Tool t = rdflux(Map.of(), "run", "w.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(t.err().lines().toList()).hasSize(1001)
                .startsWith("rdflux: warning: w0: worth knowing")
                .endsWith("rdflux: warning: w999: worth knowing", "rdflux: warning: ... and 99000 more warnings");
    }

    @Test
    void pluginsListsEveryBuiltInWithItsOptions() throws IOException {
        Tool t = rdflux(Map.of(), "plugins");
        String out = new String(t.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(out).contains("sources:", "stages:", "sinks:", "  file: Reads a file.", "  receive: ", "  send: ",
                "  zstd: ", "  aes-256-gcm: ", "  stdout: ");
        assertThat(out).contains("    port: integer 0-65535, required\n", "    level: integer -7..22, default 1\n",
                "    frame-size: size 4K-64M, default 1M\n", "    key-file: path\n");
        assertThat(out.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
        assertThat(out).doesNotContain("sha256", "crc32c");
    }

    @Test
    void aPluginJarFromThePluginDirectoryOnBothEnds() throws IOException {
        assertThat(PLUGINS.resolve("rdma-flux-samples-0.1.0-SNAPSHOT.jar")).exists();
        Tool list = rdflux(Map.of(), "plugins", "--plugins", PLUGINS.toString());
        String listing = new String(list.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(list.exitCode(LIMIT)).as(list.err()).isZero();
        assertThat(listing).contains("  crc32c (from rdma-flux-samples-0.1.0-SNAPSHOT.jar): Codec stage crc32c:1",
                "  sha256 (from rdma-flux-samples-0.1.0-SNAPSHOT.jar): Prints the stream's", "    output: path\n");

        Path in = Files2.random(dir.resolve("in.bin"), (6L << 20) + 9, 12);
        Path k = key();
        yaml("recv.yaml", """
                source: {type: receive, port: 0, bind: 127.0.0.1, key-file: %s, transport: tcp}
                sink: sha256
                """.formatted(k));
        yaml("send.yaml", """
                source: {type: file, path: in.bin}
                stages: [crc32c, zstd]
                sink: {type: send, host: 127.0.0.1, port: "${PORT}", key-file: %s, transport: tcp}
                """.formatted(k));
        // The plugin directory from the environment on one end, from --plugins on the other.
        Tool r = rdflux(Map.of("RDFLUX_PLUGINS", PLUGINS.toString()), "run", "recv.yaml");
        int port = port(r);
        Tool s = rdflux(Map.of("PORT", Integer.toString(port)), "run", "--plugins", PLUGINS.toString(), "send.yaml");
        String digest = new String(r.process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(s.exitCode(LIMIT)).as("sender: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("receiver: %s", r.err()).isZero();
        assertThat(digest).isEqualTo(Files2.sha256(in) + "  in.bin\n");

        // Without the directory the stage is unknown, before anything starts.
        Tool without = rdflux(Map.of("PORT", "1"), "run", "send.yaml");
        assertThat(without.exitCode(LIMIT)).isEqualTo(ExitCode.CONFIG);
        assertThat(without.err()).isEqualTo(
                "send.yaml:2: stages[0].type: unknown stage type 'crc32c' (stage types: zstd, aes-256-gcm)\n");
        Tool noDir = rdflux(Map.of(), "run", "--plugins", dir.resolve("nowhere").toString(), "send.yaml");
        assertThat(noDir.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(noDir.err()).startsWith("rdflux: plugin directory " + dir.resolve("nowhere") + " does not exist\n");
        // The same directory from the environment: mistyped, it is not quietly taken for an empty one.
        Tool noEnvDir = rdflux(Map.of("RDFLUX_PLUGINS", dir.resolve("nowhere").toString()), "run", "send.yaml");
        assertThat(noEnvDir.exitCode(LIMIT)).as(noEnvDir.err()).isEqualTo(ExitCode.USAGE);
        assertThat(noEnvDir.err()).startsWith("rdflux: plugin directory " + dir.resolve("nowhere")
                + " ($RDFLUX_PLUGINS) does not exist\n");
        Tool aFile = rdflux(Map.of(), "run", "--plugins", in.toString(), "send.yaml");
        assertThat(aFile.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(aFile.err()).startsWith("rdflux: plugin directory " + in + " is not a directory\n");
    }

    /**
     * The samples jar declares the plugin API it was built for; the same jar declaring a newer
     * one is refused: a pipeline that needs its stage fails with exit 78 and one line naming the
     * jar, the plugin, its version and ours.
     */
    @Test
    void aPluginJarBuiltForANewerPluginApiIsRefusedWithExit78() throws IOException {
        Path samples = PLUGINS.resolve("rdma-flux-samples-0.1.0-SNAPSHOT.jar");
        try (JarFile jar = new JarFile(samples.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue(PluginApi.ATTRIBUTE)).isEqualTo(PluginApi.version());
        }
        String newer = PluginApi.MAJOR + "." + (PluginApi.MINOR + 1);
        Path refused = Files.createDirectory(dir.resolve("newer-plugins"));
        try (JarFile jar = new JarFile(samples.toFile());
             JarOutputStream out = new JarOutputStream(Files.newOutputStream(refused.resolve("samples-next.jar")),
                     withApi(jar.getManifest(), newer))) {
            for (JarEntry e : java.util.Collections.list(jar.entries())) {
                if (e.getName().equals(JarFile.MANIFEST_NAME)) {
                    continue;
                }
                out.putNextEntry(new JarEntry(e.getName()));
                try (var in = jar.getInputStream(e)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
        Files.writeString(dir.resolve("in.bin"), "data\n");
        yaml("crc.yaml", "source: {type: file, path: in.bin}\nstages: [crc32c]\nsink: {type: file, path: out.bin}\n");
        Tool t = rdflux(Map.of(), "run", "--plugins", refused.toString(), "crc.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isEqualTo(ExitCode.CONFIG);
        String why = "samples-next.jar (plugin io.rdmaflux.samples.Sha256SinkPlugin (and 1 more) was built for plugin API "
                + newer + "; this rdflux has plugin API " + PluginApi.version() + ": use a newer rdflux)";
        assertThat(t.err().lines().toList()).last().asString()
                .startsWith("crc.yaml:2: stages[0].type: unknown stage type 'crc32c'")
                .endsWith("plugin jars skipped: " + why);
        assertThat(t.err()).doesNotContain("Exception", "\tat ");
        assertThat(dir.resolve("out.bin")).doesNotExist();
    }

    private static Manifest withApi(Manifest manifest, String api) {
        Manifest m = new Manifest(manifest);
        m.getMainAttributes().putValue(PluginApi.ATTRIBUTE, api);
        return m;
    }

    @Test
    void rdrecvFindsAPluginCodecInItsPluginDirectoryAndSaysWhereItLooked() throws IOException {
        Path in = Files2.random(dir.resolve("in.bin"), (1L << 20) + 3, 5);
        Path k = key();
        yaml("send.yaml", """
                source: {type: file, path: in.bin}
                stages: [crc32c, zstd]
                sink: {type: send, host: 127.0.0.1, port: "${PORT}", key-file: %s, transport: tcp}
                """.formatted(k));
        Tool r = Tool.start(dir, "rdrecv", PIPE, PIPE, Map.of("RDFLUX_PLUGINS", PLUGINS.toString()),
                "--bind", "127.0.0.1", "--transport", "tcp", "--key-file", k.toString(), "0", "./out.bin");
        Tool s = rdflux(Map.of("PORT", Integer.toString(port(r))), "run", "--plugins", PLUGINS.toString(), "send.yaml");
        assertThat(s.exitCode(LIMIT)).as("sender: %s", s.err()).isZero();
        assertThat(r.exitCode(LIMIT)).as("receiver: %s", r.err()).isZero();
        assertThat(Files2.sha256(dir.resolve("out.bin"))).isEqualTo(Files2.sha256(in));

        // Without the jar, the receiver refuses the stream and says where it looked for codecs.
        Tool without = Tool.start(dir, "rdrecv", PIPE, PIPE, Map.of("RDFLUX_PLUGINS", emptyPlugins.toString()),
                "--bind", "127.0.0.1", "--transport", "tcp", "--key-file", k.toString(), "0", "./out2.bin");
        Tool refused = rdflux(Map.of("PORT", Integer.toString(port(without))), "run", "--plugins", PLUGINS.toString(),
                "send.yaml");
        String reason = "unknown codec 'crc32c' (this side knows: zstd, aes-256-gcm); plugin codecs come from the jars in "
                + emptyPlugins + " on this side (set with --plugins DIR or RDFLUX_PLUGINS)";
        assertThat(without.exitCode(LIMIT)).isEqualTo(ExitCode.DATA);
        assertThat(without.err()).contains("rdrecv: " + reason + "\n");
        assertThat(refused.exitCode(LIMIT)).isEqualTo(ExitCode.DATA);
        assertThat(refused.err()).contains("rdflux: receiver reported: " + reason + "\n");
    }

    @Test
    void aBrokenJarInThePluginDirectoryIsSkippedWithOneWarning() throws IOException {
        Path plugins = Files.createDirectory(dir.resolve("plugins"));
        Files.copy(PLUGINS.resolve("rdma-flux-samples-0.1.0-SNAPSHOT.jar"), plugins.resolve("samples.jar"));
        Files.writeString(plugins.resolve("broken.jar"), "not a jar\n");
        yaml("p.yaml", """
                source: {type: file, path: p.yaml}
                stages: [crc32c]
                sink: {type: file, path: out.bin}
                """);
        Tool t = rdflux(Map.of("RDFLUX_PLUGINS", plugins.toString()), "run", "--check", "p.yaml");
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
        assertThat(t.err()).isEqualTo("rdflux: warning: plugin jar " + plugins.resolve("broken.jar")
                + " skipped: not a readable jar (zip END header not found)\n"
                + "rdflux: p.yaml: valid (file -> crc32c -> file)\n");
    }

    /**
     * A plugin whose constructor never returns is left out after the time limit, with one
     * warning, and the run goes on: it does not use that plugin.
     */
    @Test
    void aPluginThatHangsIsSkippedAfterTheTimeLimit() throws Exception {
        Path plugins = Files.createDirectory(dir.resolve("plugins"));
        pluginJar(plugins, "sleepy", "SleepySource", "try { Thread.sleep(3_600_000); } catch (InterruptedException e) { }");
        byte[] data = runToStdout(plugins);
        assertThat(lastRun.err()).contains("rdflux: warning: plugin jar " + plugins.resolve("sleepy.jar")
                + " skipped: sleepy.SleepySource did not load within 10 s (a constructor or class initializer that "
                + "blocks?)\n");
        assertThat(data).as("stdout").isEqualTo(Files.readAllBytes(dir.resolve("in.bin")));
    }

    /**
     * A plugin that prints to System.out, from its constructor and its description, prints to
     * stderr: stdout holds the data and nothing else.
     */
    @Test
    void whatAPluginPrintsGoesToStderrNotIntoTheData() throws Exception {
        Path plugins = Files.createDirectory(dir.resolve("plugins"));
        pluginJar(plugins, "chatty", "ChattySource", "System.out.println(\"chatty was here\"); System.out.flush();");
        byte[] data = runToStdout(plugins);
        assertThat(data).as("stdout").isEqualTo(Files.readAllBytes(dir.resolve("in.bin")));
        assertThat(lastRun.err()).contains("chatty was here");
    }

    private Tool lastRun;

    /** Runs file -> stdout with {@code plugins}, expecting success; what it wrote to stdout. */
    private byte[] runToStdout(Path plugins) throws IOException {
        byte[] data = new byte[300_000];
        new java.util.Random(21).nextBytes(data);
        Files.write(dir.resolve("in.bin"), data);
        yaml("p.yaml", """
                source: {type: file, path: in.bin}
                sink: stdout
                """);
        // Stdout to a file: a tool that hangs then fails the exit code's bounded wait, not a read.
        Path out = dir.resolve("stdout.bin");
        lastRun = Tool.start(dir, "rdflux", PIPE, ProcessBuilder.Redirect.to(out.toFile()),
                Map.of("RDFLUX_PLUGINS", emptyPlugins.toString()), "run", "--plugins", plugins.toString(), "p.yaml");
        assertThat(lastRun.exitCode(LIMIT)).as(lastRun.err()).isZero();
        return Files.readAllBytes(out);
    }

    /**
     * A jar in {@code plugins} with one source plugin, {@code pkg.cls}, named {@code pkg},
     * whose constructor and description run {@code body}. Compiled here against the tool's API.
     */
    private void pluginJar(Path plugins, String pkg, String cls, String body) throws IOException {
        Path src = dir.resolve(pkg + "-src/" + pkg + "/" + cls + ".java");
        Path classes = Files.createDirectories(dir.resolve(pkg + "-classes"));
        Files.createDirectories(src.getParent());
        Files.writeString(src, """
                package %1$s;
                public class %2$s implements io.rdmaflux.pipeline.plugin.SourcePlugin {
                    public %2$s() { %3$s }
                    public String name() { return "%1$s"; }
                    public String description() { %3$s return "a test plugin"; }
                    public java.util.List<io.rdmaflux.pipeline.config.OptionSpec<?>> options() { return java.util.List.of(); }
                    public io.rdmaflux.pipeline.PipelineSource create(io.rdmaflux.pipeline.config.OptionValues v,
                            io.rdmaflux.pipeline.plugin.PluginContext c) { return null; }
                }
                """.formatted(pkg, cls, body));
        int rc = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(),
                "-cp", System.getProperty("java.class.path"), src.toString());
        assertThat(rc).as("javac").isZero();
        try (java.util.jar.JarOutputStream j = new java.util.jar.JarOutputStream(
                Files.newOutputStream(plugins.resolve(pkg + ".jar")))) {
            Path c = classes.resolve(pkg + "/" + cls + ".class");
            j.putNextEntry(new java.util.jar.JarEntry(pkg + "/" + cls + ".class"));
            j.write(Files.readAllBytes(c));
            j.closeEntry();
            j.putNextEntry(new java.util.jar.JarEntry("META-INF/services/io.rdmaflux.pipeline.plugin.SourcePlugin"));
            j.write((pkg + "." + cls + "\n").getBytes(StandardCharsets.UTF_8));
            j.closeEntry();
        }
    }

    @Test
    void ctrlCStopsAWaitingReceiver() throws Exception {
        yaml("recv.yaml", """
                source: {type: receive, port: 0, bind: 127.0.0.1, key: k, transport: tcp}
                sink: {type: file, path: out.bin}
                """);
        Tool r = rdflux(Map.of(), "run", "recv.yaml");
        port(r);
        interrupt(r);
        assertThat(r.exitCode(LIMIT)).as(r.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(dir.resolve("out.bin")).doesNotExist();
    }

    @Test
    void ctrlCMidStreamRemovesThePartialFileAndTellsTheSender() throws Exception {
        yaml("recv.yaml", """
                source: {type: receive, port: 0, bind: 127.0.0.1, key: k, transport: tcp}
                sink: {type: file, path: out.bin}
                """);
        yaml("send.yaml", """
                source: stdin
                sink: {type: send, host: 127.0.0.1, port: "${PORT}", key: k, transport: tcp}
                """);
        Tool r = rdflux(Map.of(), "run", "recv.yaml");
        int port = port(r);
        Tool s = rdflux(Map.of("PORT", Integer.toString(port)), "run", "send.yaml");
        // An endless producer on the sender's stdin, until the pipe breaks.
        Thread producer = new Thread(() -> {
            byte[] block = new byte[64 << 10];
            try (var in = s.process.getOutputStream()) {
                for (;;) {
                    in.write(block);
                }
            } catch (IOException e) {
                // The sender went away: done.
            }
        }, "producer");
        producer.setDaemon(true);
        producer.start();
        await("the receiver writing").atMost(LIMIT).until(() -> partials() != 0);
        assertThat(partials()).as("the receiver is writing: %s", r.err()).isEqualTo(1);
        interrupt(r);
        assertThat(r.exitCode(LIMIT)).as(r.err()).isEqualTo(ExitCode.INTERRUPTED);
        assertThat(s.exitCode(LIMIT)).as(s.err()).isEqualTo(ExitCode.TEMP_FAIL);
        // Said as rdrecv says it: the signal, on both sides.
        assertThat(r.err()).contains("pipeline interrupted by SIGINT");
        assertThat(s.err()).contains("receiver reported: pipeline interrupted by SIGINT");
        assertThat(partials()).isZero();
        assertThat(dir.resolve("out.bin")).doesNotExist();
    }

    private long partials() throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".part")).count();
        }
    }

    private static void interrupt(Tool t) throws Exception {
        new ProcessBuilder("kill", "-INT", Long.toString(t.process.pid())).start().waitFor();
    }
}
