package io.rdmaflux.connector;

import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.connector.process.ProcessGroup;
import io.rdmaflux.error.ErrorCode;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The checks before a command starts, so that what cannot run fails with one clear line and
 * nothing is left half-started: the platform (setsid, /proc, /bin/sh), the working directory,
 * the program, the shell.
 */
final class CommandChecks {

    private CommandChecks() {
    }

    /**
     * @param code SINK_FAILED or SOURCE_FAILED, for the exception
     * @throws ConnectorException (NOT_FOUND or PERMISSION_DENIED) when the command cannot run
     */
    static void check(CommandLine command, CommandOptions options, ErrorCode code) {
        checkPlatform(command, code);
        if (options.directory() != null && !Files.isDirectory(options.directory())) {
            throw new ConnectorException(code, Reason.NOT_FOUND, "cannot run " + command.quoted()
                    + ": working directory " + options.directory() + " does not exist", null);
        }
        command.checkRunnable(options.environment().getOrDefault("PATH", options.inherit() ? System.getenv("PATH") : null),
                options.directory(), code);
        if (command.shell() && !Files.isExecutable(options.shell())) {
            throw new ConnectorException(code, Reason.NOT_FOUND, "cannot run " + command.quoted() + ": its shell "
                    + options.shell() + " is not an executable file", null);
        }
    }

    private static void checkPlatform(CommandLine command, ErrorCode code) {
        String missing = ProcessGroup.setsid().isEmpty() ? "setsid (util-linux) is not installed"
                : !Files.isDirectory(Path.of("/proc/self/fd")) ? "/proc is not mounted (commands need Linux)"
                : !Files.isExecutable(Path.of("/bin/sh")) ? "/bin/sh is missing" : null;
        if (missing != null) {
            throw new ConnectorException(code, Reason.NOT_FOUND, "cannot run " + command.quoted() + ": " + missing, null);
        }
    }
}
