package io.rdmaflux.cli;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.cli.remote.AgentSizing;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.transport.TransportOptions;
import picocli.CommandLine.Option;

/**
 * {@code --frame-size} and {@code --slots}, one definition for every tool that has them (rdsend,
 * rdrecv and rdcp through {@link ChannelFlags}, rdpipe directly), so that their meaning, range
 * and wording are the same everywhere.
 */
final class FrameFlags {

    @Option(names = "--frame-size", paramLabel = "BYTES", defaultValue = "1M", converter = ChannelFlags.SizeConverter.class,
            description = "Largest data frame, e.g. 256K or 4M (4K to 64M). Default: ${DEFAULT-VALUE}.")
    long frameSize;

    @Option(names = "--slots", paramLabel = "N", defaultValue = "16",
            description = "Frames in flight: the receive ring size and send slots (2 to 4096). Default: ${DEFAULT-VALUE}.")
    int slots;

    /** The channel options these flags give; a value out of range is a usage error. */
    ChannelOptions options() {
        if (frameSize < TransportOptions.MIN_FRAME_SIZE || frameSize > TransportOptions.MAX_FRAME_SIZE) {
            throw new UsageException("--frame-size must be between " + ValueType.formatSize(TransportOptions.MIN_FRAME_SIZE)
                    + " and " + ValueType.formatSize(TransportOptions.MAX_FRAME_SIZE) + ", was " + ValueType.formatSize(frameSize));
        }
        // One flag sets both ends of the ring: name the flag, not the API's two options.
        if (slots < 2 || slots > TransportOptions.MAX_SLOTS) {
            throw new UsageException("--slots must be between 2 and " + TransportOptions.MAX_SLOTS + ", was " + slots);
        }
        try {
            return ChannelOptions.defaults().withFrameSize((int) frameSize).withReceiveSlots(slots).withSendSlots(slots);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The sizes for the remote agents' command line ({@link AgentSizing}), checked as {@link #options()} checks them. */
    AgentSizing agentSizing() {
        ChannelOptions o = options();
        return new AgentSizing(o.frameSize(), slots);
    }
}
