package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link WarmRoute} keeps of a hello and takes back: only a socket path that ssh's
 * {@code -L} takes as it is and addresses as the hello checks them; and when there can be a
 * route at all (ssh, sharing on, callers that asked).
 */
class WarmRouteTest {

    @TempDir
    Path dir;

    @Test
    void aKeptRouteReadsBackAsItWasWritten() {
        WarmRoute.Learned l = new WarmRoute.Learned("/root/.cache/rdflux/agent/0123abcd.sock", "10.0.0.1", "fe80::1");
        assertThat(l.usable()).isTrue();
        assertThat(WarmRoute.Learned.parse(l.text())).isEqualTo(l);
        WarmRoute.Learned noAddresses = new WarmRoute.Learned("/run/user/0/rdflux/agent/k.sock", null, null);
        assertThat(WarmRoute.Learned.parse(noAddresses.text())).isEqualTo(noAddresses);
    }

    @Test
    void pathsAndAddressesSshOrTheAgentWouldReadOtherwiseAreRefused() {
        for (String socket : List.of("relative.sock", "/a b.sock", "/a:b.sock", "/%h.sock", "/a\nb", "/" + "x".repeat(107), "")) {
            assertThat(new WarmRoute.Learned(socket, null, null).usable()).as(socket).isFalse();
        }
        assertThat(new WarmRoute.Learned("/ok.sock", "not an address", null).usable()).isFalse();
        assertThat(new WarmRoute.Learned(null, null, null).usable()).isFalse();
        assertThat(WarmRoute.Learned.parse("rdflux-warm-route 1\nsocket /a:b\nclient -\nserver -\n")).isNull();
        assertThat(WarmRoute.Learned.parse("rdflux-warm-route 2\nsocket /a\nclient -\nserver -\n")).isNull();
        assertThat(WarmRoute.Learned.parse("garbage")).isNull();
    }

    @Test
    void onlySshWithSharingAndACallerThatAskedHasARoute() {
        RemoteHost host = RemoteHost.parse("h1");
        SshSharing sharing = SshSharing.in(dir.resolve("ssh"), Duration.ofMinutes(5));
        WarmAgents warm = WarmAgents.on(Duration.ofMinutes(5), null);
        RemoteShell shell = RemoteShell.create().sharing(sharing).warm(warm.direct());
        assertThat(route(shell.warm(warm), host)).as("a caller that did not ask").isNull();
        assertThat(route(shell.rsh("rsh"), host)).as("not ssh").isNull();
        assertThat(route(shell.sharing(SshSharing.off()), host)).as("no sharing").isNull();
        assertThat(route(shell.rsh("ssh -S /elsewhere"), host)).as("the -e words share their own way").isNull();
        assertThat(WarmAgents.off().direct().isDirect()).as("no warm agent").isFalse();
        WarmRoute route = route(shell, host);
        assertThat(route).isNotNull();
        assertThat(route.toString()).matches("WarmRoute\\[h1, " + dir.resolve("ssh") + "/w-[0-9a-f]{16}\\.sock]");
        assertThat(route(shell, RemoteHost.parse("h2")).toString()).as("another host, another route")
                .isNotEqualTo(route.toString());
    }

    /** The route as RemoteAgent makes it: from the command that would start the agent through a login. */
    private static WarmRoute route(RemoteShell shell, RemoteHost host) {
        return WarmRoute.of(shell, host, shell.command(host, shell.agentCommand("00")));
    }
}
