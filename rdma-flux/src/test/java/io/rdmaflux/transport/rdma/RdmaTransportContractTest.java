package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportContract;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The transport contract over real RDMA verbs. It runs only where RDMA works and the two
 * addresses of the Soft-RoCE guest are given (rxe0 and rxe1, {@code RDMAFLUX_RDMA_ADDR_A} and
 * {@code _B}): inside the guest, through {@code src/test/softroce/contract-check}, which
 * {@code SoftRoceSuiteTest} runs. Connections listen on A and are made from B.
 */
@EnabledIf("inTheGuest")
class RdmaTransportContractTest extends TransportContract {

    static boolean inTheGuest() {
        return System.getenv("RDMAFLUX_RDMA_ADDR_A") != null && System.getenv("RDMAFLUX_RDMA_ADDR_B") != null
                && RdmaNative.unavailableReason() == null;
    }

    @BeforeAll
    static void fromB() {
        System.setProperty("rdmaflux.rdma.source", System.getenv("RDMAFLUX_RDMA_ADDR_B"));
    }

    @Override
    protected Transport newTransport() {
        return new RdmaTransport();
    }

    @Override
    protected InetSocketAddress listenAddress() {
        return new InetSocketAddress(host(), 0);
    }

    @Override
    protected String host() {
        return System.getenv("RDMAFLUX_RDMA_ADDR_A");
    }

    @Override
    protected int receiveSlotsInUse() {
        return -1; // RDMA counts connections and registered bytes instead (below).
    }

    @Override
    protected void assertAllGivenBack() {
        await("RDMA resources given back").atMost(WAIT).untilAsserted(() -> {
            assertThat(RdmaTransport.liveConnections()).as("connections open").isZero();
            assertThat(RdmaTransport.liveListeners()).as("listeners open").isZero();
            assertThat(RdmaTransport.registeredBytes()).as("bytes registered").isZero();
        });
    }
}
