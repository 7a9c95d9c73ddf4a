package io.rdmaflux.cli;

import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.PipelineListener;
import io.rdmaflux.pipeline.PipelineResult;
import io.rdmaflux.pipeline.ReceiveSource;
import io.rdmaflux.pipeline.SendSink;
import io.rdmaflux.transport.TransportKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code rdflux selftest}: one stream through the whole stack inside this process (a file
 * source, the channel over loopback, a file sink, as pipelines on the runner rdsend and rdrecv
 * use) and a SHA-256 check of the copy. It checks an
 * installation; the build also runs it to record which classes the tools load, so that later
 * runs start faster (the launchers' class-data-sharing archive).
 */
@Command(name = "selftest", mixinStandardHelpOptions = true, versionProvider = Version.class,
        usageHelpAutoWidth = true,
        description = "Send generated data through the whole stack on loopback inside this process "
            + "(file source, channel, file sink) and check it arrived intact. Exits 0 when it did.")
final class SelftestCommand implements Callable<Integer> {

    @Option(names = "--size", paramLabel = "MIB", defaultValue = "64",
            description = "How much data to send, in MiB. Default: ${DEFAULT-VALUE}.")
    int sizeMib;

    @Mixin
    ChannelFlags flags = new ChannelFlags();

    @Override
    public Integer call() throws IOException {
        Console.configure("rdflux selftest", flags.verbose, flags.debug);
        if (sizeMib < 0) {
            throw new UsageException("--size must not be negative");
        }
        if (flags.transport == TransportKind.AUTO) {
            flags.transport = TransportKind.TCP;
        }
        Path dir = Files.createTempDirectory("rdflux-selftest");
        try {
            Path in = dir.resolve("in.bin");
            Path out = dir.resolve("out.bin");
            String sent = generate(in, (long) sizeMib << 20);
            // The tools' own path: a receiving and a sending pipeline on the shared runner.
            byte[] key = "selftest".getBytes(StandardCharsets.UTF_8);
            Sinks.One<InetSocketAddress> bound = Sinks.one();
            Mono<PipelineResult> receive = Pipeline.from(ReceiveSource.create(0, key).bind("127.0.0.1")
                            .transport(flags.transport).options(flags.options()))
                    .to(FileSink.of(out))
                    .listener(new PipelineListener() {
                        @Override
                        public void onListening(InetSocketAddress address) {
                            bound.tryEmitValue(address);
                        }
                    })
                    .run();
            Mono<PipelineResult> send = Pipeline.from(FileSource.of(in))
                    .to(SendSink.deferred(bound.asMono().map(a -> new InetSocketAddress("127.0.0.1", a.getPort())), key)
                            .transport(flags.transport).options(flags.options()))
                    .run();
            long start = System.nanoTime();
            int code = Runner.run(Mono.when(receive, send));
            if (code != ExitCode.OK) {
                return code;
            }
            double secs = (System.nanoTime() - start) / 1e9;
            if (!sent.equals(sha256(out))) {
                Console.error("FAILED: the copy differs from the data sent");
                return ExitCode.SOFTWARE;
            }
            Console.info(String.format(Locale.ROOT, "ok: %d MiB over %s loopback in %.2f s (%.3f GB/s), SHA-256 verified",
                    sizeMib, flags.transport.name().toLowerCase(Locale.ROOT), secs, ((long) sizeMib << 20) / secs / 1e9));
            return ExitCode.OK;
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /** Writes {@code size} pseudo-random bytes and returns their SHA-256. */
    private static String generate(Path file, long size) throws IOException {
        MessageDigest d = digest();
        SplittableRandom r = new SplittableRandom(size);
        byte[] buf = new byte[1 << 16];
        try (OutputStream o = Files.newOutputStream(file)) {
            for (long left = size; left > 0; ) {
                for (int i = 0; i < buf.length; i += 8) {
                    long v = r.nextLong();
                    for (int k = 0; k < 8; k++) {
                        buf[i + k] = (byte) (v >>> (k * 8));
                    }
                }
                int n = (int) Math.min(buf.length, left);
                o.write(buf, 0, n);
                d.update(buf, 0, n);
                left -= n;
            }
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static String sha256(Path file) throws IOException {
        MessageDigest d = digest();
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), d)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
