package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.ReceiveSource;
import io.rdmaflux.pipeline.SendSink;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Source {@code receive}: the channel's receiving end (as rdrecv). */
public final class ReceiveSourcePlugin implements SourcePlugin {

    static final OptionSpec<Integer> PORT = OptionSpec.required("port", ValueType.integer(0, 65535),
            "The port to listen on; 0 picks a free one, printed as 'rdflux: listening on ADDRESS:PORT'.");
    static final OptionSpec<String> BIND = OptionSpec.optional("bind", ValueType.string(), "0.0.0.0",
            "The local address to listen on.");
    static final OptionSpec<Duration> TIMEOUT = OptionSpec.optional("timeout", ValueType.duration(), Duration.ZERO,
            "Give up when no sender arrives within this time (0: wait as long as it takes).");
    static final OptionSpec<Boolean> REQUIRE_ENCRYPTION = OptionSpec.optional("require-encryption", ValueType.bool(),
            false, "Refuse a stream the sender did not encrypt (with an aes-256-gcm stage).");

    static final OptionSpec<String> FORWARD = OptionSpec.optional("forward", ValueType.string(), null,
            "A relay: also send the stream on to the receive source at HOST:PORT (the next host of a chain) while "
                    + "this pipeline's sink writes it; either side goes on when the other fails.");

    @Override
    public String name() {
        return "receive";
    }

    @Override
    public String description() {
        return "Receives one stream from a send sink (or rdsend) and decodes the stages its sender announced.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        List<OptionSpec<?>> o = new ArrayList<>(List.of(PORT, BIND));
        o.addAll(ChannelSettings.common());
        o.addAll(List.of(TIMEOUT, REQUIRE_ENCRYPTION, FORWARD));
        return o;
    }

    @Override
    public void validate(OptionValues values) {
        ChannelSettings.validate(values);
        if (values.isSet(FORWARD)) {
            try {
                forwardAddress(values.get(FORWARD));
            } catch (IllegalArgumentException e) {
                throw OptionValues.invalid(FORWARD, e.getMessage());
            }
        }
    }

    /** HOST:PORT (an IPv6 address in brackets) as a host and a port. */
    static InetSocketAddress forwardAddress(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("must be HOST:PORT, was '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be HOST:PORT, was '" + text + "'");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("the port must be between 1 and 65535, was " + port);
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        ReceiveSource source = ReceiveSource.create(values.get(PORT), ChannelSettings.key(values));
        if (values.isSet(FORWARD)) {
            // A coordinator that runs the pipeline (rdflux agent) says where the next host listens, once it knows.
            SendSink next = context.sendTo() != null ? SendSink.deferred(context.sendTo(), ChannelSettings.key(values))
                    : SendSink.to(forwardAddress(values.get(FORWARD)), ChannelSettings.key(values));
            source = source.forward(next.transport(ChannelSettings.transport(values))
                    .options(ChannelSettings.options(values)));
        }
        return source
                .bind(values.get(BIND))
                .transport(ChannelSettings.transport(values))
                .options(ChannelSettings.options(values))
                .timeout(values.get(TIMEOUT))
                .requireEncryption(values.get(REQUIRE_ENCRYPTION));
    }
}
