package io.rdmaflux.cli;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.transport.TransportProvider;
import io.rdmaflux.transport.TransportProviders;
import io.rdmaflux.transport.rdma.RdmaTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;

/** {@code rdflux doctor}: what this machine offers the tools, and what to fix. */
@Command(name = "doctor", mixinStandardHelpOptions = true, versionProvider = Version.class,
        usageHelpAutoWidth = true,
        description = "Report what this machine offers rdma-flux: Java, transports (and why one is not "
            + "usable), RDMA devices and ports, the locked-memory limit against what the buffers need, "
            + "and the codec implementations. Exits 0 when at least TCP works.")
final class DoctorCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        Console.configure("rdflux", false, false);
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"version", Version.text()});
        rows.add(new String[] {"java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + " at " + System.getProperty("java.home")});
        rows.add(new String[] {"machine", System.getProperty("os.name") + " " + System.getProperty("os.arch") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, max heap "
                + Meter.human(Runtime.getRuntime().maxMemory())});
        // Every transport found, the fallback first; RDMA's devices and memory limit after its line.
        List<TransportProvider> transports = new ArrayList<>(TransportProviders.all());
        transports.sort(Comparator.comparingInt(TransportProvider::autoOrder));
        List<String> auto = new ArrayList<>();
        for (TransportProvider t : transports) {
            rows.add(new String[] {t.name(), t.status()});
            if (t.name().equals("rdma")) {
                rows.addAll(devices());
                rows.add(memlock());
            }
            if (t.autoOrder() >= 0 && t.unavailableReason() == null) {
                auto.add(0, TransportProviders.display(t.name()));
            }
        }
        rows.add(new String[] {"auto", auto.isEmpty() ? "no transport usable"
                : auto.size() == 1 ? "uses " + auto.get(0)
                : "uses " + auto.get(0) + ", falls back to " + String.join(", then ", auto.subList(1, auto.size()))
                        + " per connection"});
        rows.add(new String[] {"zstd", io.rdmaflux.codec.ZstdStage.describe()});
        rows.add(new String[] {"aes", io.rdmaflux.codec.AesGcmStage.provider()});
        for (String[] r : rows) {
            Console.stdout().printf(Locale.ROOT, "%-10s %s%n", r[0], r[1]);
        }
        return ExitCode.OK;
    }

    /** RDMA devices and their ports, read from sysfs so it works without the native library. */
    private static List<String[]> devices() {
        List<String[]> out = new ArrayList<>();
        Path root = Path.of("/sys/class/infiniband");
        if (!Files.isDirectory(root)) {
            out.add(new String[] {"devices", "none (no /sys/class/infiniband: no RDMA driver loaded)"});
            return out;
        }
        try (Stream<Path> devs = Files.list(root)) {
            for (Path dev : devs.sorted().toList()) {
                Path ports = dev.resolve("ports");
                try (Stream<Path> ps = Files.list(ports)) {
                    for (Path p : ps.sorted().toList()) {
                        out.add(new String[] {"device", dev.getFileName() + " port " + p.getFileName() + ": "
                                + read(p.resolve("state")) + ", " + read(p.resolve("link_layer")) + ", "
                                + read(p.resolve("rate"))});
                    }
                }
            }
        } catch (IOException e) {
            out.add(new String[] {"devices", "cannot list: " + e.getMessage()});
        }
        if (out.isEmpty()) {
            out.add(new String[] {"devices", "none"});
        }
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    /** The locked-memory limit against what one connection's registered buffers need. */
    private static String[] memlock() {
        ChannelOptions o = ChannelOptions.defaults();
        // A host that relays (rdpipe's middle hops) receives one stream and sends one.
        long receiving = RdmaTransport.registeredBytesReceiving(o.transportOptions());
        long sending = RdmaTransport.registeredBytesSending(o.transportOptions());
        long need = receiving + sending;
        String limit = "unknown";
        long bytes = -2;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max locked memory")) {
                    String soft = line.substring(26).trim().split("\\s+")[0];
                    if (soft.equals("unlimited")) {
                        bytes = -1;
                        limit = "unlimited";
                    } else {
                        bytes = Long.parseLong(soft);
                        limit = Meter.human(bytes);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            limit = "unknown (" + e.getMessage() + ")";
        }
        String verdict;
        if (bytes == -1 || bytes >= need) {
            verdict = "ok";
        } else if (bytes >= 0) {
            verdict = "TOO LOW for RDMA; raise it: add '* soft memlock unlimited' and '* hard memlock unlimited' to "
                    + "/etc/security/limits.d/rdma.conf and log in again (or run 'ulimit -l unlimited' as root)";
        } else {
            verdict = "could not be read";
        }
        return new String[] {"memlock", limit + "; RDMA buffers need " + Meter.human(receiving) + " per stream received and "
                + Meter.human(sending) + " per stream sent (" + Meter.human(o.frameSize()) + " frames, " + o.receiveSlots()
                + " receive and " + o.sendSlots() + " send slots): " + verdict};
    }
}
