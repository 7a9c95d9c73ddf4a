package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** rdcp -v's "sent" line: the stream's bytes against the files written, with the share when a resume or sync saved some. */
class SentLineTest {

    @Test
    void aResumeShowsTheShareThatWasSent() {
        assertThat(SentLine.of(52_428_900, 134_217_728))
                .isEqualTo("sent 52428900 bytes (50.00 MiB) for 134217728 bytes (128.00 MiB) of files written (39%)");
    }

    @Test
    void aWholeCopyHasNoShareAndNothingWrittenSaysSo() {
        assertThat(SentLine.of(1_100, 1_000)).isEqualTo("sent 1100 bytes (1.07 KiB) for 1000 bytes (1000 B) of files written");
        assertThat(SentLine.of(300, 0)).isEqualTo("sent 300 bytes (300 B) for 0 bytes (0 B) of files written");
        assertThat(SentLine.of(300, -1)).endsWith("for 0 bytes (0 B) of files written");
    }
}
