package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.test.util.RaceTestUtils;

/**
 * The END record's counts, which the sink checks, are summed by lanes on several threads at
 * once: none of their additions may be lost.
 */
class TreeReaderCountsTest {

    private static final int RACES = 20_000;

    @Test
    void lanesEndingAtOnceLoseNoneOfTheirCounts() {
        AtomicReference<FluxSink<Chunk>> sink = new AtomicReference<>();
        Disposable subscribed = Flux.<Chunk>create(sink::set).subscribe();
        try {
            TreeReader reader = new TreeReader(Path.of("counted"), TreeSourceOptions.defaults(), sink.get());
            TreeEntry file = new TreeEntry("f", TreeEntry.Kind.FILE, 0644, 0, 1, null, null);
            for (int i = 0; i < RACES; i++) {
                RaceTestUtils.race(() -> reader.fileEnded(file, 1, null), () -> reader.fileEnded(file, 1, null));
                RaceTestUtils.race(() -> reader.failed("a", "gone"), () -> reader.fileEnded(file, 1, "changed"));
            }
            assertThat(reader.okBytes()).isEqualTo(2L * RACES);
            assertThat(reader.failures()).isEqualTo(2L * RACES);
        } finally {
            subscribed.dispose();
        }
    }
}
