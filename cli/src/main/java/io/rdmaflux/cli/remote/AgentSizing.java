package io.rdmaflux.cli.remote;

import java.util.List;

/**
 * The buffer sizes a remote agent's job uses ({@code --frame-size} and {@code --slots}), put on
 * the agent's command line so that bin/rdflux-launch sizes the remote JVM's direct-memory limit
 * for them, as it does for a local tool; and the limit it gives, which a warm agent compares
 * with the memory it keeps for one session before it takes the job (docs/remote.md, "Buffer
 * memory on the remote end").
 *
 * @param frameSize the largest frame, bytes
 * @param slots     frames in flight
 */
public record AgentSizing(long frameSize, int slots) {

    /** The tools' defaults: the agent's command line gets no words for them. */
    public static final AgentSizing DEFAULT = new AgentSizing(1L << 20, 16);

    /**
     * The sizes {@code --frame-size BYTES} and {@code --slots N} name in an agent's arguments, each
     * its default when absent or unreadable (the agent's own option parsing refuses those).
     */
    public static AgentSizing of(List<String> args) {
        long frame = DEFAULT.frameSize;
        int slots = DEFAULT.slots;
        for (int i = 0; i + 1 < args.size(); i++) {
            String v = args.get(i + 1);
            if (args.get(i).equals("--frame-size") && v.matches("[0-9]{1,12}")) {
                frame = Long.parseLong(v);
            } else if (args.get(i).equals("--slots") && v.matches("[0-9]{1,4}")) {
                slots = Integer.parseInt(v);
            }
        }
        return new AgentSizing(frame, slots);
    }

    /** The words after {@code agent} on the remote command line: none at the defaults, so older agents still start. */
    public String words() {
        return equals(DEFAULT) ? "" : " --frame-size " + frameSize + " --slots " + slots;
    }

    /**
     * The direct-memory limit bin/rdflux-launch gives a JVM started with these sizes on a host
     * with {@code cores} CPUs: {@code 128 MiB + frame x (3 x slots + 8 x cores + 8)}, at least
     * 192 MiB, the frame size capped at 64 MiB and the slots at 4096 as there.
     */
    public long launcherLimit(int cores) {
        long frame = Math.min(frameSize, 64L << 20);
        long n = Math.min(slots, 4096);
        return Math.max(192L << 20, (128L << 20) + frame * (3 * n + 8L * cores + 8));
    }
}
