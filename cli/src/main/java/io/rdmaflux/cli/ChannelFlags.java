package io.rdmaflux.cli;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.TransportProvider;
import io.rdmaflux.transport.TransportProviders;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options every channel tool shares: transport, sizes, verbosity. */
final class ChannelFlags {

    /** -v given at all. */
    boolean verbose;
    /** How many times -v was given: rdcp names more with -vv. */
    int verbosity;

    // A method, so that -vv is more detail rather than picocli's "should be specified only once".
    @Option(names = {"-v", "--verbose"}, description = "Say which transport runs and print the bandwidth at the end "
            + "(rdcp: and name each file it copies or deletes). -vv: more detail (rdcp: the files already up to date too).")
    void verbose(boolean[] given) {
        verbosity = given.length;
        verbose = verbosity > 0;
    }

    @Option(names = "--progress", description = "Show a progress line on stderr: bytes, rate, and ETA when the size is known.")
    boolean progress;

    @Option(names = "--debug", description = "Show stack traces and library logs with errors.")
    boolean debug;

    @Option(names = "--transport", paramLabel = "KIND", defaultValue = "auto", converter = TransportConverter.class,
            completionCandidates = TransportNames.class,
            description = "auto (RDMA when usable, else TCP), or one of the transports found: ${COMPLETION-CANDIDATES}. "
                    + "Default: ${DEFAULT-VALUE}.")
    TransportKind transport;

    /** --frame-size and --slots, shared with rdpipe. */
    @Mixin
    FrameFlags frame = new FrameFlags();

    /** The channel options these flags give; a frame size out of range is a usage error. */
    ChannelOptions options() {
        return frame.options();
    }

    /**
     * {@link #options()}, checked against the memory their buffers need ({@link BufferBudget}).
     *
     * @param codecStages codec stages this side runs
     * @param sender      whether this side reads an input into buffers of its own
     */
    ChannelOptions options(int codecStages, boolean sender) {
        ChannelOptions o = options();
        BufferBudget.check(o, codecStages, sender);
        return o;
    }

    /** The transports found here (tcp, rdma, and any a jar on the class path adds), for the help. */
    static final class TransportNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return TransportProviders.all().stream().map(TransportProvider::name).iterator();
        }
    }

    /** Parses auto or the name of a transport found here. */
    static final class TransportConverter implements picocli.CommandLine.ITypeConverter<TransportKind> {
        @Override
        public TransportKind convert(String value) {
            return TransportKind.parse(value);
        }
    }

    /** Parses sizes such as 4096, 64K, 1M, 1G, as pipeline files write them. */
    static final class SizeConverter implements picocli.CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return ValueType.parseSize(value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("not a size: '" + value + "' (examples: 65536, 256K, 1M)");
            }
        }
    }
}
