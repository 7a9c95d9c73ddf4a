package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * rdpipe's throughput through the loopback sshd (hosts h1, h2, h3 on 127.0.0.1/.2/.3): a file
 * from h1 to a copy on h2 with {@code rdpipe h1:'< file' h2:'> copy'}, through a 3-hop chain
 * {@code h1:'< file' h2:'cat' h3:'> copy'}, and through {@code ssh h1 cat file | ssh h2 'cat >
 * copy'}; rounds alternated, medians and their ratios printed. Run by {@code
 * scripts/bench-rdpipe}. Arguments: RDPIPE RDFLUX_PATH FILE [ROUNDS].
 */
public final class PipeBench {

    private PipeBench() {
    }

    public static void main(String[] args) throws Exception {
        String rdpipe = args[0];
        String tool = args[1];
        Path file = Path.of(args[2]);
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Path copy = file.resolveSibling("copy");
        long size = Files.size(file);
        try (SshServer sshd = SshServer.start()) {
            String q = ShellWords.quote(file.toString());
            String c = ShellWords.quote(copy.toString());
            List<List<String>> ways = List.of(
                    List.of(rdpipe, "-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool), "h1:< " + q, "h2:> " + c),
                    List.of(rdpipe, "-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(tool), "h1:< " + q, "h2:cat",
                            "h3:> " + c),
                    List.of("bash", "-c", sshd.rsh() + " h1 cat " + q + " | " + sshd.rsh() + " h2 "
                            + ShellWords.quote("cat > " + c)));
            String[] names = {"rdpipe h1:'< file' h2:'> copy'", "rdpipe h1:'< file' h2:cat h3:'> copy'",
                "ssh h1 cat file | ssh h2 'cat > copy'"};
            long[][] ms = new long[ways.size()][rounds];
            for (List<String> w : ways) {
                time(w, copy, size); // warm up: page cache, CDS, sshd
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < ways.size(); i++) {
                    ms[i][r] = time(ways.get(i), copy, size);
                }
            }
            double[] rate = new double[ways.size()];
            for (int i = 0; i < ways.size(); i++) {
                Arrays.sort(ms[i]);
                long median = ms[i][rounds / 2];
                rate[i] = size / (median / 1000.0) / 1e6;
                System.out.printf(Locale.ROOT, "%-42s median %6d ms  %7.1f MB/s  (runs: %s)%n", names[i], median, rate[i],
                        Arrays.toString(ms[i]));
            }
            System.out.printf(Locale.ROOT, "direct / ssh pipe: %.2f   3-hop / direct: %.2f%n", rate[0] / rate[2],
                    rate[1] / rate[0]);
        } finally {
            Files.deleteIfExists(copy);
        }
    }

    /** Milliseconds for one run; fails unless it exits 0 with a copy of the right size. */
    private static long time(List<String> command, Path copy, long size) throws IOException, InterruptedException {
        Files.deleteIfExists(copy);
        long start = System.nanoTime();
        Process p = new ProcessBuilder(new ArrayList<>(command)).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (!p.waitFor(30, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(command + " did not end in 30 minutes");
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (p.exitValue() != 0 || Files.size(copy) != size) {
            throw new IllegalStateException(command + " failed: exit " + p.exitValue());
        }
        return ms;
    }
}
