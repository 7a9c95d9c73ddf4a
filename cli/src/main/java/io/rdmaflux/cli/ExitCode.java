package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.PartialTransferException;
import io.rdmaflux.cli.remote.RemoteException;
import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.StdoutSink;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.config.ConfigException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The tools' exit codes, from sysexits.h so scripts can tell causes apart. docs/user-guide.md
 * lists them, and every --help from {@link #helpList()}; keep the three in step.
 */
public final class ExitCode {

    public static final int OK = 0;
    /**
     * Out of memory: the JVM's heap ran out. Not returned by the tools' code: the launchers run
     * the JVM with {@code -XX:+ExitOnOutOfMemoryError}, whose status this is, and print one line
     * that says how to raise the heap (bin/rdflux-launch).
     */
    public static final int OUT_OF_MEMORY = 3;
    /**
     * Partial transfer: some files of a tree could not be read or written, the rest arrived (rdcp;
     * as rsync); or some receivers of a send sink with several destinations did not get the
     * stream, the others did (rdflux run).
     */
    public static final int PARTIAL = 23;
    /** Bad arguments or options. */
    public static final int USAGE = 64;
    /** Corrupt, tampered or undecodable data (codec failure). */
    public static final int DATA = 65;
    /** Input file missing or unreadable; the sender's source failed. */
    public static final int NO_INPUT = 66;
    /**
     * Could not connect or listen; the requested transport is unavailable; ssh could not reach a
     * host or start the remote tool.
     */
    public static final int UNAVAILABLE = 69;
    /** Internal error or protocol violation (a bug, or a foreign peer). */
    public static final int SOFTWARE = 70;
    /** Output cannot be created (missing directory, permission, not a file). */
    public static final int CANT_CREATE = 73;
    /** I/O error while writing output (disk full, broken pipe). */
    public static final int IO = 74;
    /** Stream cut short: peer died, connection lost, timeout, cancelled. Retrying may work. */
    public static final int TEMP_FAIL = 75;
    /** Checksum mismatch: bytes arrived but differ from those sent. */
    public static final int PROTOCOL = 76;
    /** Authentication failed: the two sides use different keys. */
    public static final int NO_PERMISSION = 77;
    /** A configuration that does not validate (rdflux run: the pipeline file). */
    public static final int CONFIG = 78;
    /** The receiver already serves a stream. */
    public static final int BUSY = 79;
    /** Ended by SIGHUP (the terminal went away), after cancelling the stream. */
    public static final int HANGUP = 129;
    /** Interrupted by the user (Ctrl-C, SIGINT), after cancelling the stream. */
    public static final int INTERRUPTED = 130;
    /** Standard output's reader stopped reading (| head): ended quietly, as a pipe's writer that SIGPIPE kills. */
    public static final int PIPE = 141;
    /** Terminated by SIGTERM, after cancelling the stream. */
    public static final int TERMINATED = 143;

    /** One line for each code, for every tool's --help: all tools share the table. */
    private static final Object[][] HELP = {
        {OK, "success"},
        {OUT_OF_MEMORY, "out of memory: the Java heap ran out (raise it with RDFLUX_JAVA_OPTS=-Xmx...)"},
        {PARTIAL, "partial transfer (rdcp, a tree sink): the files named on stderr did not arrive"},
        {USAGE, "bad arguments or options"},
        {DATA, "corrupt or tampered data"},
        {NO_INPUT, "input missing or unreadable, or changed while it was read"},
        {UNAVAILABLE, "cannot connect or listen; ssh cannot reach a host or start rdflux"},
        {SOFTWARE, "internal error: a bug (see --debug), or a peer that is not rdma-flux"},
        {CANT_CREATE, "cannot create the output"},
        {IO, "cannot write the output (disk full, broken pipe)"},
        {TEMP_FAIL, "cut short: peer died or was interrupted, connection lost, timeout"},
        {PROTOCOL, "checksum mismatch: bytes arrived but differ from those sent"},
        {NO_PERMISSION, "wrong key: the two sides use different keys"},
        {CONFIG, "configuration does not validate (pipeline file, a remote end's job)"},
        {BUSY, "the receiver already serves a stream"},
        {HANGUP, "ended by SIGHUP (the terminal went away)"},
        {INTERRUPTED, "interrupted (Ctrl-C, SIGINT)"},
        {PIPE, "standard output's reader stopped reading (| head): quietly, as cat"},
        {TERMINATED, "terminated (SIGTERM)"},
    };

    private ExitCode() {
    }

    /** Every code and its meaning, in order, as picocli's exit-code list shows them (codes right-aligned). */
    static Map<String, String> helpList() {
        Map<String, String> list = new LinkedHashMap<>();
        for (Object[] row : HELP) {
            list.put(String.format(Locale.ROOT, "%3d", (Integer) row[0]), (String) row[1]);
        }
        return list;
    }

    /**
     * The exit code for a failure. One rule for every tool, as a shell with {@code set -o
     * pipefail} reports a pipe: when a command the tool ran failed with a status of its own
     * (rdsend's or rdrecv's {@code --command}, a command source, filter or sink of
     * {@code rdflux run}, an rdpipe segment, an agent's job), that status, 128 + N for death by
     * signal N; otherwise the code of the cause, from the table.
     */
    public static int of(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ConnectorException ce && ce.exitStatus().isPresent() && ce.exitStatus().getAsInt() > 0) {
                return Math.min(255, ce.exitStatus().getAsInt());
            }
        }
        return ofCause(t);
    }

    private static int ofCause(Throwable t) {
        if (StdoutSink.readerGone(t)) {
            return PIPE;
        }
        if (t instanceof SegmentFailure sf) {
            return sf.status();
        }
        if (t instanceof ConnectorException ce) {
            return switch (ce.reason()) {
                case NOT_FOUND, NOT_A_FILE -> ce.code() == ErrorCode.SOURCE_FAILED ? NO_INPUT : CANT_CREATE;
                case PERMISSION_DENIED -> ce.code() == ErrorCode.SOURCE_FAILED ? NO_INPUT : CANT_CREATE;
                case NO_SPACE, BROKEN_PIPE, IO -> ce.code() == ErrorCode.SOURCE_FAILED ? NO_INPUT : IO;
            };
        }
        if (t instanceof RemoteException re) {
            return switch (re.kind()) {
                // The agent's own status: the same table, or a remote command's status (rdpipe).
                case JOB_FAILED -> re.remoteStatus() > 0 ? re.remoteStatus() : SOFTWARE;
                case LOST -> TEMP_FAIL;
                case UNREACHABLE, AUTHENTICATION, HOST_KEY, TOOL_MISSING, TOOL_FAILED -> UNAVAILABLE;
            };
        }
        // A job whose options its host cannot serve (an agent's buffer budget), as the tools' own usage errors.
        if (t instanceof UsageException) {
            return USAGE;
        }
        if (t instanceof PartialTransferException) {
            return PARTIAL;
        }
        // An option a plugin could check only when it ran (a FIFO key file read at the start).
        if (t instanceof ConfigException || t instanceof io.rdmaflux.pipeline.config.InvalidOptionException) {
            return CONFIG;
        }
        if (t instanceof RdmaFluxException pe) {
            return of(pe.code());
        }
        return SOFTWARE;
    }

    /** The status of a process that a signal ended: 128 + its number, as shells report it. */
    static int ofSignal(int number) {
        return 128 + number;
    }

    /** The exit code for a stream failure's classified cause. */
    static int of(ErrorCode code) {
        return switch (code) {
            case PROTOCOL, VERSION, INTERNAL -> SOFTWARE;
            case AUTHENTICATION -> NO_PERMISSION;
            case TRUNCATED, CANCELLED, STOPPED, TIMEOUT, INTERRUPTED -> TEMP_FAIL;
            case BUSY -> BUSY;
            case CHECKSUM -> PROTOCOL;
            case SINK_FAILED -> IO;
            case SOURCE_FAILED -> NO_INPUT;
            case CODEC -> DATA;
            case CONNECT, TRANSPORT_UNAVAILABLE -> UNAVAILABLE;
        };
    }
}
