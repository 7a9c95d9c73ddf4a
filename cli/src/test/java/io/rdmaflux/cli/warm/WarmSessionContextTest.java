package io.rdmaflux.cli.warm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A session's context as the daemon takes it: a forwarded session (no directory: a coordinator
 * reached the daemon through its shared ssh connection, no shell ran) gets the daemon's directory
 * and environment under what it sent; a client's session stays as its client sent it, so a
 * session from another directory is still declined.
 */
class WarmSessionContextTest {

    @Test
    void aForwardedSessionRunsInTheDaemonsDirectoryWithItsEnvironment() {
        WarmSession.Context sent = new WarmSession.Context("", List.of("agent", "--hello", "00"),
                Map.of("SSH_CONNECTION", "10.0.0.1 0 10.0.0.2 0", "PATH", "/sent"));
        WarmSession.Context taken = WarmSession.forwarded(sent, "/home/u");
        assertThat(taken.directory()).isEqualTo("/home/u");
        assertThat(taken.args()).isEqualTo(sent.args());
        assertThat(taken.environment()).containsEntry("SSH_CONNECTION", "10.0.0.1 0 10.0.0.2 0")
                .containsEntry("PATH", "/sent");
        System.getenv().forEach((k, v) -> {
            if (!k.equals("PATH") && !k.equals("SSH_CONNECTION")) {
                assertThat(taken.environment()).containsEntry(k, v);
            }
        });
    }

    @Test
    void aClientsSessionIsTakenAsSent() {
        WarmSession.Context sent = new WarmSession.Context("/elsewhere", List.of("agent"), Map.of("HOME", "/h"));
        assertThat(WarmSession.forwarded(sent, "/home/u")).isSameAs(sent);
        assertThat(WarmSession.forwarded(null, "/home/u")).isNull();
    }
}
