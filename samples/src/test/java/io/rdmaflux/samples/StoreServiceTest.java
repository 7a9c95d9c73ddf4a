package io.rdmaflux.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage service sample, run in process over TCP on loopback: 20 streams of 64 KiB into a
 * store with room for 16. Exactly 16 are stored, whole, each with its trace id; 4 are refused as
 * "store full" and leave nothing behind; the receiver's meters say the same.
 */
class StoreServiceTest {

    private static final int SIZE = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void manyStreamsAreStoredWithinTheBudgetAndTheRestRefused() throws IOException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StoreService.Sent sent;
        List<String> traced;
        try (StoreService store = StoreService.start(dir, 16L * SIZE, "k", registry)) {
            sent = StoreService.sendMany(store.port(), "k", 20, SIZE).block(Duration.ofSeconds(60));
            traced = store.traceIds().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted().toList();
        }
        assertThat(sent.stored()).hasSize(16);
        assertThat(sent.refused()).hasSize(4).allSatisfy((name, message) ->
                assertThat(message).startsWith("receiver reported: store full: " + name + " needs 65536 bytes"));
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList()))
                    .as("the stored files, and no partial one").isEqualTo(sent.stored());
        }
        for (String name : sent.stored()) {
            assertThat(ByteBuffer.wrap(Files.readAllBytes(dir.resolve(name))))
                    .as(name).isEqualTo(StoreService.content(name, SIZE));
        }
        assertThat(traced).isEqualTo(sent.stored().stream().map(n -> n + "=trace-" + n).sorted().toList());
        // The receiver reports each outcome once its connection has closed, maybe after its sender.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            assertThat(registry.get("rdmaflux.streams").tag("side", "receiver").tag("result", "succeeded")
                    .counter().count()).isEqualTo(16);
            assertThat(registry.get("rdmaflux.stream.failures").tag("side", "receiver").tag("code", "SINK_FAILED")
                    .counter().count()).isEqualTo(4);
        });
        assertThat(IntStream.range(0, 20).mapToObj(i -> "obj-" + i))
                .containsAll(sent.stored()).containsAll(sent.refused().keySet());
    }
}
