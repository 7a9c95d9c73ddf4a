package io.rdmaflux.cli.remote;

import java.util.function.Consumer;

/**
 * An agent's progress reports: periodic ones while the job runs, and a last one with the final
 * counts. Nothing goes out after the last: a periodic report read before the job ended would
 * arrive after the final counts and replace them at the coordinator (its summary and the
 * progress line would then miss the files that completed).
 */
final class ProgressReports {

    private final ProgressCount count;
    private final Consumer<AgentMessage> out;
    private AgentMessage.Progress sent;
    private boolean closed;

    ProgressReports(ProgressCount count, Consumer<AgentMessage> out) {
        this.count = count;
        this.out = out;
    }

    /** A periodic report: the counts now, when they changed since the last one sent. */
    synchronized void tick() {
        if (closed) {
            return;
        }
        AgentMessage.Progress p = count.now();
        if (!p.equals(sent)) {
            sent = p;
            out.accept(p);
        }
    }

    /** The final report; later ticks send nothing. */
    synchronized void last() {
        if (!closed) {
            closed = true;
            out.accept(count.now());
        }
    }
}
