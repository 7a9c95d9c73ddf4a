package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.pipeline.config.ConfigError;
import io.rdmaflux.pipeline.config.ConfigException;
import io.rdmaflux.pipeline.config.Home;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.testing.SpecialFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of configuration error, with its exact line: file, line, key, message. */
class ConfigErrorsTest {

    private static final PluginRegistry PLUGINS = PluginRegistry.builtins();

    @TempDir
    Path dir;

    private static List<String> errors(String yaml, Map<String, String> env) {
        try {
            PipelineConfig.parse(yaml, "p.yaml", PLUGINS, env);
        } catch (ConfigException e) {
            return e.errors().stream().map(ConfigError::toString).toList();
        }
        throw new AssertionError("expected errors in:\n" + yaml);
    }

    private static Object value(PipelineConfig.Part<?> part, String name) {
        OptionSpec<?> spec = part.plugin().options().stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow();
        return part.values().get(spec);
    }

    private static List<String> errors(String yaml) {
        return errors(yaml, Map.of());
    }

    private String keyFile() throws Exception {
        Path k = dir.resolve("key");
        Files.writeString(k, "secret\n");
        return k.toString();
    }

    @Test
    void aValidPipelineParses() throws Exception {
        PipelineConfig c = PipelineConfig.parse("""
                source:
                  type: file
                  path: /etc/hostname
                stages:
                  - type: zstd
                    level: 3
                  - type: aes-256-gcm
                sink:
                  type: send
                  host: backup
                  port: 7691
                  key-file: %s
                  frame-size: 4M
                  connect-timeout: 500ms
                """.formatted(keyFile()), "p.yaml", PLUGINS, Map.of());
        assertThat(c.describe()).isEqualTo("file -> zstd -> aes-256-gcm -> send");
        assertThat(c.chain().format()).isEqualTo("zstd:1;level=3,aes-256-gcm:1");
        assertThat(value(c.sink(), "frame-size")).isEqualTo(4L << 20);
    }

    @Test
    void unknownTypeWithSuggestion() {
        assertThat(errors("""
                source:
                  type: fle
                  path: x
                sink: stdout
                """)).containsExactly(
                "p.yaml:2: source.type: unknown source type 'fle', did you mean 'file'? (source types: file, stdin, receive, tree, tree-listing, command, empty)");
        assertThat(errors("""
                source: stdin
                stages: [gzip]
                sink: stdout
                """)).containsExactly(
                "p.yaml:2: stages[0].type: unknown stage type 'gzip' (stage types: zstd, aes-256-gcm)");
    }

    @Test
    void twoLettersSwappedAreOneTypo() {
        // 'fiel' is two plain edits from 'file' (over the limit of 1 for a short word) and one
        // transposition: only the swap rule of the distance suggests it.
        assertThat(errors("""
                source:
                  type: fiel
                  path: x
                sink: stdout
                """)).containsExactly(
                "p.yaml:2: source.type: unknown source type 'fiel', did you mean 'file'? (source types: file, stdin, receive, tree, tree-listing, command, empty)");
    }

    @Test
    void unknownKeyWithSuggestionOrTheKnownKeys() {
        assertThat(errors("""
                source: stdin
                sink:
                  type: file
                  pth: out.bin
                  fsnyc: true
                """)).containsExactly(
                "p.yaml:2: sink.path: missing (required by sink 'file')",
                "p.yaml:4: sink.pth: unknown key for sink 'file', did you mean 'path'?",
                "p.yaml:5: sink.fsnyc: unknown key for sink 'file', did you mean 'fsync'?");
        assertThat(errors("""
                source: {type: stdin, colour: blue}
                sink: {type: file, path: out, colour: red}
                """)).containsExactly(
                "p.yaml:1: source.colour: unknown key for source 'stdin' (it has no options)",
                "p.yaml:2: sink.colour: unknown key for sink 'file' (its keys: path, fsync, append)");
    }

    @Test
    void missingRequiredKeysAndParts() {
        assertThat(errors("""
                source: stdin
                sink:
                  type: send
                  key: k
                """)).containsExactly(
                "p.yaml:2: sink.host: missing (sink 'send' needs host and port, or to: a list of HOST:PORT)");
        assertThat(errors("""
                stages: []
                """)).containsExactly(
                "p.yaml:1: source: missing (a pipeline needs a source and a sink)",
                "p.yaml:1: sink: missing (a pipeline needs a source and a sink)");
        assertThat(errors("""
                source:
                  path: x
                sink: stdout
                """)).containsExactly("p.yaml:1: source.type: missing (source types: file, stdin, receive, tree, tree-listing, command, empty)");
    }

    @Test
    void wrongValueTypes() throws Exception {
        assertThat(errors("""
                source:
                  type: receive
                  port: abc
                  key-file: %s
                  frame-size: 4X
                  slots: 1
                  timeout: soon
                  require-encryption: no
                  transport: ib
                sink: stdout
                """.formatted(keyFile()))).containsExactly(
                "p.yaml:3: source.port: expected an integer 0-65535, got 'abc'",
                "p.yaml:5: source.frame-size: expected a size from 4K to 64M (such as 64K or 4M), got '4X'",
                "p.yaml:6: source.slots: expected an integer 2-4096, got '1'",
                "p.yaml:7: source.timeout: expected a duration such as 500ms, 10s, 5m or 1h, got 'soon'",
                "p.yaml:8: source.require-encryption: expected true or false, got 'no'",
                "p.yaml:9: source.transport: expected one of auto, rdma, tcp, got 'ib'");
        assertThat(errors("""
                source: stdin
                stages:
                  - type: zstd
                    level: 23
                sink:
                  type: send
                  host: [a, b]
                  port: 70000
                  key: k
                """)).containsExactly(
                "p.yaml:4: stages[0].level: expected an integer from -7 to 22, got '23'",
                "p.yaml:7: sink.host: expected a string, got a list",
                "p.yaml:8: sink.port: expected an integer 1-65535, got '70000'");
    }

    @Test
    void environmentVariables() {
        Map<String, String> env = Map.of("DIR", "/data", "EMPTY", "");
        assertThat(errors("""
                source: {type: file, path: "${DIR}/in-${MISSING}.bin"}
                sink: {type: file, path: "${NOPE:-/tmp}/out"}
                """, env)).containsExactly(
                "p.yaml:1: source.path: environment variable MISSING is not set (write ${MISSING:-default} to give a default)");
        assertThat(errors("""
                source: {type: file, path: "${DIR"}
                sink: {type: file, path: "${1X}"}
                """, env)).containsExactly(
                "p.yaml:1: source.path: unterminated ${ in '${DIR' (write $$ for a literal $)",
                "p.yaml:2: sink.path: '${1X}' is not a variable reference (expected ${NAME} or ${NAME:-default}; write $$ for a literal $)");
    }

    @Test
    void expansionAndTilde() {
        Map<String, String> env = Map.of("DIR", "/data", "EMPTY", "");
        PipelineConfig c = PipelineConfig.parse("""
                source: {type: file, path: "${DIR}/in $$5.bin"}
                sink: {type: file, path: "~/${EMPTY:-x}.out"}
                """, "p.yaml", PLUGINS, env);
        assertThat(value(c.source(), "path"))
                .isEqualTo(Path.of("/data/in $5.bin"));
        assertThat(value(c.sink(), "path"))
                .isEqualTo(Home.directory(System.getenv()).resolve("x.out"));
    }

    @Test
    void keyOptions() throws Exception {
        assertThat(errors("""
                source: stdin
                sink: {type: send, host: h, port: 1, key: k, key-file: %s}
                """.formatted(keyFile()))).containsExactly("p.yaml:2: sink.key: give only one of key-file, key-env and key");
        assertThat(errors("""
                source: stdin
                sink:
                  type: send
                  host: h
                  port: 1
                  key-file: /nonexistent/key
                """)).containsExactly("p.yaml:6: sink.key-file: key file /nonexistent/key does not exist");
        assertThat(errors("""
                source: stdin
                sink:
                  type: send
                  host: h
                  port: 1
                  key-env: RDFLUX_TEST_SURELY_UNSET
                """)).containsExactly("p.yaml:6: sink.key-env: environment variable RDFLUX_TEST_SURELY_UNSET is not set");
    }

    @Test
    void aKeyedStageNeedsASendSink() {
        assertThat(errors("""
                source: stdin
                stages: [zstd, aes-256-gcm]
                sink: {type: file, path: out.bin}
                """)).containsExactly("p.yaml:2: stages[1].type: aes-256-gcm derives its key from a channel session, so it "
                + "needs a sink that sends over the channel (type: send), not a 'file' sink");
    }

    @Test
    void aPluginsOwnChecksPointAtTheOption() {
        assertThat(errors("""
                source: stdin
                stages:
                  - type: zstd
                    level: 0
                sink: stdout
                """)).containsExactly(
                "p.yaml:4: stages[0].level: 0 is not a zstd level (-7 to -1 are the fast modes, 1 to 22 the others)");
        assertThat(errors("""
                source: stdin
                sink:
                  type: send
                  host: h
                  port: 1
                  key: k
                  idle-timeout: 500ms
                """)).containsExactly("p.yaml:7: sink.idle-timeout: must be at least 1s");
    }

    @Test
    void theKeyedStageCheckNeedsOnlyTheSinkType() {
        assertThat(errors("""
                source: stdin
                stages: [aes-256-gcm]
                sink: {type: stdout, colour: red}
                """)).containsExactly(
                "p.yaml:2: stages[0].type: aes-256-gcm derives its key from a channel session, so it needs a sink "
                        + "that sends over the channel (type: send), not a 'stdout' sink",
                "p.yaml:3: sink.colour: unknown key for sink 'stdout' (it has no options)");
    }

    @Test
    void yamlItselfIsChecked() {
        assertThat(errors("""
                source: stdin
                sink: stdout
                source: stdin
                """)).containsExactly("p.yaml:3: source: given twice (first on line 1)");
        assertThat(errors("source: [stdin\nsink: stdout\n")).hasSize(1).first().asString()
                .startsWith("p.yaml:").contains("not valid YAML:");
        assertThat(errors("")).containsExactly("p.yaml:1: empty pipeline (expected source, filters, stages and sink)");
        assertThat(errors("- a\n- b\n")).containsExactly(
                "p.yaml:1: expected a mapping with source, filters, stages and sink, got a list");
        assertThat(errors("""
                source: stdin
                sink: stdout
                stage: [zstd]
                """)).containsExactly("p.yaml:3: stage: unknown key (a pipeline has source, filters, stages and sink)");
        // No object is ever built from a tag: a Java type tag is just an unknown type name.
        assertThat(errors("""
                source: !!javax.script.ScriptEngineManager [x]
                sink: stdout
                """)).containsExactly("p.yaml:1: source: expected a mapping with a type (or just the type's name), got a list");
    }

    @Test
    void aHostileFileCostsOneLine() throws Exception {
        // 20,000 brackets overflowed the composer's stack (a StackOverflowError and its trace).
        assertThat(errors("source: " + "[".repeat(20_000) + "]".repeat(20_000) + "\nsink: stdout\n"))
                .containsExactly("p.yaml:1: nested more than 64 levels deep (a pipeline needs 4)");
        StringBuilder deep = new StringBuilder("source: stdin\nsink:\n");
        for (int i = 1; i <= 200; i++) {
            deep.append("  ".repeat(i)).append("k:\n");
        }
        assertThat(errors(deep.toString()))
                .containsExactly("p.yaml:66: nested more than 64 levels deep (a pipeline needs 4)");
        // Only a regular file is read (a FIFO would block, /dev/zero never end), and only 1 MiB of it.
        // The FIFO is made here, so that the test depends on nothing of the machine's own /dev.
        Path fifo = SpecialFiles.fifo(dir.resolve("fifo.yaml"));
        assertThatThrownBy(() -> PipelineConfig.load(fifo, PLUGINS))
                .isInstanceOf(IOException.class).hasMessage("not a regular file");
        assertThatThrownBy(() -> PipelineConfig.load(dir, PLUGINS))
                .isInstanceOf(IOException.class).hasMessage("is a directory");
        String pipeline = "source: stdin\nsink: stdout\n";
        Path big = dir.resolve("big.yaml");
        Files.writeString(big, pipeline + "#".repeat((1 << 20) - pipeline.length()));
        assertThat(PipelineConfig.load(big, PLUGINS).describe()).isEqualTo("stdin -> stdout");
        Files.writeString(big, "#", StandardOpenOption.APPEND);
        assertThatThrownBy(() -> PipelineConfig.load(big, PLUGINS)).isInstanceOf(ConfigException.class)
                .hasMessage(big + ": too large for a pipeline file (over 1 MiB)");
    }

    @Test
    void aDeviceIsNotReadAsAPipelineFile() throws Exception {
        // A character device with /dev/null's numbers, made in the test's directory, not /dev/null itself.
        Path device = SpecialFiles.charDevice(dir.resolve("device.yaml"));
        assertThatThrownBy(() -> PipelineConfig.load(device, PLUGINS))
                .isInstanceOf(IOException.class).hasMessage("not a regular file");
    }

    @Test
    void controlCharactersFromTheFileAreShownAsEscapes() {
        // A key that would colour the terminal, move the cursor or split the error line.
        assertThat(errors("""
                source: stdin
                sink: {type: stdout, "\\e[31mRED\\e[0m\\rX": 1, "a\\nb\\u202Ec": 2}
                """)).containsExactly(
                "p.yaml:2: sink.\\x1b[31mRED\\x1b[0m\\rX: unknown key for sink 'stdout' (it has no options)",
                "p.yaml:2: sink.a\\nb\\u202ec: unknown key for sink 'stdout' (it has no options)");
    }

    @Test
    void aVariableInAFlowCollectionMustBeQuoted() {
        // Unquoted, YAML reads ${PORT}'s brace as the start of a mapping.
        assertThat(errors("""
                source: stdin
                sink: {type: send, host: h, port: ${PORT}, key: k}
                """, Map.of("PORT", "7691"))).hasSize(1).first().asString()
                .startsWith("p.yaml:2: not valid YAML: ")
                .endsWith(" (a ${VAR} inside {...} or [...] must be quoted: \"${PORT}\")");
        PipelineConfig quoted = PipelineConfig.parse("""
                source: stdin
                sink: {type: send, host: h, port: "${PORT}", key: k}
                """, "p.yaml", PLUGINS, Map.of("PORT", "7691"));
        assertThat(value(quoted.sink(), "port")).isEqualTo(7691);
        // In block style it needs no quotes, and a broken line without ${ gets no hint.
        assertThat(value(PipelineConfig.parse("source: stdin\nsink:\n  type: send\n  host: h\n  port: ${PORT}\n  key: k\n",
                "p.yaml", PLUGINS, Map.of("PORT", "7691")).sink(), "port")).isEqualTo(7691);
        assertThat(errors("source: stdin\nsink: {type: stdout\n")).hasSize(1).first().asString()
                .doesNotContain("quoted");
    }

    @Test
    void everyErrorIsReportedOnce() {
        List<String> e = errors("""
                source:
                  type: file
                stages:
                  - type: zstd
                    level: high
                  - type: nope
                sink:
                  type: send
                  port: x
                  key: k
                """);
        assertThat(e).containsExactly(
                "p.yaml:1: source.path: missing (required by source 'file')",
                "p.yaml:5: stages[0].level: expected an integer from -7 to 22, got 'high'",
                "p.yaml:6: stages[1].type: unknown stage type 'nope' (stage types: zstd, aes-256-gcm)",
                "p.yaml:9: sink.port: expected an integer 1-65535, got 'x'");
        assertThatThrownBy(() -> PipelineConfig.parse("source: stdin\n", "p.yaml", PLUGINS, Map.of()))
                .hasMessage("p.yaml:1: sink: missing (a pipeline needs a source and a sink)");
    }

    @Test
    void secretsAreNeverRepeated() {
        assertThat(errors("""
                source: stdin
                sink: {type: send, host: h, port: 1, key: ""}
                """)).containsExactly("p.yaml:2: sink.key: expected a string, got an empty value");
    }

    @Test
    void theBuilderChecksTheSameWay() throws Exception {
        assertThatThrownBy(() -> PipelineConfig.builder(PLUGINS)
                .source("file", Map.of())
                .stage("zstd", Map.of("level", 99))
                .sink("send", Map.of("host", "h", "port", 0, "key", "k"))
                .build())
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).map(ConfigError::toString)
                        .containsExactlyInAnyOrder(
                                "source.path: missing (required by source 'file')",
                                "stages[0].level: expected an integer from -7 to 22, got '99'",
                                "sink.port: expected an integer 1-65535, got '0'"));
        PipelineConfig c = PipelineConfig.builder(PLUGINS)
                .source("receive", Map.of("port", 0, "key-file", keyFile(), "timeout", "2s"))
                .stage("zstd", Map.of())
                .sink("file", Map.of("path", dir.resolve("out").toString(), "fsync", true))
                .build();
        assertThat(c.describe()).isEqualTo("receive -> zstd -> file");
        assertThat(value(c.source(), "timeout")).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aSendSinkToSeveralReceiversChecksItsListOneLineEach() {
        PipelineConfig c = PipelineConfig.parse("""
                source: stdin
                sink: {type: send, to: ["h1:7691", "[::1]:7692", "h3:7691"], key: k}
                """, "p.yaml", PLUGINS, Map.of());
        assertThat(c.toPipeline().describe()).isEqualTo("standard input -> send to h1:7691, send to ::1:7692, send to h3:7691");
        assertThat(errors("""
                source: stdin
                sink:
                  type: send
                  key: k
                  to:
                    - h1:7691
                    - h2
                """)).containsExactly("p.yaml:6: sink.to: item 2: must be HOST:PORT, was 'h2'");
        assertThat(errors("""
                source: stdin
                sink: {type: send, to: ["h1:7691", "h2:0"], key: k}
                """)).containsExactly("p.yaml:2: sink.to: item 2: the port must be between 1 and 65535, was 0");
        assertThat(errors("""
                source: stdin
                sink: {type: send, to: ["h1:7691", "h1:7691"], key: k}
                """)).containsExactly("p.yaml:2: sink.to: item 2: repeats 'h1:7691' (each receiver once)");
        assertThat(errors("""
                source: stdin
                sink: {type: send, to: [], key: k}
                """)).containsExactly("p.yaml:2: sink.to: an empty list (give at least one HOST:PORT)");
        assertThat(errors("""
                source: stdin
                sink: {type: send, to: "h1:7691", key: k}
                """)).singleElement().asString().startsWith("p.yaml:2: sink.to: ");
        assertThat(errors("""
                source: stdin
                sink: {type: send, host: h1, port: 7691, to: ["h2:7691"], key: k}
                """)).containsExactly(
                "p.yaml:2: sink.to: give either to (several receivers) or host and port (one), not both");
        assertThat(errors("""
                source: stdin
                sink: {type: send, host: h1, key: k}
                """)).containsExactly(
                "p.yaml:2: sink.port: missing (sink 'send' needs host and port, or to: a list of HOST:PORT)");
        assertThat(errors("""
                source: stdin
                sink: {type: send, host: h1, port: 7691, fail-fast: true, key: k}
                """)).containsExactly("p.yaml:2: sink.fail-fast: only with to (several receivers)");
    }

    @Test
    void aRelayIsWrittenAsAReceiveSourceWithForward() {
        // A chain in pipeline files: each middle host writes what it receives and sends it on.
        PipelineConfig c = PipelineConfig.parse("""
                source: {type: receive, port: 7691, key: k, forward: "h3:7692"}
                sink: {type: file, path: %s}
                """.formatted(dir.resolve("out")), "p.yaml", PLUGINS, Map.of());
        assertThat(c.toPipeline().describe()).startsWith("receive on 0.0.0.0:7691 and send to h3:7692 -> ");
        assertThat(errors("""
                source: {type: receive, port: 7691, key: k, forward: h3}
                sink: {type: file, path: /tmp/x}
                """, Map.of())).singleElement().asString().contains("source.forward").contains("must be HOST:PORT");
    }

    @Test
    void commandPluginsAndFiltersParse() {
        PipelineConfig c = PipelineConfig.parse("""
                source: {type: command, argv: [tar, c, .], directory: /tmp, env: [LC_ALL=C], grace: 2s}
                filters:
                  - type: command
                    command: tee copy | wc -c
                    shell: login
                stages: [zstd]
                sink: {type: command, command: tar x, name: untar, linger: 10m}
                """, "p.yaml", PLUGINS, Map.of());
        assertThat(c.describe()).isEqualTo("command -> command -> zstd -> command");
        assertThat(value(c.source(), "argv")).isEqualTo(List.of("tar", "c", "."));
        assertThat(value(c.filters().get(0), "shell")).isEqualTo("login");
        assertThat(value(c.source(), "grace")).isEqualTo(Duration.ofSeconds(2));
        assertThat(value(c.sink(), "linger")).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void aCommandNeedsExactlyOneOfCommandAndArgvAndSaneOptions() {
        assertThat(errors("""
                source: {type: command}
                sink: {type: command, command: cat, argv: [cat]}
                """)).containsExactly(
                "p.yaml:1: source: missing: give command (run by the shell) or argv (a program and its arguments)",
                "p.yaml:2: sink.argv: give command or argv, not both");
        assertThat(errors("""
                source: {type: empty}
                filters:
                  - {type: command, command: cat, shell: bash}
                  - {type: command, argv: [cat], env: [NOEQUALS]}
                  - {type: command, argv: []}
                  - {type: cmd, command: cat}
                sink: stdout
                """)).containsExactly(
                "p.yaml:3: filters[0].shell: must be an absolute path or 'login', got 'bash'",
                "p.yaml:4: filters[1].env: expected NAME=VALUE, got 'NOEQUALS'",
                "p.yaml:5: filters[2].argv: must name a program",
                "p.yaml:6: filters[3].type: unknown filter type 'cmd' (filter types: command)");
        assertThat(errors("""
                source: stdin
                filters: cat
                sink: stdout
                """)).containsExactly("p.yaml:2: filters: expected a list of filters, got 'cat'");
    }
}
