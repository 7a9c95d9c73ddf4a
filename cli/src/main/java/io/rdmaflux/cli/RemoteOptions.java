package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.ReleaseVersion;
import io.rdmaflux.cli.remote.RemoteInstall;
import io.rdmaflux.cli.remote.RemoteShell;
import java.nio.file.Path;
import io.rdmaflux.cli.remote.SshSharing;
import io.rdmaflux.cli.remote.WarmAgents;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options of the tools that start agents on other hosts over ssh (rdcp, rdpipe), as rsync's. */
final class RemoteOptions {

    @Option(names = {"-e", "--rsh"}, paramLabel = "COMMAND",
            description = "The remote shell instead of ssh, split into words as rsync's -e (quotes group words), "
                + "e.g. -e \"ssh -p 2222 -i ~/.ssh/cluster\". Also from " + RemoteShell.RSH_ENV + ".")
    String rsh;

    @Option(names = "--rdflux-path", paramLabel = "PATH",
            description = "The rdflux command on the remote hosts (default: rdflux on their PATH). Shell text, "
                + "as rsync's --rsync-path: \"sudo rdflux\" works.")
    String rdfluxPath;

    @Option(names = "--start-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long each remote agent may take to start, from running ssh to the agent's hello "
                + "(the login, its startup files, the remote JVM): " + DurationConverter.FORMS + ". Default: 40s, or "
                + RemoteShell.START_TIMEOUT_ENV + ". Raise it for hosts that log in or start Java slowly.")
    Duration startTimeout;

    @Option(names = "--install-remote",
            description = "Copy this host's rdma-flux release over the same ssh to hosts that lack it, into "
                + RemoteInstall.CACHE + "/VERSION there (checksum verified, renamed into place when whole), and run "
                + "it from there; later calls find it there without this option. Also makes its start-up archive "
                + "there and removes other versions there that nothing uses. Says on stderr what it did.")
    boolean installRemote;

    @Option(names = "--no-ssh-share",
            description = "Do not share one ssh connection per host between calls. By default the first call to a host "
                + "leaves a master connection for 5 idle minutes (ssh's ControlMaster/ControlPersist, sockets in "
                + "$XDG_RUNTIME_DIR/rdflux/ssh or ~/.cache/rdflux/ssh) and later calls log in through it. Also "
                + SshSharing.ENV + "=no; " + SshSharing.ENV + "=DURATION sets the idle time.")
    boolean noSshShare;

    @Option(names = "--no-warm-agent",
            description = "Start a fresh agent JVM on each host, and leave none behind. By default an agent leaves a "
                + "warm agent (a per-user daemon, socket in $XDG_RUNTIME_DIR/rdflux/agent or ~/.cache/rdflux/agent "
                + "there) that serves the next calls without a new JVM and exits after 5 idle minutes. Also "
                + WarmAgents.ENV + "=no; " + WarmAgents.ENV + "=DURATION sets the idle time.")
    boolean noWarmAgent;

    /** The remote shell these options and {@code env} describe; remote stderr goes to the console. */
    RemoteShell shell(Map<String, String> env) {
        try {
            Map<String, String> vars = env;
            if (startTimeout != null || noSshShare || noWarmAgent) {
                vars = new HashMap<>(env);
                if (startTimeout != null) {
                    vars.remove(RemoteShell.START_TIMEOUT_ENV);   // the option wins, even over a bad value
                }
                if (noSshShare) {
                    vars.remove(SshSharing.ENV);
                }
                if (noWarmAgent) {
                    vars.remove(WarmAgents.ENV);
                }
            }
            RemoteShell shell = RemoteShell.fromEnvironment(vars);
            if (rsh != null) {
                shell = shell.rsh(rsh);
            }
            if (rdfluxPath != null) {
                if (installRemote) {
                    throw new UsageException("--install-remote and --rdflux-path exclude each other: "
                            + "--rdflux-path names the remote tool, --install-remote puts this host's there");
                }
                shell = shell.rdfluxPath(rdfluxPath);
            } else {
                // The release a remote host has in its cache, for this version, comes before PATH's.
                shell = shell.release(installRemote ? installer() : RemoteInstall.lookup(ReleaseVersion.local()));
            }
            if (noSshShare) {
                shell = shell.sharing(SshSharing.off());
            }
            if (noWarmAgent) {
                shell = shell.warm(WarmAgents.off());
            }
            if (startTimeout != null) {
                if (startTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
                    throw new UsageException("--start-timeout must be at least 1s");
                }
                shell = shell.startTimeout(startTimeout);
            }
            return shell.log((host, line) -> Console.info(host + ": " + line));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage() + (rsh == null && env.get(RemoteShell.RSH_ENV) != null
                    && !e.getMessage().startsWith(RemoteShell.START_TIMEOUT_ENV) && !e.getMessage().startsWith(SshSharing.ENV)
                    && !e.getMessage().startsWith(WarmAgents.ENV)
                    ? " (in " + RemoteShell.RSH_ENV + ")" : ""));
        }
    }

    /** The release this tool runs from, for --install-remote; a usage error when it is not one. */
    private static RemoteInstall installer() {
        Path jar = RemoteInstall.ownJar();
        if (jar == null) {
            throw new UsageException("--install-remote cannot tell where this rdflux is installed");
        }
        try {
            return RemoteInstall.from(ReleaseVersion.local(), RemoteInstall.releaseRoot(jar));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }
}
