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
