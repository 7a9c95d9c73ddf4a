package io.rdmaflux.cli.remote;

import io.rdmaflux.pipeline.config.ValueType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * How the coordinators (rdcp, rdpipe) start {@code rdflux agent} on other hosts: the remote
 * shell command (ssh unless {@code -e}/{@code RDFLUX_RSH} says otherwise) and the tool's path
 * there (as rsync's {@code --rsync-path}). Immutable; each setter returns a configured copy.
 *
 * <pre>{@code
 * RemoteShell shell = RemoteShell.fromEnvironment(System.getenv()).rsh("ssh -F cluster.conf");
 * RemoteAgent agent = shell.startAgent(RemoteHost.parse("backup"));
 * }</pre>
 *
 * <p>With ssh, {@code BatchMode=yes} (a password prompt would hang the tool; keys or an agent
 * are required) and {@code ConnectTimeout} are added after the command's own words, so that
 * options the user gives in {@code -e} win (ssh takes the first value it is given); so do
 * {@code -T} (no terminal: stdin and stdout carry the agent protocol), {@code -x} and
 * {@code -a} (no X11 or agent forwarding to hosts that only move data), ssh's keep-alive
 * unless the user set it ({@link SshKeepAlive}), and, from
 * {@link #fromEnvironment}, connection sharing ({@link SshSharing}).
 */
public final class RemoteShell {

    /** The environment variable that replaces the ssh command, as {@code -e} does. */
    public static final String RSH_ENV = "RDFLUX_RSH";
    /** The remote tool when {@code --rdflux-path} is not given: rdflux on the remote PATH. */
    public static final String DEFAULT_TOOL = "rdflux";
    /** How long ssh may take to connect, by default. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The environment variable that sets the start timeout, as {@code --start-timeout} does. */
    public static final String START_TIMEOUT_ENV = "RDFLUX_START_TIMEOUT";
    /**
     * How long an agent may take to start by default, from running ssh to the agent's hello:
     * ssh's connect timeout and 30 s for the login and the remote JVM's start.
     */
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(40);

    /** An ssh option word that sets connection sharing ({@code -oControlPath=..}, or the word after {@code -o}). */
    private static final Pattern CONTROL_OPTION = Pattern.compile("(-o)?\\s*control(master|path|persist)",
            Pattern.CASE_INSENSITIVE);

    private final List<String> rsh;
    private final String tool;
    private final Duration connectTimeout;
    private final Duration startTimeout;
    private final BiConsumer<RemoteHost, String> log;
    /** The per-user cache of releases on the remote hosts, looked in first; null: rdflux on PATH only. */
    private final RemoteInstall release;
    private final SshSharing sharing;
    private final WarmAgents warm;
    private final AgentSizing sizing;

    private RemoteShell(List<String> rsh, String tool, Duration connectTimeout, Duration startTimeout,
                        BiConsumer<RemoteHost, String> log, RemoteInstall release, SshSharing sharing,
                        WarmAgents warm, AgentSizing sizing) {
        this.rsh = List.copyOf(rsh);
        this.tool = tool;
        this.connectTimeout = connectTimeout;
        this.startTimeout = startTimeout;
        this.log = log;
        this.release = release;
        this.sharing = sharing;
        this.warm = warm;
        this.sizing = sizing;
    }

    /**
     * ssh, rdflux on the remote PATH, a 10 s connect timeout, a 40 s start timeout, no connection
     * sharing; remote stderr printed as "host: line".
     */
    public static RemoteShell create() {
        return new RemoteShell(List.of("ssh"), DEFAULT_TOOL, DEFAULT_CONNECT_TIMEOUT, DEFAULT_START_TIMEOUT,
                (host, line) -> System.err.println(host + ": " + line), null, SshSharing.off(), WarmAgents.off(),
                AgentSizing.DEFAULT);
    }

    /**
     * {@link #create()}, with the command from {@value #RSH_ENV} and the start timeout (a
     * duration: 40s, 2m, or seconds) from {@value #START_TIMEOUT_ENV} when they are set and not
     * blank, and ssh connection sharing as {@link SshSharing#fromEnvironment} says (on unless
     * {@value SshSharing#ENV} is {@code no}).
     *
     * @throws IllegalArgumentException when one of them is not valid; the message names it
     */
    public static RemoteShell fromEnvironment(Map<String, String> env) {
        RemoteShell shell = create().sharing(SshSharing.fromEnvironment(env)).warm(WarmAgents.fromEnvironment(env));
        String rsh = env.get(RSH_ENV);
        if (rsh != null && !rsh.isBlank()) {
            shell = shell.rsh(rsh);
        }
        String start = env.get(START_TIMEOUT_ENV);
        if (start != null && !start.isBlank()) {
            shell = shell.startTimeout(duration(start.strip(), START_TIMEOUT_ENV));
        }
        return shell;
    }

    private static Duration duration(String text, String name) {
        try {
            return ValueType.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " must be a duration (40s, 2m, or a number of seconds), not '"
                    + text + "'");
        }
    }

    /**
     * The remote shell command, split into words as rsync splits its {@code -e} (quotes group
     * words; see {@link ShellWords#split}).
     *
     * @throws IllegalArgumentException when it is empty or a quote is not closed
     */
    public RemoteShell rsh(String commandLine) {
        List<String> words = ShellWords.split(commandLine);
        if (words.isEmpty()) {
            throw new IllegalArgumentException("the remote shell command is empty");
        }
        return new RemoteShell(words, tool, connectTimeout, startTimeout, log, release, sharing, warm, sizing);
    }

    /**
     * The rdflux command on the remote host. Like rsync's {@code --rsync-path} it is shell text,
     * run as given ({@code "sudo rdflux"} works); quote a path with spaces for the remote shell.
     */
    public RemoteShell rdfluxPath(String path) {
        if (Objects.requireNonNull(path, "path").isBlank()) {
            throw new IllegalArgumentException("the remote rdflux path is empty");
        }
        return new RemoteShell(rsh, path, connectTimeout, startTimeout, log, release, sharing, warm, sizing);
    }

    /** How long ssh may take to connect (its {@code ConnectTimeout}). */
    public RemoteShell connectTimeout(Duration timeout) {
        if (timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("the connect timeout must be at least 1 s");
        }
        return new RemoteShell(rsh, tool, timeout, startTimeout, log, release, sharing, warm, sizing);
    }

    /**
     * How long an agent may take to start, from running the remote shell to the agent's hello
     * (ssh connecting, the login and its startup files, the remote JVM). Raise it for hosts
     * that log in slowly or start Java slowly (an emulator, a loaded host).
     */
    public RemoteShell startTimeout(Duration timeout) {
        if (timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("the start timeout must be at least 1 s");
        }
        return new RemoteShell(rsh, tool, connectTimeout, timeout, log, release, sharing, warm, sizing);
    }

    /**
     * Where remote stderr lines go (ssh's warnings, the agent's logs), already sanitized for a
     * terminal. Called on reader threads.
     */
    public RemoteShell log(BiConsumer<RemoteHost, String> log) {
        return new RemoteShell(rsh, tool, connectTimeout, startTimeout, Objects.requireNonNull(log), release, sharing, warm, sizing);
    }

    /**
     * Runs agents from the per-user cache of {@code release} on the remote hosts when the copy
     * there is whole, before rdflux on their PATH, and, when it {@link RemoteInstall#from
     * installs}, puts it there before a host's first agent starts. Not with {@link #rdfluxPath},
     * which names the tool itself. Null: rdflux on the remote PATH only.
     */
    public RemoteShell release(RemoteInstall release) {
        return new RemoteShell(rsh, tool, connectTimeout, startTimeout, log, release, sharing, warm, sizing);
    }

    /**
     * Whether and where ssh calls share one connection per host ({@link SshSharing}); only ssh
     * does, and not when the {@code -e} words set ssh's own Control options.
     */
    public RemoteShell sharing(SshSharing sharing) {
        return new RemoteShell(rsh, tool, connectTimeout, startTimeout, log, release, Objects.requireNonNull(sharing), warm, sizing);
    }

    /**
     * Whether the agents use a warm agent on their host when there is one, and leave one after
     * their job ({@link WarmAgents}); off by {@link #create()}.
     */
    public RemoteShell warm(WarmAgents warm) {
        return new RemoteShell(rsh, tool, connectTimeout, startTimeout, log, release, sharing, Objects.requireNonNull(warm), sizing);
    }

    /**
     * The frame size and slots of the jobs the agents run, named on their command line so that
     * the remote launcher sizes their buffer memory for them ({@link AgentSizing}).
     */
    public RemoteShell sizing(AgentSizing sizing) {
        return new RemoteShell(rsh, tool, connectTimeout, startTimeout, log, release, sharing, warm, Objects.requireNonNull(sizing));
    }

    /** Whether and how agents use and leave a warm agent. */
    public WarmAgents warm() {
        return warm;
    }

    /** Whether and where ssh calls share one connection per host. */
    SshSharing sharing() {
        return sharing;
    }

    /** Whether the remote shell is OpenSSH's ssh, which gets the options in the class comment. */
    public boolean isSsh() {
        return Path.of(rsh.get(0)).getFileName().toString().equals("ssh");
    }

    /** The remote command line that starts the agent: from the release cache first when there is one. */
    public String agentCommand() {
        return release != null && tool.equals(DEFAULT_TOOL) ? release.agentCommand() : tool + " agent";
    }

    /** The remote command line that starts the agent with a hello carrying {@code nonce} (hex: no quoting needed). */
    String agentCommand(String nonce) {
        return agentCommand() + warm.words() + sizing.words() + " --hello " + nonce;
    }

    /**
     * The agent's arguments after the tool, as a warm agent's client passes them on: {@code
     * agent}, the warm and sizing words, {@code --hello NONCE} ({@link #agentCommand(String)}'s).
     */
    List<String> agentArguments(String nonce) {
        List<String> args = new ArrayList<>(List.of("agent"));
        args.addAll(warm.argumentWords());
        args.addAll(ShellWords.split(sizing.words()));
        args.addAll(List.of("--hello", nonce));
        return args;
    }

    /** The local command (argv) that runs {@code remoteCommand} on {@code host}. */
    public List<String> command(RemoteHost host, String remoteCommand) {
        List<String> argv = new ArrayList<>(rsh);
        if (isSsh()) {
            argv.addAll(List.of("-o", "BatchMode=yes", "-o", "ConnectTimeout=" + connectTimeout.toSeconds(),
                    "-T", "-x", "-a"));
            argv.addAll(SshKeepAlive.options(rsh, host.host()));   // a vanished host is noticed in about a minute
            if (!setsControl(rsh)) {
                argv.addAll(sharing.options(why -> log.accept(host, why)));
            }
        }
        argv.add(host.destination());
        argv.add(remoteCommand);
        return argv;
    }

    /**
     * Starts {@code rdflux agent} on {@code host}; see {@link RemoteAgent}. Returns at once: how
     * the start went is told by {@link RemoteAgent#hello()}.
     *
     * @throws RemoteException when the remote shell command itself cannot be run here, or
     *                         {@code --install-remote} could not install rdflux there
     */
    public RemoteAgent startAgent(RemoteHost host) {
        if (release != null && tool.equals(DEFAULT_TOOL)) {
            release.ensure(this, host);   // --install-remote: before the start timeout begins
        }
        return RemoteAgent.start(this, host);
    }

    /** Whether ssh's words already say how to share connections (-M, -S, -o Control...): theirs then apply. */
    private static boolean setsControl(List<String> words) {
        return words.stream().skip(1).anyMatch(w -> w.startsWith("-M") || w.startsWith("-S")
                || CONTROL_OPTION.matcher(w).lookingAt());
    }

    String tool() {
        return tool;
    }

    Duration connectTimeout() {
        return connectTimeout;
    }

    /** How long an agent may take to start, from running the remote shell to its hello; see {@link #startTimeout(Duration)}. */
    public Duration startTimeout() {
        return startTimeout;
    }

    BiConsumer<RemoteHost, String> log() {
        return log;
    }

    @Override
    public String toString() {
        return "RemoteShell[" + ShellWords.join(rsh) + ", " + tool + "]";
    }
}
