package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.SendSink;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SinkPlugin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Sink {@code send}: the channel's sending end (as rdsend). */
public final class SendSinkPlugin implements SinkPlugin {

    static final OptionSpec<String> HOST = OptionSpec.required("host", ValueType.string(),
            "The receiver's host name or address.");
    static final OptionSpec<Integer> PORT = OptionSpec.required("port", ValueType.integer(1, 65535),
            "The receiver's port.");
    static final OptionSpec<Duration> CONNECT_TIMEOUT = OptionSpec.optional("connect-timeout", ValueType.duration(),
            Duration.ofSeconds(10), "How long to keep retrying while no receiver is up yet.");

    @Override
    public String name() {
        return "send";
    }

    @Override
    public String description() {
        return "Sends the stream to a receive source (or rdrecv); the stages run per session and are announced.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        List<OptionSpec<?>> o = new ArrayList<>(List.of(HOST, PORT));
        o.addAll(ChannelSettings.common());
        o.add(CONNECT_TIMEOUT);
        return o;
    }

    @Override
    public void validate(OptionValues values) {
        ChannelSettings.validate(values);
    }

    @Override
    public boolean providesSessionKey() {
        return true;
    }

    @Override
    public PipelineSink create(OptionValues values, PluginContext context) {
        // A coordinator that runs the pipeline (rdflux agent) says where to connect, once it knows.
        SendSink sink = context.sendTo() != null ? SendSink.deferred(context.sendTo(), ChannelSettings.key(values))
                : SendSink.create(values.get(HOST), values.get(PORT), ChannelSettings.key(values));
        return sink.transport(ChannelSettings.transport(values))
                .options(ChannelSettings.options(values).withConnectTimeout(values.get(CONNECT_TIMEOUT)));
    }
}
