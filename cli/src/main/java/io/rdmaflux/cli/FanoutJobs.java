package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.AgentMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The jobs of a fan-out's ends, from rdcp's options: the source's (the tree, the codec stages,
 * a send sink told later where to connect) and each host's (a receive source, a relay but for
 * the last host, and a tree sink where that host's DEST says), and with --sync each host's listing.
 */
final class FanoutJobs {

    /** How long a host's receiver waits for its sender: the hosts before it start and connect in that time. */
    static final String SENDER_WAIT = "120s";

    private final RdcpCommand command;

    FanoutJobs(RdcpCommand command) {
        this.command = command;
    }

    /**
     * The source's job: the tree with the stages, sent where the coordinator says. With
     * --sync it first takes {@code hosts} listings on a port of its own, under {@code listingKey}.
     */
    AgentMessage.Job sender(String key, RdcpCommand.Plan plan, long progress, String listingKey, int hosts) {
        Map<String, Object> source = new LinkedHashMap<>(plan.source());
        if (command.flags.progress) {
            source.put("count", true);
        }
        if (command.sync) {
            source.put("sync", command.checksum ? "checksum" : "size-and-mtime");
            source.put("key", listingKey);
            source.put("listings", hosts);
            // A host whose listing job fails is stood in for (FanoutListings); this bounds a lister that hangs.
            source.put("listing-timeout", SENDER_WAIT);
            source.put("transport", transport());
        }
        if (command.habits.bwlimit > 0) {
            source.put("bwlimit", command.habits.bwlimit);
        }
        Map<String, Object> send = new LinkedHashMap<>(Map.of("type", "send", "key", key));
        channel(send);
        return command.job(source, command.stages(), send, progress, 0);
    }

    /** A host's job: receive, write at its DEST, and (a relay) send on to the next host. */
    AgentMessage.Job receiver(String key, RdcpCommand.Plan plan, boolean relay, long progress, int named) {
        Map<String, Object> receive = new LinkedHashMap<>(Map.of("type", "receive", "key", key, "port", 0));
        channel(receive);
        receive.put("timeout", SENDER_WAIT);
        if (command.encrypt) {
            receive.put("require-encryption", true);
        }
        if (relay) {
            receive.put("forward", "next-host:1");   // where, the coordinator says (connect)
        }
        Map<String, Object> tree = RdcpCommand.destination("tree", plan);
        tree.put("delete", command.delete);
        tree.put("dry-run", command.habits.dryRun);
        return command.job(receive, List.of(), tree, progress, named);
    }

    /** A host's listing of its DEST (--sync), sent to the source under {@code listingKey}. */
    AgentMessage.Job lister(String listingKey, RdcpCommand.Plan plan) {
        Map<String, Object> list = RdcpCommand.destination("tree-listing", plan);
        list.put("checksums", command.checksum);
        Map<String, Object> send = new LinkedHashMap<>(Map.of("type", "send", "key", listingKey));
        send.put("transport", transport());
        return command.job(list, List.of(), send, 0, 0);
    }

    private String transport() {
        return command.flags.transport.name().toLowerCase(Locale.ROOT);
    }

    private void channel(Map<String, Object> m) {
        m.put("transport", transport());
        m.put("frame-size", command.flags.frame.frameSize);
        m.put("slots", command.flags.frame.slots);
    }
}
