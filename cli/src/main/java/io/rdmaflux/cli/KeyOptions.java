package io.rdmaflux.cli;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.pipeline.SharedKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where the shared key comes from. On the command line (as rdma-pipe takes it) it is visible
 * to every user through {@code ps}; a key file (readable by its owner only) or the
 * {@code RDFLUX_KEY} environment variable keep it private.
 */
final class KeyOptions {

    static final String ENV = SharedKey.ENV;

    @Option(names = "--key-file", paramLabel = "FILE",
            description = "Read the shared key from FILE (trailing newline ignored). Then KEY is not given.")
    Path keyFile;

    /**
     * The positional arguments of rdsend and rdrecv, {@code LEADING... [KEY] [FILE]}: KEY is
     * positional (as rdma-pipe takes it) unless {@code --key-file} or {@code RDFLUX_KEY} gives it.
     *
     * @param leading the arguments before KEY (HOST PORT, or PORT)
     * @param key     the KEY argument, or null when the key comes from elsewhere (see {@link #resolve})
     * @param file    the optional FILE, or null
     */
    record Positionals(java.util.List<String> leading, String key, String file) {
    }

    /**
     * Splits {@code args} into {@code leadingNames} (such as "HOST PORT"), KEY and FILE; wrong
     * counts are usage errors naming the expected form. Refuses to guess where rdma-pipe's
     * habits make an argument ambiguous: a KEY that names an existing file while no FILE is
     * given (the key was forgotten), and, with the key in RDFLUX_KEY, a bare word where an
     * output FILE goes (it may be the key typed as rdma-pipe takes it).
     *
     * @param output whether FILE is written (rdrecv) rather than read (rdsend)
     */
    Positionals split(java.util.List<String> args, String leadingNames, boolean output) {
        int leading = leadingNames.split(" ").length;
        boolean keyPositional = !keyFromElsewhere();
        int fixed = leading + (keyPositional ? 1 : 0);
        if (args.size() < fixed || args.size() > fixed + 1) {
            throw new UsageException(keyPositional
                    ? "expected " + leadingNames + " KEY [FILE] (or give the key with --key-file or " + ENV + ")"
                    : "expected " + leadingNames + " [FILE] (the key comes from "
                            + (keyFile != null ? "--key-file" : ENV) + ")");
        }
        String key = keyPositional ? args.get(leading) : null;
        String file = args.size() > fixed ? args.get(fixed) : null;
        if (key != null && file == null && Files.isRegularFile(Path.of(key))) {
            throw new UsageException("'" + key + "' was taken as KEY, but it names a file: if that is the FILE to "
                    + (output ? "write" : "send") + ", give the key before it (" + leadingNames + " KEY " + key
                    + "), or with --key-file or " + ENV);
        }
        if (output && !keyPositional && keyFile == null && file != null && !file.equals("-") && !file.contains("/")) {
            throw new UsageException("is '" + file + "' the key or the file to write? " + ENV + " gives the key, "
                    + "so FILE is expected there: leave '" + file + "' out to write standard output, or write ./"
                    + file + " to name a file");
        }
        return new Positionals(args.subList(0, leading), key, file);
    }

    /**
     * {@code e}, with a hint when FILE may be a key typed out of habit: it is missing, and the
     * key came from RDFLUX_KEY.
     */
    ConnectorException explainMissingInput(ConnectorException e, String file) {
        if (e.reason() != ConnectorException.Reason.NOT_FOUND || keyFile != null || System.getenv(ENV) == null
                || file == null || file.contains("/")) {
            return e;
        }
        return new ConnectorException(e.code(), e.reason(), e.getMessage() + " (" + ENV + " gives the key, so '"
                + file + "' was taken as FILE)", e.getCause());
    }

    /** Whether the key comes from an option or the environment, so KEY is not positional. */
    boolean keyFromElsewhere() {
        return keyFile != null || System.getenv(ENV) != null;
    }

    /** The key bytes, from the file, the environment, or the positional argument ({@link SharedKey}). */
    byte[] resolve(String positional) {
        try {
            if (keyFile != null) {
                byte[] key = SharedKey.fromFile(keyFile);
                // Like ssh with private keys: a key file that others can read is worth a warning.
                SharedKey.readableByOthers(keyFile).ifPresent(p -> Console.warn("key file " + keyFile
                        + " can be read by other users (" + p + "): restrict it with chmod 600 " + keyFile));
                return key;
            }
            byte[] env = SharedKey.fromEnvironment(ENV);
            if (env != null) {
                return env;
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (positional == null || positional.isEmpty()) {
            throw new UsageException("no key given: pass KEY, --key-file FILE, or set " + ENV);
        }
        return positional.getBytes(StandardCharsets.UTF_8);
    }
}
