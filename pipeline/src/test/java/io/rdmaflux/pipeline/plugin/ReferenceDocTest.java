package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The pipeline reference in docs/user-guide.md is the one the plugins' descriptions make.
 * To update the guide after changing a plugin, run this test with
 * {@code -Drdflux.updateReference=true}.
 */
class ReferenceDocTest {

    private static final Path GUIDE = Path.of("..", "docs", "user-guide.md");
    private static final String BEGIN = "<!-- plugin-reference:begin -->\n";
    private static final String END = "<!-- plugin-reference:end -->";

    @Test
    void theGuideShowsTheReferenceThePluginsDescribe() throws IOException {
        String guide = Files.readString(GUIDE, StandardCharsets.UTF_8);
        int begin = guide.indexOf(BEGIN);
        int end = guide.indexOf(END);
        assertThat(begin).as("the guide has a %s marker", BEGIN.strip()).isNotNegative();
        assertThat(end).as("the guide has a %s marker after it", END).isGreaterThan(begin);
        String expected = "\n" + PluginReference.markdown(PluginRegistry.builtins());
        if (Boolean.getBoolean("rdflux.updateReference")) {
            guide = guide.substring(0, begin + BEGIN.length()) + expected + guide.substring(end);
            Files.writeString(GUIDE, guide, StandardCharsets.UTF_8);
            return;
        }
        assertThat(guide.substring(begin + BEGIN.length(), end))
                .as("docs/user-guide.md's plugin reference (run ReferenceDocTest with -Drdflux.updateReference=true)")
                .isEqualTo(expected);
    }
}
