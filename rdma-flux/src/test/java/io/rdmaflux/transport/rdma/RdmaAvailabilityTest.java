package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.TransportOptions;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the RDMA transport says on the host, where there is (usually) no RDMA device. */
class RdmaAvailabilityTest {

    private static boolean hasDevice() {
        String[] d = new File("/sys/class/infiniband").list();
        return d != null && d.length > 0;
    }

    @Test
    void nativeLibraryIsPackagedWhenTheHeadersAreInstalled() {
        assumeTrue(Files.exists(Path.of("/usr/include/infiniband/verbs.h")), "rdma-core headers not installed");
        assertThat(RdmaNative.class.getResource(RdmaNative.RESOURCE)).isNotNull();
    }

    @Test
    void reasonIsOneLineAndNamesWhatIsMissing() {
        assumeTrue(!hasDevice(), "this machine has an RDMA device");
        String reason = new RdmaTransport().unavailableReason();
        assertThat(reason).isNotNull().doesNotContain("\n").doesNotContain("Exception");
        assertThat(reason).containsAnyOf("no RDMA device", "native library missing", "libibverbs not installed",
                "librdmacm not installed", "RDMA needs Linux");
    }

    @Test
    void nativeLibraryLoadsWithoutFlagsWhenPackaged() {
        assumeTrue(RdmaNative.class.getResource(RdmaNative.RESOURCE) != null, "no packaged libdisni.so");
        String reason = RdmaNative.unavailableReason();
        // Loaded (from the jar or the class path directory); only the device may be missing.
        assertThat(RdmaNative.loadedFrom()).isNotNull();
        assertThat(reason == null || reason.startsWith("no RDMA device")
                || reason.startsWith("RDMA connection manager unavailable")).as(reason).isTrue();
    }

    @Test
    void forcedRdmaFailsWithTransportUnavailable() {
        assumeTrue(!hasDevice(), "this machine has an RDMA device");
        TransportOptions o = new TransportOptions(4096, 4, 4, Duration.ofSeconds(2));
        RdmaTransport t = new RdmaTransport();
        assertThat(t.name()).isEqualTo("rdma");
        assertThatThrownBy(() -> t.connect(new InetSocketAddress("127.0.0.1", 1), o).block(Duration.ofSeconds(10)))
                .isInstanceOf(RdmaFluxException.class)
                .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.TRANSPORT_UNAVAILABLE))
                .hasMessageStartingWith("RDMA unavailable: ");
        assertThatThrownBy(() -> t.listen(new InetSocketAddress("127.0.0.1", 0), o, c -> { }).block(Duration.ofSeconds(10)))
                .isInstanceOf(RdmaFluxException.class)
                .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.TRANSPORT_UNAVAILABLE));
        assertThat(RdmaTransport.liveConnections()).isZero();
        assertThat(RdmaTransport.liveListeners()).isZero();
    }
}
