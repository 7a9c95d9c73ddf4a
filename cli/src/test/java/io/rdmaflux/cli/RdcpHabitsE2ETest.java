package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * rdcp with the options rsync and scp users type from habit ({@code -av}, {@code -n},
 * {@code -vv}, {@code --bwlimit}), run as users run it against the loopback sshd (hosts h1, h2,
 * h3), its standard output read from a file.
 */
class RdcpHabitsE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private Path tool;
    private final AtomicInteger runs = new AtomicInteger();
    private Path lastOut;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    @BeforeEach
    void wrapper() throws IOException {
        tool = RemoteRdflux.in(dir);
    }

    @Test
    void verboseNamesEachFileCopiedAndDeletedByTheRemoteEndAndTheSummaryCountsThem() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Files.writeString(src.resolve("b.txt"), "b");
        Files.writeString(dir.resolve("src/a.txt"), "a");
        // A name that would set the terminal's title and colour if printed as it is.
        Files.writeString(dir.resolve("src/evil\u001b]0;owned\u0007\u001b[31mred"), "e");
        Path dst = dir.resolve("dst");

        Tool push = rdcp("-av", dir.resolve("src") + "/", "h2:" + dst);
        assertCopied(push);
        List<String> lines = out();
        assertThat(lines).contains("a.txt", "sub/b.txt").hasSize(3);
        assertThat(String.join("\n", lines)).doesNotContain("\u001b").doesNotContain("\u0007").contains("evil?");

        Files.delete(dir.resolve("src/a.txt"));
        Files.writeString(dir.resolve("src/c.txt"), "c");
        Tool sync = rdcp("-av", "--sync", "--delete", dir.resolve("src") + "/", "h2:" + dst);
        assertCopied(sync);
        assertThat(out()).containsExactlyInAnyOrder("c.txt", "deleting a.txt");
        assertThat(sync.err()).containsPattern("rdcp: copied 1 file, 1 bytes \\(1 B\\) in [0-9.]+ s; 2 files already "
                + "up to date; 1 deleted\n");

        // -vv: the files that were up to date too; pulled, so named by the sink in this process.
        Path back = dir.resolve("back");
        assertCopied(rdcp("-r", "h2:" + dst + "/", back.toString()));
        assertCopied(rdcp("-vv", "-r", "--sync", "h2:" + dst + "/", back.toString()));
        assertThat(out()).contains("c.txt is uptodate", "sub/b.txt is uptodate");
    }

    @Test
    void aDryRunListsWhatWouldChangeAndLeavesTheDestinationExactlyAsItWas() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/sub"));
        Files.writeString(src.resolve("b.txt"), "b");
        Files.writeString(dir.resolve("src/a.txt"), "a");
        Path dst = dir.resolve("dst");
        assertCopied(rdcp("-r", dir.resolve("src") + "/", "h2:" + dst));
        Files.writeString(dir.resolve("src/a.txt"), "changed");
        Files.writeString(dir.resolve("src/new.txt"), "new");
        Files.writeString(dst.resolve("extra.txt"), "extra");
        Map<String, String> before = exactListing(dst);

        Tool dry = rdcp("-n", "-r", "--sync", "--delete", dir.resolve("src") + "/", "h2:" + dst);
        assertCopied(dry);
        assertThat(out()).containsExactlyInAnyOrder("a.txt", "new.txt", "deleting extra.txt");
        assertThat(dry.err()).contains("rdcp: dry run: nothing was changed; 1 to delete");
        assertThat(exactListing(dst)).isEqualTo(before);

        // Without --sync, into a DST/ that does not exist: named, and nothing made, not even DST.
        Path fresh = dir.resolve("fresh");
        assertCopied(rdcp("-rn", dir.resolve("src").toString(), "h3:" + fresh + "/"));
        assertThat(out()).containsExactlyInAnyOrder("a.txt", "new.txt", "sub/b.txt");
        assertThat(fresh).doesNotExist();
        assertThat(temporaries(dst)).isEmpty();
    }

    @Test
    void aCopyUnderABandwidthLimitIsExact() throws Exception {
        Path big = dir.resolve("big.bin");
        Files2.random(big, 3 * 1048576 + 7, 11);
        Path dst = dir.resolve("dst.bin");
        assertCopied(rdcp("--bwlimit", "64M", big.toString(), "h2:" + dst));
        assertThat(Files2.sha256(dst)).isEqualTo(Files2.sha256(big));
    }

    @Test
    void aRemoteWildcardIsExpandedThereAndNoMatchLeavesNothingBehind() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        for (String n : List.of("a.txt", "b.txt", "x y.txt", "$(touch pwned).txt", "c.log", ".hidden.txt")) {
            Files.writeString(data.resolve(n), n);
        }
        Path dst = dir.resolve("dst");
        Tool t = rdcp("-v", "h1:" + data + "/*.txt", dst + "/");
        assertCopied(t);
        try (Stream<Path> got = Files.list(dst)) {
            assertThat(got.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("a.txt", "b.txt", "x y.txt", "$(touch pwned).txt");
        }
        assertThat(Files.readString(dst.resolve("x y.txt"))).isEqualTo("x y.txt");
        try (Stream<Path> all = Files.walk(dir)) {
            assertThat(all.filter(p -> p.getFileName().toString().equals("pwned"))).as("no shell ran the name").isEmpty();
        }

        Path none = dir.resolve("none");
        Tool miss = rdcp("h1:" + data + "/*.none", none + "/");
        assertThat(miss.exitCode(LIMIT)).isEqualTo(ExitCode.NO_INPUT);
        assertThat(miss.err()).contains("no match for " + data + "/*.none").doesNotContain("\tat ");
        assertThat(none).doesNotExist();
    }

    @Test
    void deleteWithoutADirectoryIsAUsageError() throws Exception {
        Path file = Files.writeString(dir.resolve("one"), "1");
        Tool noR = rdcp("--delete", file.toString(), "h2:" + dir.resolve("x"));
        assertThat(noR.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(noR.err()).isEqualTo("rdcp: --delete removes files inside copied directories: it needs -r (or -a)\n"
                + "rdcp: see 'rdcp --help'\n");
        Tool single = rdcp("-a", "--delete", file.toString(), "h2:" + dir.resolve("x"));
        assertThat(single.exitCode(LIMIT)).isEqualTo(ExitCode.USAGE);
        assertThat(single.err()).startsWith("rdcp: --delete with a single file SRC").doesNotContain("\tat ");
        assertThat(dir.resolve("x")).doesNotExist();
    }

    private Tool rdcp(String... args) {
        List<String> all = new ArrayList<>(List.of("-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool.toString())));
        all.addAll(List.of(args));
        lastOut = dir.resolve("stdout-" + runs.incrementAndGet());
        return Tool.start(dir, "rdcp", ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.to(lastOut.toFile()),
                Map.of("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir), all.toArray(String[]::new));
    }

    /** The last run's standard output, line by line (once it has exited). */
    private List<String> out() throws IOException {
        return Files.readAllLines(lastOut, StandardCharsets.UTF_8);
    }

    private static void assertCopied(Tool t) {
        assertThat(t.exitCode(LIMIT)).as(t.err()).isZero();
    }

    /** Every entry under {@code root} with its type, mode, size, content and mtime in nanoseconds. */
    private static Map<String, String> exactListing(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Map<String, Object> a = Files.readAttributes(p, "unix:mode,size,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
                long nanos = ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS);
                String content = Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? Files2.sha256(p) : "";
                m.put(root.relativize(p).toString(), Integer.toOctalString((Integer) a.get("mode")) + " " + a.get("size")
                        + " " + nanos + " " + content);
            }
        }
        return m;
    }

    private static List<Path> temporaries(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.getFileName().toString().startsWith(".rdflux-")).toList();
        }
    }
}
