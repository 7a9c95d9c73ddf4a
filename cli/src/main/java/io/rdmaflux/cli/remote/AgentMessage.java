package io.rdmaflux.cli.remote;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The messages of the agent protocol (docs/remote.md): one JSON object per line, its
 * {@code "type"} saying which. The coordinator writes {@link Job} and {@link Connect} to the
 * agent's stdin; the agent writes {@link Hello}, {@link Listening}, {@link Started},
 * {@link Progress}, {@link Entry} and {@link Done} to its stdout. Closing the agent's stdin cancels it.
 */
public sealed interface AgentMessage {

    /** The protocol version both ends must speak; a change that old agents cannot follow bumps it. */
    int PROTOCOL = 1;

    /** The longest line either side accepts. */
    int MAX_LINE = 1 << 20;

    /**
     * A fresh key for one hop of a job: 32 bytes from {@link java.security.SecureRandom}, as
     * base64url text (the channel takes the text's bytes as the key).
     */
    static String newKey() {
        byte[] k = new byte[32];
        new java.security.SecureRandom().nextBytes(k);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(k);
    }

    /**
     * A fresh nonce for one agent's start: 16 bytes from {@link java.security.SecureRandom} as
     * hex, plain for any shell. The coordinator puts it on the agent's command line and takes
     * only a hello that carries it, so no line a login's startup files print can pass for one.
     */
    static String newNonce() {
        byte[] n = new byte[16];
        new java.security.SecureRandom().nextBytes(n);
        return java.util.HexFormat.of().formatHex(n);
    }

    /**
     * The start of a hello line exactly as {@link Hello#toLine} writes it: the coordinator looks
     * for it anywhere in the agent's output, since a login may print text without a newline
     * ("Welcome") just before the agent's first line.
     */
    String HELLO_START = "{\"type\":\"hello\"";

    /** Whether {@code text} looks like an IP address (v4, or v6 with an optional zone), as SSH_CONNECTION gives them. */
    static boolean isAddress(String text) {
        return text.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[\\w.-]+)?");
    }

    /** This message as one line of JSON (without the newline). */
    String toLine();

    /**
     * The agent's first line, before it reads anything: proves the remote command is an rdflux
     * agent and which protocol it speaks, and says which addresses the ssh connection used
     * (from {@code SSH_CONNECTION}), where the other hosts can reach this one.
     *
     * @param protocol  {@link #PROTOCOL} of the agent
     * @param version   the agent's version text
     * @param sshClient the coordinator's address as this host saw it, or null
     * @param sshServer this host's address the coordinator's ssh connected to, or null
     * @param nonce     what the coordinator gave the agent with {@code --hello}, or null
     * @param warmSocket the socket of the warm agent that serves this session, or null (a JVM
     *                  agent): a coordinator with a shared ssh connection may reach it there
     *                  directly next time ({@link WarmRoute})
     */
    record Hello(int protocol, String version, String sshClient, String sshServer, String nonce, String warmSocket)
            implements AgentMessage {

        /** A hello without a nonce (an agent started by hand, not by a coordinator). */
        public Hello(int protocol, String version, String sshClient, String sshServer) {
            this(protocol, version, sshClient, sshServer, null, null);
        }

        /** A hello of an agent that is no warm agent's session. */
        public Hello(int protocol, String version, String sshClient, String sshServer, String nonce) {
            this(protocol, version, sshClient, sshServer, nonce, null);
        }

        @Override
        public String toLine() {
            return line("hello", "protocol", protocol, "version", version, "ssh-client", sshClient,
                    "ssh-server", sshServer, "nonce", nonce, "warm-socket", warmSocket);
        }
    }

    /**
     * What the agent is to run: a pipeline in the {@code rdflux run} format (source, stages,
     * sink, each a map of its options), as JSON. A {@code send} sink without {@code host} and
     * {@code port} waits for a {@link Connect}. Keys travel in the send and receive options
     * ({@code key}) and only here: never in argv or logs.
     *
     * @param pipeline         {@code {"source": {...}, "stages": [...], "sink": {...}}}
     * @param progressInterval milliseconds between {@link Progress} messages; 0 for none
     * @param verbose          log what -v logs (to the agent's stderr)
     * @param debug            log what --debug logs
     * @param names            which entries of a tree the sink names in {@link Entry} messages: 0 none,
     *                         1 those copied and deleted (rdcp -v, -n), 2 those kept as well (-vv)
     */
    record Job(Map<String, Object> pipeline, long progressInterval, boolean verbose, boolean debug, int names)
            implements AgentMessage {
        public Job {
            pipeline = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(pipeline, "pipeline")));
        }

        /** A job that names no entries. */
        public Job(Map<String, Object> pipeline, long progressInterval, boolean verbose, boolean debug) {
            this(pipeline, progressInterval, verbose, debug, 0);
        }

        @Override
        public String toLine() {
            return line("job", "pipeline", pipeline, "progress-interval", progressInterval, "verbose", verbose,
                    "debug", debug, "names", names == 0 ? null : names);
        }

        /** The job without secrets, for messages and logs. */
        @Override
        public String toString() {
            return "Job" + redact(pipeline);
        }
    }

    /**
     * Where the agent's {@code send} sink (or relay) is to connect, once the downstream receiver
     * has reported its port; port 0: nowhere, a relay whose next hosts all failed writes alone.
     */
    record Connect(String host, int port) implements AgentMessage {
        @Override
        public String toLine() {
            return line("connect", "host", host, "port", port);
        }
    }

    /** The agent's receiver is listening on {@code port}, with these transports. */
    record Listening(int port, List<String> transports) implements AgentMessage {
        public Listening {
            transports = List.copyOf(transports);
        }

        @Override
        public String toLine() {
            return line("listening", "port", port, "transports", transports);
        }
    }

    /** Data has started to flow. */
    record Started() implements AgentMessage {
        @Override
        public String toLine() {
            return line("started");
        }
    }

    /**
     * How far the job is: payload bytes moved so far and, for a stream of files (a directory
     * tree), the files complete at this end and the totals the source counted. Fields not
     * known are -1 and left out of the line.
     *
     * @param bytes      payload bytes moved
     * @param files      files complete (written and verified, at a tree sink), or -1
     * @param fileBytes  their content bytes, or -1
     * @param keptFiles  how many of them a sync kept as they were (none of their bytes sent), or -1
     * @param totalFiles the files the tree holds, as its source counted them, or -1
     * @param totalBytes their content bytes (to send, in a sync), or -1
     * @param holeBytes  bytes of sparse files' zeros the source passed as holes (done, though
     *                   not in {@code bytes}), or -1
     * @param links      hard links in place at this end (second names, not files), or -1
     */
    record Progress(long bytes, long files, long fileBytes, long keptFiles, long totalFiles, long totalBytes,
                    long holeBytes, long links) implements AgentMessage {

        /** Bytes only. */
        public Progress(long bytes) {
            this(bytes, -1, -1, -1, -1, -1, -1, -1);
        }

        /** The bytes done as a user counts them: those moved and the holes passed. */
        public long logicalBytes() {
            return bytes + Math.max(0, holeBytes);
        }

        @Override
        public String toLine() {
            return line("progress", "bytes", bytes, "files", known(files), "file-bytes", known(fileBytes),
                    "kept-files", known(keptFiles),
                    "total-files", known(totalFiles), "total-bytes", known(totalBytes),
                    "hole-bytes", known(holeBytes), "links", known(links));
        }
    }

    /**
     * A file or link of a tree at the job's sink, when the job asked for names: copied (or, in a
     * dry run, to be), deleted (to be), or kept as current. Sent as it happens, never gathered:
     * the agent's writes wait for the coordinator to read, so a tree of any size holds none.
     * The path is the sender's: the coordinator sanitizes it before printing.
     *
     * @param path   relative to the copy
     * @param change "copied", "deleted" or "unchanged"
     */
    record Entry(String path, String change) implements AgentMessage {

        /** The changes an entry message may carry. */
        public static final List<String> CHANGES = List.of("copied", "deleted", "unchanged");

        public Entry {
            Objects.requireNonNull(path, "path");
            if (!CHANGES.contains(change)) {
                throw new IllegalArgumentException("\"change\" must be one of " + CHANGES + ", was " + change);
            }
        }

        @Override
        public String toLine() {
            return line("entry", "path", path, "change", change);
        }
    }

    /**
     * The job's outcome, the agent's last line; it then exits with {@code status}.
     *
     * @param status   0, or the exit code the failure has in the tools' table (docs/user-guide.md)
     * @param bytes    payload bytes moved
     * @param message  one line saying what failed, or null on success
     * @param failures for a partial transfer (some files of a tree did not arrive, the rest did):
     *                 the first of them as {@code "path: reason"}, at most {@value #MAX_FAILURES}
     *                 (a last line counts the others); empty otherwise
     * @param reportedByPeer the failure is one the job's channel peer reported (it failed first,
     *                 or stopped reading): a consequence, not this job's own cause
     */
    record Done(int status, long bytes, String message, List<String> failures, boolean reportedByPeer)
            implements AgentMessage {

        /** The most failure lines a done message carries. */
        public static final int MAX_FAILURES = 100;

        public Done {
            failures = List.copyOf(failures);
        }

        /** An outcome without a list of failures, of the job's own. */
        public Done(int status, long bytes, String message) {
            this(status, bytes, message, List.of(), false);
        }

        @Override
        public String toLine() {
            return line("done", "status", status, "bytes", bytes, "message", message, "failures",
                    failures.isEmpty() ? null : failures, "reported-by-peer", reportedByPeer ? true : null);
        }
    }

    /** A message of a type this version does not know (a newer peer's); ignored. */
    record Unknown(String type) implements AgentMessage {
        @Override
        public String toLine() {
            return line(type);
        }
    }

    /**
     * Parses one line.
     *
     * @throws IllegalArgumentException when it is not a well-formed message
     */
    static AgentMessage parse(String line) {
        Map<String, Object> m;
        try {
            m = Json.parseObject(line);
        } catch (Json.JsonException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        String type = text(m, "type", true);
        return switch (type) {
            case "hello" -> new Hello((int) integer(m, "protocol", 0, Integer.MAX_VALUE), text(m, "version", false),
                    text(m, "ssh-client", false), text(m, "ssh-server", false), text(m, "nonce", false),
                    text(m, "warm-socket", false));
            case "job" -> {
                if (!(m.get("pipeline") instanceof Map<?, ?> p)) {
                    throw new IllegalArgumentException("job without a pipeline object");
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> pipeline = (Map<String, Object>) p;
                yield new Job(pipeline, m.containsKey("progress-interval")
                        ? integer(m, "progress-interval", 0, Integer.MAX_VALUE) : 0,
                        flag(m, "verbose"), flag(m, "debug"),
                        m.containsKey("names") ? (int) integer(m, "names", 0, 2) : 0);
            }
            case "connect" -> new Connect(text(m, "host", true), (int) integer(m, "port", 0, 65535));
            case "listening" -> {
                List<String> transports = m.get("transports") instanceof List<?> l
                        ? l.stream().map(String::valueOf).toList() : List.of();
                yield new Listening((int) integer(m, "port", 1, 65535), transports);
            }
            case "started" -> new Started();
            case "entry" -> new Entry(text(m, "path", true), text(m, "change", true));
            case "progress" -> new Progress(integer(m, "bytes", 0, Long.MAX_VALUE), optional(m, "files"),
                    optional(m, "file-bytes"), optional(m, "kept-files"), optional(m, "total-files"),
                    optional(m, "total-bytes"), optional(m, "hole-bytes"), optional(m, "links"));
            case "done" -> new Done((int) integer(m, "status", 0, 255), m.containsKey("bytes")
                    ? integer(m, "bytes", 0, Long.MAX_VALUE) : 0, text(m, "message", false), texts(m, "failures"),
                    flag(m, "reported-by-peer"));
            default -> new Unknown(type);
        };
    }

    private static String line(String type, Object... fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        for (int i = 0; i < fields.length; i += 2) {
            if (fields[i + 1] != null) {
                m.put((String) fields[i], fields[i + 1]);
            }
        }
        return Json.write(m);
    }

    private static String text(Map<String, Object> m, String key, boolean required) {
        Object v = m.get(key);
        if (v instanceof String s) {
            return s;
        }
        if (v == null && !required) {
            return null;
        }
        throw new IllegalArgumentException("\"" + key + "\" must be " + (required ? "" : "absent or ") + "a string");
    }

    private static long integer(Map<String, Object> m, String key, long min, long max) {
        if (m.get(key) instanceof Long n && n >= min && n <= max) {
            return n;
        }
        throw new IllegalArgumentException("\"" + key + "\" must be an integer from " + min + " to " + max);
    }

    /** A count that may be absent: -1 then. */
    private static long optional(Map<String, Object> m, String key) {
        return m.containsKey(key) ? integer(m, key, 0, Long.MAX_VALUE) : -1;
    }

    private static Long known(long n) {
        return n < 0 ? null : n;
    }

    /** A list of strings that may be absent (empty then). */
    private static List<String> texts(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            return List.of();
        }
        if (v instanceof List<?> l && l.stream().allMatch(String.class::isInstance)) {
            return l.stream().map(String.class::cast).toList();
        }
        throw new IllegalArgumentException("\"" + key + "\" must be absent or a list of strings");
    }

    private static boolean flag(Map<String, Object> m, String key) {
        Object v = m.getOrDefault(key, Boolean.FALSE);
        if (v instanceof Boolean b) {
            return b;
        }
        throw new IllegalArgumentException("\"" + key + "\" must be true or false");
    }

    /** A copy of a pipeline map with every {@code key} option replaced, for logs. */
    private static Object redact(Object v) {
        if (v instanceof Map<?, ?> map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            map.forEach((k, x) -> out.put(k, "key".equals(k) ? "<secret>" : redact(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            return l.stream().map(AgentMessage::redact).toList();
        }
        return v;
    }
}
