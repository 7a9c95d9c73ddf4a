package io.rdmaflux.pipeline.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Which declared plugin API versions this rdflux runs, and the words of a refusal. */
class PluginApiTest {

    private static final String OURS = PluginApi.version();

    @Test
    void theSameMajorVersionUpToOurMinorRuns() {
        assertThat(PluginApi.incompatibility(null)).as("no attribute: built before versioning").isNull();
        assertThat(PluginApi.incompatibility(OURS)).isNull();
        assertThat(PluginApi.incompatibility(" " + OURS + " ")).as("manifest values may carry spaces").isNull();
        assertThat(PluginApi.incompatibility(PluginApi.MAJOR + ".0")).isNull();
        assertThat(PluginApi.incompatibility(PluginApi.MAJOR + "." + String.format("%04d", PluginApi.MINOR))).isNull();
    }

    @Test
    void aNewerOrOlderApiIsRefusedNamingBothVersions() {
        String newerMinor = PluginApi.MAJOR + "." + (PluginApi.MINOR + 1);
        assertThat(PluginApi.incompatibility(newerMinor)).isEqualTo("was built for plugin API " + newerMinor
                + "; this rdflux has plugin API " + OURS + ": use a newer rdflux");
        String newerMajor = (PluginApi.MAJOR + 1) + ".0";
        assertThat(PluginApi.incompatibility(newerMajor)).isEqualTo("was built for plugin API " + newerMajor
                + "; this rdflux has plugin API " + OURS + ": use a newer rdflux");
        String olderMajor = (PluginApi.MAJOR - 1) + ".9";
        assertThat(PluginApi.incompatibility(olderMajor)).isEqualTo("was built for plugin API " + olderMajor
                + "; this rdflux has plugin API " + OURS + " and no longer runs it");
    }

    @Test
    void aVersionThatIsNotTwoAsciiNumbersIsRefusedAsSuch() {
        for (String bad : new String[] {"", "1", "1.", ".0", "1.0.0", "+1.0", "1.-0", "-1.0", "v1.0", "1,0", "1 .0",
                "\u0661.\u0660", "１.0", "99999.0", "1.00000", "1.0a"}) {
            assertThat(PluginApi.incompatibility(bad)).as("'%s'", bad).isEqualTo("declares plugin API '" + bad.strip()
                    + "' (Rdflux-Plugin-Api in its manifest), which is not MAJOR.MINOR; this rdflux has plugin API " + OURS);
        }
    }

    /** Random text of digits (ASCII and others), dots, signs and spaces, against the rule written as a regex. */
    @Test
    void randomVersionsRunExactlyWhenTheyAreOurMajorAndAMinorUpToOurs() {
        Pattern wellFormed = Pattern.compile("[0-9]{1,4}\\.[0-9]{1,4}");
        String alphabet = "0123456789012345678901.+-x \u0661\u0967";
        for (long seed : new long[] {1, 22, 7691, 20261128}) {
            Random random = new Random(seed);
            for (int i = 0; i < 5_000; i++) {
                StringBuilder b = new StringBuilder();
                int length = random.nextInt(8);
                for (int k = 0; k < length; k++) {
                    b.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                String declared = b.toString();
                String v = declared.strip();
                boolean runs = false;
                if (wellFormed.matcher(v).matches()) {
                    int dot = v.indexOf('.');
                    runs = Integer.parseInt(v.substring(0, dot)) == PluginApi.MAJOR
                            && Integer.parseInt(v.substring(dot + 1)) <= PluginApi.MINOR;
                }
                String problem = PluginApi.incompatibility(declared);
                assertThat(problem == null).as("seed %d, case %d: '%s' gave %s", seed, i, declared, problem)
                        .isEqualTo(runs);
                if (problem != null) {
                    assertThat(problem).as("seed %d, case %d: '%s'", seed, i, declared)
                            .contains("this rdflux has plugin API " + OURS).doesNotContain("\n");
                }
            }
        }
    }
}
