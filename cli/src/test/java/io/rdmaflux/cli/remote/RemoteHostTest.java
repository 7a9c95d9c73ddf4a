package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RemoteHostTest {

    @Test
    void parsesUserAndHost() {
        assertThat(RemoteHost.parse("backup")).isEqualTo(new RemoteHost(null, "backup"));
        assertThat(RemoteHost.parse("root@10.0.0.2")).isEqualTo(new RemoteHost("root", "10.0.0.2"));
        assertThat(RemoteHost.parse("me@corp@node-1.example")).isEqualTo(new RemoteHost("me@corp", "node-1.example"));
        assertThat(RemoteHost.parse("[fe80::1%eth0]")).isEqualTo(new RemoteHost(null, "fe80::1%eth0"));
        assertThat(RemoteHost.parse("u@[::1]").destination()).isEqualTo("u@::1");
        assertThat(RemoteHost.parse("u@[::1]")).hasToString("u@[::1]");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-oProxyCommand=x", "a b", "host;id", "-x@host", "@host", "host/path", "h$(id)", "[::1"})
    void refusesWhatSshWouldReadAsSomethingElse(String text) {
        assertThatThrownBy(() -> RemoteHost.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void splitsLocationsAsRsyncDoes() {
        assertThat(RemoteHost.location("h1:data/x")).isEqualTo(new RemoteHost.Location(new RemoteHost(null, "h1"), "data/x"));
        assertThat(RemoteHost.location("u@h1:")).isEqualTo(new RemoteHost.Location(new RemoteHost("u", "h1"), ""));
        assertThat(RemoteHost.location("h2:'tr a:b A:B'").rest()).isEqualTo("'tr a:b A:B'");
        assertThat(RemoteHost.location("[::1]:/tmp/x").host()).isEqualTo(new RemoteHost(null, "::1"));
        assertThat(RemoteHost.location("./a:b").isLocal()).isTrue();
        assertThat(RemoteHost.location("/abs/a:b").isLocal()).isTrue();
        assertThat(RemoteHost.location("sort -t: -k2").isLocal()).isTrue();
        assertThat(RemoteHost.location("plain").isLocal()).isTrue();
        assertThat(RemoteHost.location("h1:multi\nline").rest()).isEqualTo("multi\nline");
    }
}
