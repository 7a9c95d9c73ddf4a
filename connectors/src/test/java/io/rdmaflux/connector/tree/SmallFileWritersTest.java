package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small-file writers report every queued file, whatever happened to it on the writer thread. */
class SmallFileWritersTest {

    @TempDir
    Path dir;

    @Test
    void aWrittenFileIsReportedAndInPlace() throws IOException {
        SmallFileWriters writers = new SmallFileWriters(2, new TreeFiles(dir, false));
        AtomicReference<Exception> outcome = new AtomicReference<>(new Exception("not reported"));
        queue(writers, "a", outcome);

        assertTimeoutPreemptively(Duration.ofSeconds(30), writers::awaitAll);
        writers.stop();

        assertThat(outcome.get()).isNull();
        assertThat(Files.readAllBytes(dir.resolve("a"))).containsExactly(1, 2, 3);
    }

    @Test
    void anErrorOnTheWriterThreadIsReportedAsTheFilesFailureAndNothingIsLeftBehind() throws IOException {
        TreeFiles failing = new TreeFiles(dir, false) {
            @Override
            void place(Path file, Path target, TreeEntry entry) {
                throw new ExceptionInInitializerError("a class failed to initialize");
            }
        };
        SmallFileWriters writers = new SmallFileWriters(2, failing);
        AtomicReference<Exception> outcome = new AtomicReference<>();
        queue(writers, "a", outcome);

        // Before the fix the Error ended the writer's task unreported, and this waited for ever.
        assertTimeoutPreemptively(Duration.ofSeconds(30), writers::awaitAll);
        writers.stop();

        assertThat(outcome.get()).isInstanceOf(IOException.class)
                .hasMessageContaining("could not write a").hasMessageContaining("a class failed to initialize");
        try (var left = Files.list(dir)) {
            assertThat(left).as("the temporary file is removed").isEmpty();
        }
        // The buffer came back: the whole budget can be taken again.
        for (int i = 0; i < SmallFileWriters.QUEUED_FILES; i++) {
            assertThat(writers.take(3)).isNotNull();
        }
    }

    private void queue(SmallFileWriters writers, String path, AtomicReference<Exception> outcome)
            throws IOException {
        ByteBuffer contents = writers.take(3);
        contents.put(new byte[] {1, 2, 3}).flip();
        TreeEntry entry = new TreeEntry(path, TreeEntry.Kind.FILE, 0644, 1_000_000_000L, 3, null, null);
        writers.queue(new SmallFileWriters.Job(entry, dir.resolve(path), true, contents,
                outcome::set));
    }
}
