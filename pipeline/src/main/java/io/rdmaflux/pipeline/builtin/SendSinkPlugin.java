package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.SendSink;
import io.rdmaflux.pipeline.SendSinks;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SinkPlugin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Sink {@code send}: the channel's sending end (as rdsend), to one receiver ({@code host} and
 * {@code port}) or to several ({@code to}: a list of HOST:PORT, as Kafka's bootstrap servers or
 * Redpanda Connect's {@code addresses} are written), each with its own session.
 */
public final class SendSinkPlugin implements SinkPlugin {

    static final OptionSpec<String> HOST = OptionSpec.optional("host", ValueType.string(), null,
            "The receiver's host name or address (one receiver; or give to).");
    static final OptionSpec<Integer> PORT = OptionSpec.optional("port", ValueType.integer(1, 65535), null,
            "The receiver's port (with host).");
    static final OptionSpec<List<String>> TO = OptionSpec.optional("to", ValueType.list(ValueType.string()), null,
            "Several receivers, each HOST:PORT (an IPv6 address in brackets): each gets the whole stream with its own "
                    + "session keys, at the pace of the slowest; instead of host and port.");
    static final OptionSpec<Boolean> FAIL_FAST = OptionSpec.optional("fail-fast", ValueType.bool(), false,
            "With to: the first receiver that fails stops the others and fails the sink. By default the others go "
                    + "on, and the run ends as a partial transfer naming each receiver that failed and why.");
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
        List<OptionSpec<?>> o = new ArrayList<>(List.of(HOST, PORT, TO, FAIL_FAST));
        o.addAll(ChannelSettings.common());
        o.add(CONNECT_TIMEOUT);
        return o;
    }

    @Override
    public void validate(OptionValues values) {
        ChannelSettings.validate(values);
        if (!values.isSet(TO)) {
            if (!values.isSet(HOST)) {
                throw OptionValues.invalid(HOST, "missing (sink 'send' needs host and port, or to: a list of HOST:PORT)");
            }
            if (!values.isSet(PORT)) {
                throw OptionValues.invalid(PORT, "missing (sink 'send' needs host and port, or to: a list of HOST:PORT)");
            }
            if (values.isSet(FAIL_FAST)) {
                throw OptionValues.invalid(FAIL_FAST, "only with to (several receivers)");
            }
            return;
        }
        if (values.isSet(HOST) || values.isSet(PORT)) {
            throw OptionValues.invalid(TO, "give either to (several receivers) or host and port (one), not both");
        }
        List<String> to = values.get(TO);
        if (to.isEmpty()) {
            throw OptionValues.invalid(TO, "an empty list (give at least one HOST:PORT)");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < to.size(); i++) {
            String item = to.get(i);
            try {
                ReceiveSourcePlugin.forwardAddress(item);
            } catch (IllegalArgumentException e) {
                throw OptionValues.invalid(TO, "item " + (i + 1) + ": " + e.getMessage());
            }
            if (!seen.add(item)) {
                throw OptionValues.invalid(TO, "item " + (i + 1) + ": repeats '" + item + "' (each receiver once)");
            }
        }
    }

    @Override
    public boolean providesSessionKey() {
        return true;
    }

    @Override
    public PipelineSink create(OptionValues values, PluginContext context) {
        if (values.isSet(TO) && context.sendTo() == null) {
            List<SendSink> each = values.get(TO).stream()
                    .map(to -> configured(SendSink.to(ReceiveSourcePlugin.forwardAddress(to), ChannelSettings.key(values)),
                            values))
                    .toList();
            return SendSinks.of(each).failFast(values.get(FAIL_FAST));
        }
        // A coordinator that runs the pipeline (rdflux agent) says where to connect, once it knows.
        SendSink sink = context.sendTo() != null ? SendSink.deferred(context.sendTo(), ChannelSettings.key(values))
                : SendSink.create(values.get(HOST), values.get(PORT), ChannelSettings.key(values));
        return configured(sink, values);
    }

    private static SendSink configured(SendSink sink, OptionValues values) {
        return sink.transport(ChannelSettings.transport(values))
                .options(ChannelSettings.options(values).withConnectTimeout(values.get(CONNECT_TIMEOUT)));
    }
}
