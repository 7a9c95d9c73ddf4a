package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.ShellWords;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What rdpipe runs where: its segments cut into runs (a {@code <} after the first segment
 * starts a new run once the previous one ended, as in rdma-pipe), each run a list of hops, each
 * hop one pipeline on one host. A hop receives from the hop before it and sends to the one after
 * it; rdpipe's own stdin and stdout are hops on this host when the chain's ends are remote.
 *
 * @param runs the runs, in order
 */
record PipePlan(List<List<Hop>> runs) {

    /** Where a hop's stream comes from. */
    enum Input { STDIN, RECEIVE, FILE, EMPTY }

    /** Where a hop's stream goes. */
    enum Output { STDOUT, SEND, FILE, APPEND, DISCARD }

    /**
     * One pipeline: {@code input -> [command] -> output} on {@code host}.
     *
     * @param segment the segment it runs, or null for rdpipe's own stdin or stdout
     * @param host    where, or null for this host
     * @param input   where its stream comes from
     * @param path    the file of a FILE input or a FILE/APPEND output
     * @param command the shell command in the middle, or null
     * @param output  where its stream goes
     */
    record Hop(PipeSegment segment, RemoteHost host, Input input, String path, String command, Output output) {

        boolean isLocal() {
            return host == null;
        }

        /** For messages: "segment 2 (h2:'rev')", or "rdpipe's stdin". */
        String label() {
            if (segment != null) {
                return "segment " + segment.number() + " (" + segment.shown() + ")";
            }
            return input == Input.STDIN ? "rdpipe's stdin" : "rdpipe's stdout";
        }

        /**
         * The pipeline in the {@code rdflux run} form, without the channel's keys and addresses
         * ({@link PipeChain} adds them): sources stdin, receive, file, empty; the command as a
         * filter run by the user's shell; stages before a send; sinks stdout, send, file.
         */
        Map<String, Object> pipeline(Integer zstdLevel, boolean encrypt) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("source", switch (input) {
                case STDIN -> Map.of("type", "stdin");
                case RECEIVE -> encrypt ? Map.of("type", "receive", "port", 0, "require-encryption", true)
                        : Map.of("type", "receive", "port", 0);
                case FILE -> Map.of("type", "file", "path", path);
                case EMPTY -> Map.of("type", "empty");
            });
            if (command != null) {
                p.put("filters", List.of(Map.of("type", "command", "command", command, "shell", "login")));
            }
            if (output == Output.SEND) {
                List<Object> stages = new ArrayList<>();
                if (zstdLevel != null) {
                    stages.add(Map.of("type", "zstd", "level", zstdLevel));
                }
                if (encrypt) {
                    stages.add(Map.of("type", "aes-256-gcm"));
                }
                if (!stages.isEmpty()) {
                    p.put("stages", stages);
                }
            }
            p.put("sink", switch (output) {
                case STDOUT -> Map.of("type", "stdout");
                case SEND -> Map.of("type", "send");
                case FILE -> Map.of("type", "file", "path", path);
                case APPEND -> Map.of("type", "file", "path", path, "append", true);
                case DISCARD -> Map.of("type", "file", "path", "/dev/null");
            });
            return p;
        }

        /** One line for --dry-run: where, and what runs there. */
        String describe(Hop next) {
            String in = switch (input) {
                case STDIN -> "stdin";
                case RECEIVE -> "receive (a port of its own)";
                case FILE -> "file " + ShellWords.quote(path);
                case EMPTY -> "nothing (an empty stream)";
            };
            String out = switch (output) {
                case STDOUT -> "stdout";
                case SEND -> "send to " + (next.host == null ? "this host" : next.host.toString());
                case FILE -> "file " + ShellWords.quote(path);
                case APPEND -> "append to file " + ShellWords.quote(path);
                case DISCARD -> "discard (a later '<' starts a new chain)";
            };
            return (host == null ? "local" : host.toString()) + ": " + in
                    + (command == null ? "" : " | " + command) + " | " + out;
        }
    }

    /** The plan for these segments (at least one). */
    static PipePlan of(List<PipeSegment> segments) {
        List<List<PipeSegment>> cut = new ArrayList<>();
        for (PipeSegment s : segments) {
            if (cut.isEmpty() || s.kind() == PipeSegment.Kind.READ) {
                cut.add(new ArrayList<>());
            }
            cut.get(cut.size() - 1).add(s);
        }
        List<List<Hop>> runs = new ArrayList<>();
        for (int r = 0; r < cut.size(); r++) {
            runs.add(hops(cut.get(r), r == cut.size() - 1));
        }
        return new PipePlan(runs);
    }

    private static List<Hop> hops(List<PipeSegment> run, boolean last) {
        List<Hop> hops = new ArrayList<>();
        PipeSegment first = run.get(0);
        if (first.kind() != PipeSegment.Kind.READ && !first.isLocal()) {
            // Only the first run can start without '<': it reads rdpipe's stdin.
            hops.add(new Hop(null, null, Input.STDIN, null, null, Output.SEND));
        }
        for (int i = 0; i < run.size(); i++) {
            PipeSegment s = run.get(i);
            Input input;
            if (i == 0) {
                input = s.kind() == PipeSegment.Kind.READ ? Input.FILE : s.isLocal() ? Input.STDIN : Input.RECEIVE;
            } else {
                PipeSegment.Kind before = run.get(i - 1).kind();
                input = before == PipeSegment.Kind.WRITE || before == PipeSegment.Kind.APPEND ? Input.EMPTY
                        : Input.RECEIVE;
            }
            boolean end = i == run.size() - 1;
            Output output = switch (s.kind()) {
                case WRITE -> Output.FILE;
                case APPEND -> Output.APPEND;
                default -> !end ? Output.SEND : !last ? Output.DISCARD : s.isLocal() ? Output.STDOUT : Output.SEND;
            };
            String path = s.kind() == PipeSegment.Kind.COMMAND ? null : s.text();
            hops.add(new Hop(s, s.host(), input, path, s.kind() == PipeSegment.Kind.COMMAND ? s.text() : null, output));
        }
        Hop tail = hops.get(hops.size() - 1);
        if (tail.output() == Output.SEND) {
            hops.add(new Hop(null, null, Input.RECEIVE, null, null, Output.STDOUT));
        }
        return hops;
    }

    /** Whether any run reads rdpipe's stdin. */
    boolean readsStdin() {
        return runs.get(0).get(0).input() == Input.STDIN;
    }

    /** This plan with an empty stream where it would read rdpipe's stdin. */
    PipePlan withoutStdin() {
        List<List<Hop>> out = new ArrayList<>(runs);
        List<Hop> first = new ArrayList<>(runs.get(0));
        Hop h = first.get(0);
        first.set(0, new Hop(h.segment(), h.host(), Input.EMPTY, h.path(), h.command(), h.output()));
        out.set(0, first);
        return new PipePlan(out);
    }

    /** The --dry-run text: one line per hop, runs numbered when there are several. */
    List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            List<Hop> hops = runs.get(r);
            if (runs.size() > 1) {
                lines.add("run " + (r + 1) + (r == 0 ? ":" : " (after run " + r + " ended):"));
            }
            for (int i = 0; i < hops.size(); i++) {
                lines.add((runs.size() > 1 ? "  " : "") + hops.get(i).describe(i + 1 < hops.size() ? hops.get(i + 1) : null));
            }
        }
        return lines;
    }
}
