package io.rdmaflux.connector;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How messages word a command's end: a table, no processes. */
class ExitTextTest {

    @ParameterizedTest(name = "status {0}")
    @CsvSource(delimiter = '|', textBlock = """
            0   | exited with status 0
            1   | exited with status 1
            3   | exited with status 3
            125 | exited with status 125
            126 | exited with status 126 (not executable)
            127 | exited with status 127 (command not found)
            128 | exited with status 128
            129 | was killed by signal 1 (HUP)
            130 | was killed by signal 2 (INT)
            131 | was killed by signal 3 (QUIT)
            134 | was killed by signal 6 (ABRT)
            137 | was killed by signal 9 (KILL)
            139 | was killed by signal 11 (SEGV)
            141 | was killed by signal 13 (PIPE)
            143 | was killed by signal 15 (TERM)
            144 | was killed by signal 16
            192 | was killed by signal 64
            193 | exited with status 193
            255 | exited with status 255
            -1  | exited with status -1
            """)
    void describesAnExitStatus(int status, String text) {
        assertThat(ExitText.describe(status)).isEqualTo(text);
    }

    @ParameterizedTest(name = "{0} ms")
    @CsvSource(delimiter = '|', textBlock = """
            0      | 0 s
            300    | 300 ms
            1000   | 1 s
            1500   | 1500 ms
            5000   | 5 s
            60000  | 60 s
            """)
    void showsAGraceOrLinger(long millis, String text) {
        assertThat(ExitText.seconds(Duration.ofMillis(millis))).isEqualTo(text);
    }
}
