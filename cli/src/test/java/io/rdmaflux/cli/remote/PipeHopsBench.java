package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Splits what rdpipe's 3-hop chain ({@code h1:'< file' h2:cat h3:'> copy'}) costs more than the
 * direct one ({@code h1:'< file' h2:'> copy'}) into a fixed part and a per-byte part: both chains
 * at several sizes (the smallest one byte), rounds and builds interleaved, medians printed with
 * the CPU time the warm agents' daemon and the whole machine spent per run. Run by {@code
 * scripts/bench-rdpipe-hops}. Arguments: DIR WARM_DIR ROUNDS SIZES BUILD..., where SIZES is a
 * comma-separated list of bytes ({@code 1,67108864}) and each BUILD is {@code
 * LABEL=RDPIPE=RDFLUX_PATH}; the files are written under DIR, the daemon is told by its
 * {@code --warm-dir WARM_DIR}.
 */
public final class PipeHopsBench {

    /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
    private static final double HZ = 100.0;
    /** HOPS_TRACE=1: each run with --debug, its stderr lines stamped with milliseconds since its start. */
    private static final boolean TRACE = System.getenv("HOPS_TRACE") != null;
    /** HOPS_STRACE=DIR: each measured run's daemon under strace -f (its read, write and ioctl calls), one file per run in DIR. */
    private static final String STRACE = System.getenv("HOPS_STRACE");
    private static String straceName;
    /** HOPS_PERF=1 with HOPS_STRACE=DIR: perf record -g of the daemon instead of strace. */
    private static final boolean PERF = System.getenv("HOPS_PERF") != null;
    /** HOPS_ONLY_3HOP=1: the measured rounds run the 3-hop chain alone (for a profile of it). */
    private static final boolean ONLY_3HOP = System.getenv("HOPS_ONLY_3HOP") != null;

    private PipeHopsBench() {
    }

    /** One run's figures. */
    private record Run(long ms, double daemonCpu, double machineCpu) {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String warmDir = args[1];
        int rounds = Integer.parseInt(args[2]);
        long[] sizes = Arrays.stream(args[3].split(",")).mapToLong(Long::parseLong).toArray();
        List<String[]> builds = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            builds.add(args[i].split("=", 4));
        }
        Path copy = dir.resolve("copy");
        Path[] files = new Path[sizes.length];
        for (int s = 0; s < sizes.length; s++) {
            files[s] = dir.resolve("file-" + sizes[s]);
            write(files[s], sizes[s]);
        }
        // [build][size][chain][round]
        Run[][][][] runs = new Run[builds.size()][sizes.length][2][rounds];
        try (SshServer sshd = SshServer.start()) {
            for (int b = 0; b < builds.size(); b++) {
                for (int c = 0; c < 2; c++) {
                    once(chain(sshd, builds.get(b), files[0], copy, c), copy, sizes[0], warmDir); // warm up
                }
            }
            for (int r = 0; r < rounds; r++) {
                for (int s = 0; s < sizes.length; s++) {
                    for (int b = 0; b < builds.size(); b++) {
                        for (int c = ONLY_3HOP ? 1 : 0; c < 2; c++) {
                            straceName = builds.get(b)[0] + "-" + sizes[s] + "-" + (c == 0 ? "direct" : "3hop") + "-" + r;
                            runs[b][s][c][r] = once(chain(sshd, builds.get(b), files[s], copy, c), copy, sizes[s], warmDir);
                        }
                    }
                }
                System.out.printf(Locale.ROOT, "round %d of %d done, load average %s%n", r + 1, rounds, load());
            }
        } finally {
            Files.deleteIfExists(copy);
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
        report(builds, sizes, runs);
    }

    private static void report(List<String[]> builds, long[] sizes, Run[][][][] runs) {
        System.out.println("build       size  direct ms  3-hop ms  extra ms  ratio  daemon CPU-s direct/3-hop  machine CPU-s direct/3-hop");
        if (ONLY_3HOP) {
            for (int b = 0; b < builds.size(); b++) {
                for (int s = 0; s < sizes.length; s++) {
                    System.out.printf(Locale.ROOT, "%-8s %9s 3-hop %.0f ms, daemon %.2f CPU-s%n", builds.get(b)[0], size(sizes[s]),
                            median(runs[b][s][1], Run::ms), median(runs[b][s][1], Run::daemonCpu));
                }
            }
            return;
        }
        for (int b = 0; b < builds.size(); b++) {
            double[] extra = new double[sizes.length];
            for (int s = 0; s < sizes.length; s++) {
                Run[] d = runs[b][s][0];
                Run[] h = runs[b][s][1];
                double dm = median(d, Run::ms);
                double hm = median(h, Run::ms);
                extra[s] = hm - dm;
                System.out.printf(Locale.ROOT, "%-8s %9s %10.0f %9.0f %9.0f %6.2f %12.2f / %-12.2f %10.2f / %-10.2f runs %s | %s%n",
                        builds.get(b)[0], size(sizes[s]), dm, hm, extra[s], dm / hm, median(d, Run::daemonCpu),
                        median(h, Run::daemonCpu), median(d, Run::machineCpu), median(h, Run::machineCpu),
                        Arrays.toString(Arrays.stream(d).mapToLong(Run::ms).toArray()),
                        Arrays.toString(Arrays.stream(h).mapToLong(Run::ms).toArray()));
            }
            // Least squares of the extra time over the sizes: its intercept is the fixed part.
            double n = sizes.length;
            double sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (int s = 0; s < sizes.length; s++) {
                double x = sizes[s] / 1048576.0;
                sx += x;
                sy += extra[s];
                sxx += x * x;
                sxy += x * extra[s];
            }
            double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
            double intercept = (sy - slope * sx) / n;
            System.out.printf(Locale.ROOT, "%s: 3-hop extra = %.0f ms fixed + %.2f ms per MiB (%.2f s per GiB)%n",
                    builds.get(b)[0], intercept, slope, slope * 1024 / 1000);
        }
    }

    private interface Figure {
        double of(Run r);
    }

    private static double median(Run[] runs, Figure f) {
        double[] v = Arrays.stream(runs).mapToDouble(f::of).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String size(long bytes) {
        return bytes < 1048576 ? bytes + " B" : bytes / 1048576 + " MiB";
    }

    private static List<String> chain(SshServer sshd, String[] build, Path file, Path copy, int hops) {
        String q = ShellWords.quote(file.toString());
        String c = ShellWords.quote(copy.toString());
        List<String> argv = new ArrayList<>(List.of(build[1], "-e", sshd.rsh(), "--rdflux-path", ShellWords.quote(build[2])));
        if (TRACE) {
            argv.add("--debug");
        }
        argv.add("h1:< " + q);
        if (hops == 1) {
            argv.add("h2:" + (build.length > 3 ? build[3] : "cat"));
            argv.add("h3:> " + c);
        } else {
            argv.add("h2:> " + c);
        }
        return argv;
    }

    /** One run, timed; fails unless it exits 0 with a copy of the right size. */
    private static Run once(List<String> command, Path copy, long size, String warmDir) throws IOException, InterruptedException {
        Files.deleteIfExists(copy);
        Process strace = null;
        if (STRACE != null && straceName != null) {
            List<String> st = new ArrayList<>(PERF
                    ? List.of("perf", "record", "-q", "-g", "-o", STRACE + "/" + straceName + ".perf")
                    : List.of("strace", "-f", "-qq", "-e", "trace=read,write,ioctl,pread64,writev,readv",
                            "-o", STRACE + "/" + straceName));
            for (long pid : daemons(warmDir)) {
                st.add(PERF ? "--pid=" + pid : "-p");
                if (!PERF) {
                    st.add(Long.toString(pid));
                }
            }
            strace = new ProcessBuilder(st).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            Thread.sleep(1000); // strace attaches to every thread
        }
        double daemon0 = daemonCpu(warmDir);
        double machine0 = machineCpu();
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(TRACE ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.INHERIT).start();
        if (TRACE) {
            System.out.println("== " + String.join(" ", command));
            try (java.io.BufferedReader err = p.errorReader()) {
                for (String line; (line = err.readLine()) != null; ) {
                    System.out.printf(Locale.ROOT, "%6d %s%n", (System.nanoTime() - start) / 1_000_000, line);
                }
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(command + " did not end in 10 minutes");
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        double machine = machineCpu() - machine0;
        double daemon = daemonCpu(warmDir) - daemon0;
        if (strace != null) {
            if (PERF) {
                new ProcessBuilder("kill", "-INT", Long.toString(strace.pid())).start().waitFor();
            } else {
                strace.destroy();
            }
            strace.waitFor(30, TimeUnit.SECONDS);
        }
        if (p.exitValue() != 0 || Files.size(copy) != size) {
            throw new IllegalStateException(command + " failed: exit " + p.exitValue());
        }
        return new Run(ms, daemon, machine);
    }

    /** CPU seconds (user and system) of the warm agents' daemons whose command names {@code warmDir}. */
    private static double daemonCpu(String warmDir) {
        double sum = 0;
        for (long pid : daemons(warmDir)) {
            sum += processCpu(pid);
        }
        return sum;
    }

    private static List<Long> daemons(String warmDir) {
        List<Long> pids = new ArrayList<>();
        for (ProcessHandle h : ProcessHandle.allProcesses().toList()) {
            String[] a = h.info().arguments().orElse(new String[0]);
            List<String> args = Arrays.asList(a);
            int i = args.indexOf("--warm-dir");
            if (args.contains("--daemon") && i >= 0 && i + 1 < a.length && a[i + 1].equals(warmDir)) {
                pids.add(h.pid());
            }
        }
        return pids;
    }

    private static double processCpu(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.US_ASCII);
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // Fields 14 and 15 (utime, stime), counted from the state (field 3) at index 0.
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / HZ;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** CPU seconds the whole machine spent busy so far (all but idle and iowait), from /proc/stat. */
    private static double machineCpu() throws IOException {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long busy = 0;
        for (int i = 1; i < f.length && i <= 8; i++) {
            if (i != 4 && i != 5) {
                busy += Long.parseLong(f[i]);
            }
        }
        return busy / HZ;
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }

    private static void write(Path file, long size) throws IOException {
        Random random = new Random(size);
        byte[] block = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long left = size; left > 0; left -= block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(left, block.length));
            }
        }
    }
}
