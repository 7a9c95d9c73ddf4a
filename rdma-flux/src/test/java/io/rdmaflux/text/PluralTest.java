package io.rdmaflux.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PluralTest {

    @Test
    void oneIsSingularAndEveryOtherCountPlural() {
        assertThat(Plural.count(1, "file")).isEqualTo("1 file");
        assertThat(Plural.count(0, "file")).isEqualTo("0 files");
        assertThat(Plural.count(2, "file")).isEqualTo("2 files");
        assertThat(Plural.count(-1, "byte")).isEqualTo("-1 bytes");
        assertThat(Plural.count(1, "entry", "entries")).isEqualTo("1 entry");
        assertThat(Plural.count(3, "file or link", "files and links")).isEqualTo("3 files and links");
    }
}
