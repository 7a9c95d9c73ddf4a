package io.rdmaflux.cli;

import io.rdmaflux.buffer.DirectMemory;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.pipeline.config.ValueType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The direct (off-heap) memory a tool's buffers take, from its options, checked before
 * anything connects: a combination that cannot get its buffers is refused with the reason
 * (exit 64), rather than failing mid-stream when the last buffer is allocated.
 *
 * <p>Each side holds, per {@code frame size x slots}: on the receiving side the receive ring
 * (allocated as frames arrive over TCP, at once when the sender has authenticated over RDMA),
 * on the sending side the reader's buffers and, over RDMA, a registered send region as large. A codec stage holds about two frames per core
 * and two more in flight. bin/rdflux-launch sizes the JVM's limit with the same terms and more
 * ({@code 128 MiB + frame x (3 x slots + 8 x cores + 8)}), so from the launchers only a machine
 * short of memory, or a limit lowered in RDFLUX_JAVA_OPTS, refuses a combination.
 */
final class BufferBudget {

    /** Largest ring, frame size x slots: one allocation must stay well inside 2 GiB. */
    static final long MAX_RING = 1L << 30;
    /** Needs up to this are met by any limit the launchers set; the JVM is not asked. */
    private static final long LAUNCHER_FLOOR = 128L << 20;
    private static final long BASE = 32L << 20;
    /** Codec output buffers kept for reuse (ChunkAllocator.pooled()). */
    private static final long CODEC_KEEP = 64L << 20;

    private BufferBudget() {
    }

    /** Bytes of direct memory for these options and {@code codecStages} codec stages. */
    static long need(ChannelOptions o, int codecStages, boolean sender) {
        long frame = o.frameSize();
        long ring = frame * Math.max(o.receiveSlots(), o.sendSlots());
        long perStage = frame * (2L * Runtime.getRuntime().availableProcessors() + 2);
        return BASE + ring * (sender ? 3 : 2) + codecStages * perStage + (codecStages > 0 ? CODEC_KEEP : 0);
    }

    /**
     * Refuses options whose buffers this process cannot have, in a tool's words (this JVM,
     * this machine).
     *
     * @throws UsageException naming what they need, what is available, and what to change
     */
    static void check(ChannelOptions o, int codecStages, boolean sender) {
        check(o, codecStages, sender, false);
    }

    /**
     * {@link #check(ChannelOptions, int, boolean)}; {@code agent}: for the job of an agent that
     * rdcp or rdpipe started, whose message the coordinator prints after the host's name, so it
     * speaks of "the agent's JVM" and "the host" rather than of "this" one.
     */
    static void check(ChannelOptions o, int codecStages, boolean sender, boolean agent) {
        check(o, codecStages, sender, agent, DirectMemory::limit, io.rdmaflux.cli.remote.HostMemory.room());
    }

    /**
     * The check itself, with the JVM's direct-memory limit asked only when the need is above
     * what any launcher gives, and the memory this process may use given ({@code room}: the
     * host's RAM or its control group's limit, 0 bytes when unknown).
     */
    static void check(ChannelOptions o, int codecStages, boolean sender, boolean agent,
                      java.util.function.LongSupplier jvmLimit, io.rdmaflux.cli.remote.HostMemory.Room room) {
        long ring = (long) o.frameSize() * Math.max(o.receiveSlots(), o.sendSlots());
        String what = "--frame-size " + ValueType.formatSize(o.frameSize()) + " with --slots " + Math.max(o.receiveSlots(), o.sendSlots());
        if (ring > MAX_RING) {
            throw new UsageException(what + " makes rings of " + Meter.human(ring) + "; frame size x slots may be at most "
                    + Meter.human(MAX_RING) + ": use a smaller --frame-size or fewer --slots");
        }
        long need = need(o, codecStages, sender);
        if (need <= LAUNCHER_FLOOR) {
            return;
        }
        long limit = jvmLimit.getAsLong();
        if (need > limit) {
            throw new UsageException(what + " needs about " + Meter.human(need) + " of buffer memory, more than "
                    + (agent ? "the agent's JVM there" : "this JVM") + " may use (" + Meter.human(limit)
                    + "): use a smaller --frame-size or fewer --slots, or raise the limit"
                    + (agent ? " there" : "") + " with RDFLUX_JAVA_OPTS=-XX:MaxDirectMemorySize=" + ((need >> 30) + 1) + "g");
        }
        long ram = room.bytes();
        if (ram > 0 && need > ram / 4 * 3) {
            // In a control group with a memory limit the kernel kills a process beyond it, whatever the RAM.
            String of = room.group()
                    ? "the " + Meter.human(ram) + " that " + (agent ? "the agent's control group there" : "this process's control group")
                            + " may use"
                    : (agent ? "the host's" : "this machine's") + " " + Meter.human(ram);
            throw new UsageException(what + " needs about " + Meter.human(need) + " of buffer memory, more than 3/4 of "
                    + of + ": use a smaller --frame-size or fewer --slots");
        }
    }

}
