package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key files as the tools and pipeline files read them. */
class SharedKeyTest {

    @TempDir
    Path dir;

    @Test
    void oneTrailingNewlineIsNotPartOfTheKey() throws Exception {
        assertThat(key("secret\n")).isEqualTo("secret");
        assertThat(key("secret\r\n")).isEqualTo("secret");
        assertThat(key("secret")).isEqualTo("secret");
        assertThat(key("secret\n\n")).isEqualTo("secret\n");
        assertThat(key(" s p \n")).isEqualTo(" s p ");
    }

    @Test
    void aMissingOrEmptyFileIsOneLine() throws Exception {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> SharedKey.fromFile(missing)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key file " + missing + " does not exist");
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        assertThatThrownBy(() -> SharedKey.fromFile(empty)).hasMessage("key file " + empty + " is empty");
        assertThatThrownBy(() -> SharedKey.fromFile(dir)).hasMessageStartingWith("cannot read key file " + dir + ": ");
    }

    @Test
    void aKeyIsAtMost4KiBAndOnlyThatMuchIsRead() throws Exception {
        assertThat(SharedKey.MAX_FILE_KEY).isEqualTo(4096);
        assertThat(key("k".repeat(4096) + "\r\n")).hasSize(4096);
        Path longer = Files.writeString(dir.resolve("longer"), "k".repeat(4097) + "\n");
        assertThatThrownBy(() -> SharedKey.fromFile(longer))
                .hasMessage("key file " + longer + " holds more than 4096 bytes, which is no key (is it the right file?)");
        // Reading /dev/zero (a source, never written) ends after a few KiB instead of filling the heap.
        assertThatThrownBy(() -> SharedKey.fromFile(Path.of("/dev/zero"))).hasMessageContaining("more than 4096 bytes");
        assertThatThrownBy(() -> SharedKey.check(Path.of("/dev/zero"))).hasMessageContaining("more than 4096 bytes");
        Path binary = Files.write(dir.resolve("binary"), new byte[] {'k', (byte) 0xff, 'k'});
        assertThatThrownBy(() -> SharedKey.fromFile(binary))
                .hasMessage("cannot read key file " + binary + ": it is not UTF-8 text");
    }

    @Test
    void checkingAFifoDoesNotOpenIt() throws Exception {
        Path fifo = dir.resolve("key.fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mk.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(mk.exitValue()).isZero();
        // Nobody writes to it: opening it would wait for ever (the limit only ends such a wait).
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                () -> SharedKey.check(fifo));
        assertThatThrownBy(() -> SharedKey.check(dir.resolve("missing"))).hasMessageEndingWith(" does not exist");
    }

    @Test
    void aFileOthersCanReadIsNamedWithItsPermissions() throws Exception {
        Path file = Files.writeString(dir.resolve("k"), "secret");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThat(SharedKey.readableByOthers(file)).isEmpty();
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertThat(SharedKey.readableByOthers(file)).contains("rw-r-----");
        assertThat(SharedKey.readableByOthers(dir.resolve("missing"))).isEmpty();
    }

    @Test
    void anUnsetVariableGivesNoKey() {
        assertThat(SharedKey.fromEnvironment("RDFLUX_TEST_SURELY_UNSET_" + System.nanoTime())).isNull();
        assertThat(SharedKey.fromEnvironment("PATH")).isNotEmpty();
    }

    private String key(String content) throws Exception {
        Path file = Files.writeString(dir.resolve("key"), content);
        return new String(SharedKey.fromFile(file), StandardCharsets.UTF_8);
    }
}
