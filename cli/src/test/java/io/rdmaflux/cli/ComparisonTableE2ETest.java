package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteRdflux;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.cli.remote.ShellWords;
import io.rdmaflux.cli.remote.SshFixture;
import io.rdmaflux.testing.SpecialFiles;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/user-guide.md's table of rdcp against {@code rsync -a} and {@code scp -r} says what the
 * tools do: one tree of the table's cases is copied by each (rdcp and scp through the loopback
 * sshd, rsync locally), and every cell must be what this test finds in that tool's copy.
 * A tool that is not installed has its column skipped, with the reason, unless
 * {@value SshFixture#REQUIRE_ENV} is set (CI), where that fails.
 */
class ComparisonTableE2ETest {

    @RegisterExtension
    static final SshFixture sshd = new SshFixture();

    private static final Path GUIDE = Tool.HOME.resolve("docs/user-guide.md");
    /** The paragraph the table follows in the guide. */
    private static final String MARKER = "**Compared with rsync and scp.**";
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final List<String> TOOLS = List.of("rdcp -r", "rsync -a", "scp -r");
    private static final Path SFTP_SERVER = Path.of("/usr/lib/openssh/sftp-server");

    private static final long FILE_TIME = 1_600_000_000_123_456_789L;
    private static final long DIR_TIME = 1_500_000_000_987_654_321L;
    private static final long LINK_TIME = 1_400_000_000_555_555_555L;

    @TempDir
    Path dir;

    @RegisterExtension
    final NothingLeftRunning nothingLeft = NothingLeftRunning.markedBy(() -> dir).andNoSessionsOf(sshd);

    /** What one tool made of the tree: its copy, its stderr and exit status, and what its second run did. */
    private record Run(Path copy, String err, int exit, String rerun) {
    }

    /** The table's rows: the first column, and how a cell is found from a tool's copy. */
    private static Map<String, Function<Run, String>> rows() {
        Map<String, Function<Run, String>> r = new LinkedHashMap<>();
        r.put("file mode 0640", x -> mode(x, "plain", 0640));
        r.put("directory mode 1777 (sticky)", x -> mode(x, "sticky", 01777));
        r.put("directory mode 2755 (setgid)", x -> mode(x, "setgid", 02755));
        r.put("file modes 4755 and 2755 (setuid, setgid)", ComparisonTableE2ETest::setId);
        r.put("file mtime", x -> time(x, "plain", FILE_TIME));
        r.put("directory mtime", x -> time(x, "dated", DIR_TIME));
        r.put("symbolic link", ComparisonTableE2ETest::link);
        r.put("symbolic link's own mtime", x -> isLink(x.copy.resolve("link")) ? time(x, "link", LINK_TIME) : "-");
        r.put("hard links", ComparisonTableE2ETest::hardLinks);
        r.put("holes (8 MiB file, 4 KiB of data)", ComparisonTableE2ETest::holes);
        r.put("FIFO and device", ComparisonTableE2ETest::specials);
        r.put("exit status", x -> Integer.toString(x.exit));
        r.put("second run (rdcp with --sync)", Run::rerun);
        return r;
    }

    @Test
    void theUserGuidesComparisonTableSaysWhatEachToolDoes() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")),
                "the table is for copies made as root (devices, set-id bits), and this runs as "
                        + System.getProperty("user.name"));
        Path src = tree(Files.createDirectory(dir.resolve("src")).resolve("tree"));

        List<String> missing = new ArrayList<>();
        Map<String, Run> runs = new LinkedHashMap<>();
        runs.put("rdcp -r", run("rdcp", src));
        if (Files.isExecutable(Path.of("/usr/bin/rsync"))) {
            runs.put("rsync -a", run("rsync", src));
        } else {
            missing.add("rsync is not installed (/usr/bin/rsync; Debian: apt-get install rsync)");
        }
        if (Files.isExecutable(Path.of("/usr/bin/scp")) && Files.isExecutable(SFTP_SERVER)) {
            runs.put("scp -r", run("scp", src));
        } else {
            missing.add("scp needs /usr/bin/scp and " + SFTP_SERVER + " (Debian: openssh-client, openssh-sftp-server)");
        }

        Map<String, Function<Run, String>> rows = rows();
        List<List<String>> table = table();
        StringBuilder found = new StringBuilder("| the source has | `rdcp -r` | `rsync -a` | `scp -r` |\n|---|---|---|---|\n");
        for (Map.Entry<String, Function<Run, String>> row : rows.entrySet()) {
            found.append("| ").append(row.getKey());
            for (String t : TOOLS) {
                found.append(" | ").append(runs.containsKey(t) ? row.getValue().apply(runs.get(t)) : "?");
            }
            found.append(" |\n");
        }
        assertThat(table.stream().map(l -> l.get(0)).toList()).as("the table's rows; this test found:\n" + found)
                .containsExactlyElementsOf(rows.keySet());
        for (List<String> line : table) {
            for (int c = 0; c < TOOLS.size(); c++) {
                Run run = runs.get(TOOLS.get(c));
                if (run != null) {
                    assertThat(line.get(c + 1)).as("%s, %s (stderr: %s); this test found:\n%s", line.get(0), TOOLS.get(c),
                            run.err, found).isEqualTo(rows.get(line.get(0)).apply(run));
                }
            }
        }
        if (!missing.isEmpty()) {
            String why = "columns not checked: " + String.join("; ", missing);
            if (System.getenv(SshFixture.REQUIRE_ENV) != null) {
                throw new AssertionError(why + " (" + SshFixture.REQUIRE_ENV + " is set, so this fails)");
            }
            Assumptions.abort(why + " (set " + SshFixture.REQUIRE_ENV + " to fail instead of skipping)");
        }
    }

    /** The rows of the first table after {@link #MARKER}, as cells without backquotes, header and rule left out. */
    private static List<List<String>> table() throws IOException {
        String guide = Files.readString(GUIDE, StandardCharsets.UTF_8);
        int at = guide.indexOf(MARKER);
        assertThat(at).as("'%s' in %s", MARKER, GUIDE).isNotNegative();
        List<List<String>> rows = new ArrayList<>();
        boolean in = false;
        for (String line : guide.substring(at).split("\n")) {
            if (line.startsWith("|")) {
                in = true;
                List<String> cells = new ArrayList<>();
                for (String c : line.substring(1, line.lastIndexOf('|')).split("\\|")) {
                    cells.add(c.strip().replace("`", ""));
                }
                rows.add(cells);
            } else if (in) {
                break;
            }
        }
        assertThat(rows).as("a table after '%s'", MARKER).hasSizeGreaterThan(2);
        assertThat(rows.get(0)).as("the header").containsExactly("the source has", "rdcp -r", "rsync -a", "scp -r");
        return rows.subList(2, rows.size());
    }

    /** The table's cases under {@code root}, with the times set last (a directory's changes with its entries). */
    private static Path tree(Path root) throws Exception {
        Files.createDirectory(root);
        write(root.resolve("plain"), "plain", 0640);
        write(root.resolve("suid"), "suid", 04755);
        write(root.resolve("sgid"), "sgid", 02755);
        Files.createDirectory(root.resolve("sticky"));
        chmod(root.resolve("sticky"), 01777);
        Files.createDirectory(root.resolve("setgid"));
        chmod(root.resolve("setgid"), 02755);
        write(root.resolve("hard-a"), "one file, two names", 0644);
        Files.createLink(root.resolve("hard-b"), root.resolve("hard-a"));
        write(root.resolve("sparse"), "data".repeat(1024), 0644);
        try (RandomAccessFile f = new RandomAccessFile(root.resolve("sparse").toFile(), "rw")) {
            f.setLength(8 << 20);   // the rest a hole
        }
        Path special = Files.createDirectory(root.resolve("special"));
        SpecialFiles.fifo(special.resolve("fifo"));
        SpecialFiles.charDevice(special.resolve("device"));
        Files.createSymbolicLink(root.resolve("link"), Path.of("plain"));
        Path dated = Files.createDirectory(root.resolve("dated"));
        write(dated.resolve("inside"), "inside", 0644);
        Files.setLastModifiedTime(root.resolve("plain"), FileTime.from(FILE_TIME, TimeUnit.NANOSECONDS));
        Files.setLastModifiedTime(dated, FileTime.from(DIR_TIME, TimeUnit.NANOSECONDS));
        exec(List.of("touch", "-h", "-d", "@1400000000.555555555", root.resolve("link").toString()));
        assumeTrue(nanos(root.resolve("link")) == LINK_TIME && nanos(dated) == DIR_TIME,
                "this file system keeps no nanoseconds");
        assumeTrue(allocated(root.resolve("sparse")) < (1 << 20), "this file system makes no holes");
        return root;
    }

    /** Copies {@code src} into a new directory with {@code tool}, twice (the second run as the table's last row says). */
    private Run run(String tool, Path src) throws Exception {
        Path out = Files.createDirectory(dir.resolve("by-" + tool));
        Path copy = out.resolve(src.getFileName().toString());
        Path err = dir.resolve(tool + ".stderr");
        int exit = copy(tool, src, out, false, err);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        Path probe = copy.resolve("hard-a");
        Object before = Files.readAttributes(probe, "unix:ino,ctime", LinkOption.NOFOLLOW_LINKS).toString();
        int again = copy(tool, src, out, true, dir.resolve(tool + "-again.stderr"));
        assertThat(again).as("%s's second run: %s", tool, Files.readString(dir.resolve(tool + "-again.stderr"))).isEqualTo(exit);
        Object after = Files.readAttributes(probe, "unix:ino,ctime", LinkOption.NOFOLLOW_LINKS).toString();
        String rerun = before.equals(after) ? "leaves unchanged files alone" : "writes every file again";
        return new Run(copy, stderr, exit, rerun);
    }

    private int copy(String tool, Path src, Path out, boolean second, Path err) throws Exception {
        List<String> cmd = switch (tool) {
            case "rdcp" -> {
                List<String> c = new ArrayList<>(List.of(Tool.launcher("rdcp"), "-e", sshd.rsh(),
                        "--rdflux-path", ShellWords.quote(remoteTool().toString()), "-r"));
                if (second) {
                    c.add("--sync");
                }
                c.addAll(List.of(src.toString(), "h2:" + out + "/"));
                yield c;
            }
            case "rsync" -> List.of("rsync", "-a", src.toString(), out + "/");
            case "scp" -> List.of("scp", "-r", "-F", sshd.sshConfig().toString(), src.toString(), "h2:" + out + "/");
            default -> throw new IllegalArgumentException(tool);
        };
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile());
        pb.environment().put("RDFLUX_JAVA_OPTS", "-Drdflux.test.marker=" + dir);
        Process p = pb.start();
        if (!p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(tool + " did not exit within " + LIMIT + ": " + Files.readString(err));
        }
        return p.exitValue();
    }

    private Path remoteTool() throws IOException {
        return RemoteRdflux.in(dir);
    }

    private static String mode(Run x, String path, int want) {
        int got = modeOf(x.copy.resolve(path));
        return got == want ? "kept" : String.format("arrives as %04o", got);
    }

    private static String setId(Run x) {
        int u = modeOf(x.copy.resolve("suid"));
        int g = modeOf(x.copy.resolve("sgid"));
        if (u == 04755 && g == 02755) {
            return "kept";
        }
        String s = u == 0755 && g == 0755 ? "dropped" : String.format("arrive as %04o and %04o", u, g);
        return x.err.contains("setuid/setgid bits dropped") ? s + ", with a warning" : s;
    }

    private static String time(Run x, String path, long want) {
        long got = nanos(x.copy.resolve(path));
        if (got == want) {
            return "kept to the nanosecond";
        } else if (got / 1000 == want / 1000) {
            return "kept to the microsecond";
        } else if (got / 1_000_000_000 == want / 1_000_000_000) {
            return "kept to the second";
        }
        return "not kept";
    }

    private static String link(Run x) {
        Path p = x.copy.resolve("link");
        return isLink(p) ? "a link" : Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? "a copy of its target" : "left out";
    }

    private static String hardLinks(Run x) {
        try {
            Object a = Files.getAttribute(x.copy.resolve("hard-a"), "unix:ino");
            Object b = Files.getAttribute(x.copy.resolve("hard-b"), "unix:ino");
            return a.equals(b) ? "kept" : "two separate files";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String holes(Run x) {
        // rdcp's holes are whole reads of zeros (about 1 MiB): its copy holds the first MiB.
        return allocated(x.copy.resolve("sparse")) < (4 << 20) ? "kept" : "filled in";
    }

    private static String specials(Run x) {
        Path fifo = x.copy.resolve("special/fifo");
        Path device = x.copy.resolve("special/device");
        try {
            if (Files.exists(fifo, LinkOption.NOFOLLOW_LINKS) && Files.exists(device, LinkOption.NOFOLLOW_LINKS)
                    && SpecialFiles.type(fifo) == SpecialFiles.S_IFIFO && SpecialFiles.type(device) == SpecialFiles.S_IFCHR) {
                return "recreated";
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        if (Files.exists(fifo, LinkOption.NOFOLLOW_LINKS) || Files.exists(device, LinkOption.NOFOLLOW_LINKS)) {
            return "something else";
        }
        return x.err.contains("fifo") && x.err.contains("device") ? "left out, each named on stderr" : "left out";
    }

    private static boolean isLink(Path p) {
        return Files.isSymbolicLink(p);
    }

    private static int modeOf(Path p) {
        try {
            return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static long nanos(Path p) {
        try {
            return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).to(TimeUnit.NANOSECONDS);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The bytes the file system holds for {@code p} ({@code stat}'s blocks: Java has no call for it). */
    private static long allocated(Path p) {
        String[] blocks = exec(List.of("stat", "-c", "%b %B", p.toString())).strip().split(" ");
        return Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
    }

    private static String exec(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError(cmd + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void write(Path p, String content, int mode) throws IOException {
        Files.writeString(p, content, StandardCharsets.UTF_8);
        chmod(p, mode);
    }

    private static void chmod(Path p, int mode) throws IOException {
        Files.setAttribute(p, "unix:mode", mode);
    }

}
