package io.rdmaflux.cli;

import io.rdmaflux.protocol.ProtocolVersion;
import picocli.CommandLine.IVersionProvider;

/** The version line every tool prints for {@code --version}. */
final class Version implements IVersionProvider {

    static String text() {
        String v = Version.class.getPackage().getImplementationVersion();
        return "rdma-flux " + (v != null ? v : "0.1.0-SNAPSHOT") + " (protocol " + ProtocolVersion.CURRENT
                + ", Java " + System.getProperty("java.version") + ")";
    }

    @Override
    public String[] getVersion() {
        return new String[] {text()};
    }
}
