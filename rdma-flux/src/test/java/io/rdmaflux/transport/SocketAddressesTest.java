package io.rdmaflux.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

class SocketAddressesTest {

    @Test
    void theWildcardIsShownAsUsersNameItWhicheverFamilyJavaReports() throws UnknownHostException {
        assertThat(SocketAddresses.format(new InetSocketAddress(InetAddress.getByName("::"), 7691))).isEqualTo("0.0.0.0:7691");
        assertThat(SocketAddresses.format(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 7691))).isEqualTo("0.0.0.0:7691");
    }

    @Test
    void anIpv6HostIsBracketedSoThatItsPortStandsApart() throws UnknownHostException {
        assertThat(SocketAddresses.format(new InetSocketAddress(InetAddress.getByName("::1"), 40127))).isEqualTo("[0:0:0:0:0:0:0:1]:40127");
        assertThat(SocketAddresses.format(new InetSocketAddress(InetAddress.getByName("10.0.0.1"), 1))).isEqualTo("10.0.0.1:1");
        assertThat(SocketAddresses.format(InetSocketAddress.createUnresolved("backup", 7691))).isEqualTo("backup:7691");
    }
}
