package io.rdmaflux.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.connector.FileSource;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.PipelineResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pipeline sample and the sha256 sink plugin, in process. */
class PipelineSampleTest {

    @TempDir
    Path dir;

    @Test
    void theSampleSendsAFileThroughTwoPipelinesIntact() throws Exception {
        byte[] data = new byte[3 << 20];
        new Random(5).nextBytes(data);
        Path in = Files.write(dir.resolve("in.bin"), data);
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            PipelineSample.main(new String[] {in.toString()});
        } finally {
            System.setOut(stdout);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8))
                .contains("sent 3,145,728 bytes", "received 3,145,728 bytes", "zstd:1;level=1", "identical: true");
    }

    @Test
    void theSha256SinkWritesTheDigestOfTheStream() throws Exception {
        byte[] data = new byte[(5 << 20) + 3];
        new Random(6).nextBytes(data);
        Path in = Files.write(dir.resolve("in.bin"), data);
        Path digest = dir.resolve("digest.txt");
        PipelineResult r = Pipeline.from(FileSource.of(in)).to(Sha256Sink.toFile(digest)).run()
                .block(Duration.ofSeconds(60));
        String hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        assertThat(Files.readString(digest)).isEqualTo(hex + "  in.bin" + System.lineSeparator());
        assertThat(r.sink().location()).isEqualTo("sha256:" + hex);
        assertThat(r.sink().bytes()).isEqualTo(data.length);
    }
}
