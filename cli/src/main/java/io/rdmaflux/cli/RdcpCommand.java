package io.rdmaflux.cli;

import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.RemoteHost;
import io.rdmaflux.cli.remote.RemoteShell;
import io.rdmaflux.codec.AesGcmStage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rdcp}: copies files and directory trees between hosts, as scp and rsync do, over the
 * channel. Each end is a pipeline ({@link CopyEnd}): a tree source with the codec stages and a
 * send sink where the files are, a receive source and a tree sink where they go, and for a
 * sync a listing of the destination sent back to the source first. Ends on other hosts run as
 * {@code rdflux agent} over ssh; the data flows between the ends directly, so a copy between
 * two remote hosts does not pass through this one.
 */
@Command(name = "rdcp", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        customSynopsis = {"rdcp [OPTIONS] SRC... DST", "rdcp [OPTIONS] SRC... --to DEST [--to DEST]..."},
        description = {
            "Copy files and directory trees between hosts at link speed, over RDMA when both hosts have it "
                + "and TCP otherwise. SRC and DST are local paths or [user@]host:path, as for scp and rsync; "
                + "the hosts are reached with ssh (batch mode: key-based login), which starts 'rdflux agent' "
                + "there. Data flows directly between the two ends, also when both are remote.",
            "",
            "As rsync: 'rdcp -r dir host:dst' makes dst/dir when dst is an existing directory, and dst as "
                + "the copy otherwise; 'dir/' (trailing slash) copies what dir holds into dst. 'dst/' is a "
                + "directory, made when missing. Several SRCs "
                + "go into DST as a directory. Each file is verified by its checksum; in a directory that "
                + "existed, it is written under a temporary name and renamed once verified, in one the copy "
                + "creates under its own name. Modes and times are kept (sticky and setgid on directories too; "
                + "setuid and setgid are dropped from files, with a warning that counts them), symbolic links "
                + "copied as links."},
        parameterListHeading = "%nArguments:%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%nExamples:%n",
        footer = {
            "  rdcp -r weights:huggingface/hub/models_dir worker:.cache/huggingface/hub/",
            "  # only what is missing or different:",
            "  rdcp --sync -r ingest-server:/videos/ ./videos/",
            "  rdcp -r --sync --delete --progress site/ web1:/srv/site/",
            "  rdcp --zstd --encrypt dump.sql backup:/dumps/",
            "  rdcp -e 'ssh -p 2222' -r data h1:",
            "",
            "An interrupted copy resumes: run the same command with --sync. A directory the copy creates gets its "
                + "name only when the copy ends (until then .rdflux-NAME.part beside it), so the re-run lands in the same "
                + "place; files that arrived are kept, and a large file cut part way is sent on from where it was cut, "
                + "once the receiving end checked the part it kept (.rdflux-NAME.part) against the source. -v ends "
                + "with what was sent: 'sent N bytes for M bytes of files written'.",
            "",
            "Exit 0 means every file was copied and verified. A source missing or unreadable, or a directory "
                + "without -r, is 66; a destination that cannot be created or written, 73 or 74."})
final class RdcpCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "SRC... DST", hideParamSyntax = true,
            description = "What to copy, and where: local paths or [user@]host:path (host: alone is the home "
                + "directory there). All SRCs are on one host.")
    List<String> args;

    @Option(names = "--to", paramLabel = "DEST", description = "Copy to several hosts at once (then give no DST): "
        + "each DEST as DST is, in a chain in the order given; each host writes the copy while it sends it on to "
        + "the next, so the source sends it once. A host that fails is named and the others complete (exit: the "
        + "first failed host's status). With --sync, a file is sent (to all) when any host lacks it or has it changed.")
    List<String> to;

    @Option(names = {"-r", "--recursive"}, description = "Copy directories, with everything below them.")
    boolean recursive;

    @Option(names = "--sync", description = "Copy only files whose size or modification time differ at the "
        + "destination (rsync's quick check); the others are left as they are.")
    boolean sync;

    @Option(names = {"-c", "--checksum"}, description = "Implies --sync: compare the files' contents (SHA-256, reads "
        + "every file on both ends) instead of size and time.")
    boolean checksum;

    @Option(names = "--delete", description = "Remove destination files that the source does not have, inside "
        + "the copied directories (so only with -r, and a directory SRC); never after any error.")
    boolean delete;

    @Mixin
    CopyHabits habits = new CopyHabits();

    @Mixin
    ZstdOption zstd = new ZstdOption();

    @Option(names = "--encrypt", description = "Encrypt with AES-256-GCM on the way, under a fresh random key "
        + "for this copy (the key always authenticates the connection; this also hides the data).")
    boolean encrypt;

    @Option(names = "--port", paramLabel = "PORT", description = "The port the receiving end listens on "
        + "(firewalls); with --sync the destination's listing goes to PORT+1. Default: one it picks. Not with --to.")
    Integer port;

    @Mixin
    ChannelFlags flags = new ChannelFlags();

    @Mixin
    RemoteOptions remote = new RemoteOptions();

    /** What a copy of these arguments does: where the files are and where they go, in the jobs' terms. */
    record Plan(RemoteHost sourceHost, Map<String, Object> source, RemoteHost destHost, String destPath,
                String name) {
    }

    /**
     * The remote shell, its agents sized for this copy's frames (a remote receive ring can
     * outgrow the default limit); a warm agent may be reached through the shared ssh connection,
     * without a login: a copy's jobs need nothing of a login's environment but its home.
     */
    private RemoteShell shell() {
        RemoteShell shell = remote.shell(System.getenv()).sizing(flags.frame.agentSizing());
        return shell.warm(shell.warm().direct());
    }

    @Override
    public Integer call() {
        Console.configure("rdcp", flags.verbose, flags.debug);
        checkOptions();
        if (to != null) {
            return Fanout.command(this, shell());   // one copy to many hosts
        }
        Plan plan = plan();
        habits.checkDelete(delete, plan);
        EntryNames names = new EntryNames(Console::outLine);
        RemoteShell shell = shell();
        boolean local = plan.sourceHost() == null && plan.destHost() == null;
        Meter meter = new Meter();
        RdcpTransfer transfer = new RdcpTransfer(this, plan, shell, local, meter::streamStarted, names);
        if (flags.progress) {
            meter.startProgress(() -> transfer.show(meter));
        }
        int code = Runner.run(transfer.run());
        transfer.show(meter);
        meter.stop();
        if (code == ExitCode.OK && habits.dryRun) {
            Console.info("dry run: nothing was changed" + (delete ? "; " + names.deleted() + " to delete" : ""));
        } else if (code == ExitCode.OK && flags.verbose) {
            AgentMessage.Progress arrived = transfer.arrived();
            long kept = Math.max(0, arrived.keptFiles());
            Console.info("copied " + (arrived.files() < 0 ? meter.summary()
                    : meter.summary(arrived.files() - kept, Math.max(0, arrived.fileBytes()), kept))
                    + (delete ? "; " + names.deleted() + " deleted" : ""));
            // What crossed the wire (the meter counts holes as done): what a sync or resume saved.
            Console.info(SentLine.of(transfer.sent(), arrived.fileBytes()));
            Console.stderr().println(meter.bandwidth());
        }
        return code;
    }

    /**
     * Checks the options rdsend has too, as rdsend does, before any end starts: the ends would
     * refuse them later, in their pipelines' terms.
     */
    void checkOptions() {
        if (checksum) {
            sync = true;   // --checksum is a way of syncing
        }
        recursive |= habits.archive;   // as rsync's -a
        if (delete && !recursive) {
            throw new UsageException("--delete removes files inside copied directories: it needs -r (or -a)");
        }
        if (port != null) {
            Ports.check(port, true);
            if (sync && port == 65535) {
                throw new UsageException("bad port 65535: with --sync the destination's listing goes to PORT+1, "
                        + "so PORT may be at most 65534");
            }
            if (port == 0) {
                port = null;   // any free port, as without --port
            }
        }
        Codecs.chain(zstd.level, encrypt, flags.options().frameSize());
    }

    /** Checks the arguments: one host for all sources, a name for each, -r where needed. */
    Plan plan() {
        if (args.size() < 2) {
            throw new UsageException("missing arguments: expected SRC... DST");
        }
        List<RemoteHost.Location> locations = new ArrayList<>();
        for (String a : args) {
            if (a.isEmpty()) {
                throw new UsageException("an empty path");
            }
            try {
                locations.add(RemoteHost.location(a));
            } catch (IllegalArgumentException e) {
                // A host part ssh would misread ('-lroot@h1:x'): the user's words, so a usage error.
                throw new UsageException("'" + a + "': " + e.getMessage());
            }
        }
        RemoteHost.Location dst = locations.remove(locations.size() - 1);
        RemoteHost sourceHost = locations.get(0).host();
        List<String> paths = new ArrayList<>();
        for (RemoteHost.Location l : locations) {
            if (!Objects.equals(l.host(), sourceHost)) {
                throw new UsageException("all SRCs must be on one host: " + locations.get(0) + " and " + l + " are not");
            }
            paths.add(l.rest().isEmpty() ? "." : l.rest());
        }
        if (!flags.transport.equals(io.rdmaflux.transport.TransportKind.AUTO) && sourceHost == null && dst.isLocal()) {
            Console.info("a local copy uses no transport" + (sync ? " (--sync's listing comes over TCP on 127.0.0.1)" : "")
                    + "; --transport is ignored");
        }
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("type", "tree");
        String name = null;
        // A remote SRC's wildcards are expanded there, as scp's remote shell does; the matches go into DST.
        boolean glob = sourceHost != null && paths.stream().anyMatch(CopyHabits::hasWildcard);
        if (paths.size() == 1 && !glob) {
            String p = paths.get(0);
            source.put("path", p);
            name = nameOf(p);
            if (p.endsWith("/")) {
                source.put("directory", true);   // as cp: 'file/' is not a directory, an error
            }
        } else {
            for (String p : paths) {
                if (nameOf(p) == null) {
                    throw new UsageException("with several SRCs each is copied under its own name; '" + p
                            + "' has none (name the directory without a trailing slash, or copy it on its own)");
                }
            }
            source.put("paths", paths);
            source.put("glob", glob);
        }
        source.put("recursive", recursive);
        return new Plan(sourceHost, source, dst.host(), dst.rest().isEmpty() ? "." : dst.rest(), name);
    }

    /** The name a copy of {@code path} gets inside an existing directory; null when its contents are copied. */
    static String nameOf(String path) {
        if (path.endsWith("/")) {
            return null;
        }
        String last = path.substring(path.lastIndexOf('/') + 1);
        return last.isEmpty() || last.equals(".") || last.equals("..") || last.equals("~") ? null : last;
    }

    /** The codec stages these options name, for the sending end's job (rdcp's and --to's alike). */
    List<Object> stages() {
        List<Object> s = new ArrayList<>();
        if (zstd.level != null) {
            s.add(Map.of("type", "zstd", "level", zstd.level));
        }
        if (encrypt) {
            s.add(Map.of("type", AesGcmStage.NAME));
        }
        return s;
    }

    /** An agent's job: a source, the stages, a sink, and how much it tells back. */
    AgentMessage.Job job(Map<String, Object> source, List<Object> stages, Map<String, Object> sink,
                         long progress, int named) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", source);
        if (!stages.isEmpty()) {
            m.put("stages", stages);
        }
        m.put("sink", sink);
        return new AgentMessage.Job(m, progress, flags.verbose, flags.debug, named);
    }

    /** A tree sink's or listing's DEST options (single copy and --to alike): the path, and the name to make inside an existing directory. */
    static Map<String, Object> destination(String type, Plan plan) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put("path", plan.destPath());
        if (plan.name() != null) {
            m.put("name", plan.name());
            if (plan.destPath().endsWith("/")) {
                m.put("directory", true);   // as rsync: DST/ is a directory, made when missing
            }
        }
        return m;
    }
}
