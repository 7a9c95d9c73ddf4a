package io.rdmaflux.connector;

import static io.rdmaflux.connector.TestSupport.collect;
import static io.rdmaflux.connector.TestSupport.randomBytes;
import static io.rdmaflux.connector.TestSupport.randomFile;
import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.protocol.StreamMetadata;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Source#transformStream}: the wrappers of PipeEnd and the tools' signal guard rely on it. */
class SourceTransformTest {

    @Test
    void appliesTheOperatorToEachOpenAndKeepsWhatTheSourceSaysOfItself(@TempDir Path dir) throws Exception {
        Path file = randomFile(dir, "data.bin", 100_003, 7);
        Source plain = FileSource.of(file);
        AtomicInteger opened = new AtomicInteger();
        Source wrapped = plain.transformStream(data -> data.doOnSubscribe(s -> opened.incrementAndGet()));

        assertThat(collect(wrapped.open())).isEqualTo(randomBytes(100_003, 7));
        assertThat(collect(wrapped.open())).hasSize(100_003);
        assertThat(opened).hasValue(2);
        assertThat(wrapped.name()).isEqualTo(plain.name()).contains("data.bin");
        assertThat(wrapped.size()).isEqualTo(plain.size()).hasValue(100_003);
        assertThat(wrapped.describe()).isEqualTo(plain.describe());
        StreamMetadata base = StreamMetadata.empty().with("owner", "x");
        assertThat(wrapped.metadata(base)).isEqualTo(plain.metadata(base));
    }

    @Test
    void aHeldSourceKeepsItsNameAndSize(@TempDir Path dir) throws Exception {
        Path file = randomFile(dir, "held.bin", 10, 1);
        Source held = PipeEnd.held(FileSource.of(file));
        assertThat(held.name()).contains("held.bin");
        assertThat(held.size()).hasValue(10);
        assertThat(collect(held.open())).isEqualTo(randomBytes(10, 1));
    }
}
