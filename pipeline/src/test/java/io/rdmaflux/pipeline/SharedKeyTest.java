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
