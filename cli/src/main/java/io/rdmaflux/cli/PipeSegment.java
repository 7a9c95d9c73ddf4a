package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.ShellWords;
import java.util.List;

/**
 * One argument of rdpipe: {@code [user@]host:'command'}, or a local {@code 'command'}; the
 * command may instead be one of rdma-pipe's operators, {@code < file} (the chain starts from
 * the file), {@code > file} or {@code >> file} (the chain ends in it).
 *
 * @param number the segment's place on the command line, from 1
 * @param host   where it runs, or null for this host
 * @param kind   a command or an operator
 * @param text   the command, or the operator's file
 */
record PipeSegment(int number, RemoteHost host, Kind kind, String text) {

    /** What a segment does. */
    enum Kind {
        /** Its input through a shell command. */
        COMMAND,
        /** {@code < file}: reads the file; the chain's earlier output, if any, is discarded. */
        READ,
        /** {@code > file}: writes its input to the file and passes an empty stream on. */
        WRITE,
        /** {@code >> file}: appends its input to the file and passes an empty stream on. */
        APPEND
    }

    /**
     * Parses the argument at {@code number} (from 1).
     *
     * @throws UsageException for an empty command or an operator without exactly one file name
     */
    static PipeSegment parse(int number, String argument) {
        RemoteHost.Location where;
        try {
            where = RemoteHost.location(argument);
        } catch (IllegalArgumentException e) {
            throw new UsageException("segment " + number + " '" + argument + "': " + e.getMessage());
        }
        String rest = where.rest().strip();
        if (rest.isEmpty()) {
            throw new UsageException("segment " + number + " '" + argument + "': no command");
        }
        Kind kind = rest.startsWith("<") ? Kind.READ : rest.startsWith(">>") ? Kind.APPEND
                : rest.startsWith(">") ? Kind.WRITE : Kind.COMMAND;
        if (kind == Kind.COMMAND) {
            return new PipeSegment(number, where.host(), kind, rest);
        }
        String operand = rest.substring(kind == Kind.APPEND ? 2 : 1);
        List<String> words;
        try {
            words = ShellWords.split(operand);
        } catch (IllegalArgumentException e) {
            throw new UsageException("segment " + number + " '" + argument + "': " + e.getMessage());
        }
        if (words.size() != 1 || words.get(0).isEmpty()) {
            throw new UsageException("segment " + number + " '" + argument + "': '" + rest.substring(0, kind == Kind.APPEND
                    ? 2 : 1) + "' takes one file name (quote a name with spaces); for more, use a command");
        }
        return new PipeSegment(number, where.host(), kind, words.get(0));
    }

    /** Whether it runs on this host. */
    boolean isLocal() {
        return host == null;
    }

    /** The host's name as given, or "local". */
    String where() {
        return host == null ? "local" : host.toString();
    }

    /** As the user wrote it, for messages: {@code h2:'tr a-z A-Z'}, {@code '> copy'}. */
    String shown() {
        String t = switch (kind) {
            case COMMAND -> text;
            case READ -> "< " + ShellWords.quote(text);
            case WRITE -> "> " + ShellWords.quote(text);
            case APPEND -> ">> " + ShellWords.quote(text);
        };
        return (host == null ? "" : host + ":") + ShellWords.quote(t);
    }
}
