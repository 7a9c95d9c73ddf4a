package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.transport.TransportKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code --transport} takes auto or a transport found through the transport providers (here the
 * built-in rdma and tcp), lists them in the help, and refuses another name as it always did.
 */
class TransportFlagTest {

    @Test
    void theFlagTakesAutoOrAFoundTransportInAnyCase() {
        SendCommand send = new SendCommand();
        new CommandLine(send).parseArgs("h", "1", "k");
        assertThat(send.flags.transport).isSameAs(TransportKind.AUTO);
        new CommandLine(send).parseArgs("--transport", "TCP", "h", "1", "k");
        assertThat(send.flags.transport).isSameAs(TransportKind.TCP);
        ReceiveCommand recv = new ReceiveCommand();
        new CommandLine(recv).parseArgs("--transport", "rdma", "1", "k");
        assertThat(recv.flags.transport).isSameAs(TransportKind.RDMA);
    }

    @Test
    void theHelpListsTheTransportsFound() {
        String help = Main.commandLine("rdsend").getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
        assertThat(help).contains("--transport=KIND auto (RDMA when usable, else TCP), or one of the transports found: "
                + "rdma, tcp. Default: auto.");
    }

    @Test
    void anUnknownTransportIsAUsageErrorNamingTheChoices() {
        PrintStream saved = System.err;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.run(new String[] {"rdsend", "--transport", "quic", "h", "1", "k"});
        } finally {
            System.setErr(saved);
        }
        assertThat(code).isEqualTo(ExitCode.USAGE);
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList()).hasSize(2).first().asString()
                .startsWith("rdsend: ").endsWith("unknown transport 'quic' (expected auto, rdma or tcp)");
    }
}
