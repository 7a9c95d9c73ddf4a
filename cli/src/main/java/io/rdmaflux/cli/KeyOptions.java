package io.rdmaflux.cli;

import java.io.IOException;
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

    static final String ENV = "RDFLUX_KEY";

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
     * counts are usage errors naming the expected form.
     */
    Positionals split(java.util.List<String> args, String leadingNames) {
        int leading = leadingNames.split(" ").length;
        boolean keyPositional = !keyFromElsewhere();
        int fixed = leading + (keyPositional ? 1 : 0);
        if (args.size() < fixed || args.size() > fixed + 1) {
            throw new UsageException(keyPositional
                    ? "expected " + leadingNames + " KEY [FILE] (or give the key with --key-file or " + ENV + ")"
                    : "expected " + leadingNames + " [FILE] (the key comes from "
                            + (keyFile != null ? "--key-file" : ENV) + ")");
        }
        return new Positionals(args.subList(0, leading), keyPositional ? args.get(leading) : null,
                args.size() > fixed ? args.get(fixed) : null);
    }

    /** Whether the key comes from an option or the environment, so KEY is not positional. */
    boolean keyFromElsewhere() {
        return keyFile != null || System.getenv(ENV) != null;
    }

    /** The key bytes, from the file, the environment, or the positional argument. */
    byte[] resolve(String positional) {
        if (keyFile != null) {
            try {
                String s = Files.readString(keyFile, StandardCharsets.UTF_8);
                s = s.endsWith("\r\n") ? s.substring(0, s.length() - 2) : s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
                if (s.isEmpty()) {
                    throw new UsageException("key file " + keyFile + " is empty");
                }
                return s.getBytes(StandardCharsets.UTF_8);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new UsageException("key file " + keyFile + " does not exist");
            } catch (IOException e) {
                throw new UsageException("cannot read key file " + keyFile + ": " + e.getMessage());
            }
        }
        String env = System.getenv(ENV);
        if (env != null) {
            if (env.isEmpty()) {
                throw new UsageException(ENV + " is set but empty");
            }
            return env.getBytes(StandardCharsets.UTF_8);
        }
        if (positional == null || positional.isEmpty()) {
            throw new UsageException("no key given: pass KEY, --key-file FILE, or set " + ENV);
        }
        return positional.getBytes(StandardCharsets.UTF_8);
    }
}
