package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sender's words reach the receiving user's terminal only sanitized: {@code rdflux run}
 * writing a tree from its stdin, fed a stream crafted from docs/tree-format.md whose warning
 * notice would retitle the terminal (ESC ] 0; title BEL) and whose entry path would clear it
 * (ESC [ 2 J); and rdcp pulling from another host (the loopback sshd) a tree whose file name
 * holds the same. Each is printed, none is obeyed.
 */
class HostileTextE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    /** The tree stream's records, written by hand (docs/tree-format.md), as a hostile sender would. */
    private static final class Stream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);

        Stream() throws IOException {
            out.write("RDTR".getBytes(StandardCharsets.US_ASCII));
            out.writeShort(1);
            out.writeShort(0);
        }

        Stream entry(int id, int kind, String path) throws IOException {
            byte[] p = path.getBytes(StandardCharsets.UTF_8);
            out.writeByte(1);
            out.writeInt(28 + p.length);
            out.writeInt(id);
            out.writeByte(kind);
            out.writeByte(0);
            out.writeShort(0755);
            out.writeLong(1_000_000_000_000_000_000L);
            out.writeLong(0);
            out.writeShort(p.length);
            out.write(p);
            out.writeShort(0);
            return this;
        }

        Stream warning(String path, String message) throws IOException {
            byte[] p = path.getBytes(StandardCharsets.UTF_8);
            byte[] m = message.getBytes(StandardCharsets.UTF_8);
            out.writeByte(5);
            out.writeInt(5 + p.length + m.length);
            out.writeByte(1);
            out.writeShort(p.length);
            out.write(p);
            out.writeShort(m.length);
            out.write(m);
            return this;
        }
    }

    @Test
    void aHostileNoticeAndPathAreShownEscapedNeverObeyed() throws IOException {
        Path stream = Files.write(dir.resolve("hostile.tree"), new Stream()
                .entry(0, 2, "")
                .warning("a\u001b]0;pwned\u0007", "skipped\u001b]0;retitled\u0007 \u001b[2Jand cleared\u202e")
                .entry(1, 2, "../\u001b[2Jx")
                .bytes.toByteArray());
        Files.writeString(dir.resolve("p.yaml"), "source: stdin\nsink: {type: tree, path: out}\n");
        Files.createDirectory(dir.resolve("no-plugins"));
        Tool t = Tool.start(dir, "rdflux", ProcessBuilder.Redirect.from(stream.toFile()), ProcessBuilder.Redirect.PIPE,
                Map.of("RDFLUX_PLUGINS", dir.resolve("no-plugins").toString()), "run", "p.yaml");
        assertThat(t.exitCode(LIMIT)).as("rdflux run: %s", t.err()).isEqualTo(ExitCode.DATA);
        assertThat(t.err()).doesNotContain("\u001b").doesNotContain("\u0007").doesNotContain("\u202e");
        assertThat(t.err().lines()).containsExactly(
                "rdflux: warning: a?: skipped? ?and cleared?",
                "rdflux: refused tree stream: entry 1 '../?x': a '..' component would leave the destination; "
                        + "no partial file left");
    }

    @Test
    void aRemoteFileNameInAWarningIsShownEscapedNeverObeyed() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Files.writeString(src.resolve("plain"), "p");
        // A FIFO (made here, in the test's directory) is skipped by the sending end with a warning naming it.
        Process mk = new ProcessBuilder("mkfifo", src.resolve("fifo\u001b]0;pwned\u0007\u001b[2J").toString())
                .inheritIO().start();
        assertThat(mk.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mk.exitValue()).as("mkfifo").isZero();
        Path dst = dir.resolve("dst");
        Tool t = Tool.start(dir, "rdcp", "-e", sshd.rsh(), "--rdflux-path",
                ShellWords.quote(Tool.HOME.resolve("bin/rdflux").toString()), "-r", "h1:" + src, dst.toString());
        assertThat(t.exitCode(LIMIT)).as("rdcp: %s", t.err()).isZero();
        assertThat(t.err()).doesNotContain("\u001b").doesNotContain("\u0007").contains("fifo??");
        assertThat(Files.readString(dst.resolve("plain"))).isEqualTo("p");
    }
}
