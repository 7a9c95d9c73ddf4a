package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.rdmaflux.connector.tree.RuleStreams.Broken;
import io.rdmaflux.connector.tree.RuleStreams.Data;
import io.rdmaflux.connector.tree.RuleStreams.End;
import io.rdmaflux.connector.tree.RuleStreams.Ent;
import io.rdmaflux.connector.tree.RuleStreams.FileEnd;
import io.rdmaflux.connector.tree.RuleStreams.Rec;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.Plural;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded-random tests of {@link TreeRules}: every stream that keeps the rules is accepted
 * (generated ones, and the real {@link TreeSource}'s), and any one mutation that breaks a rule
 * is refused with the refusal the tree sink has always given it, by the rules alone and by the
 * real sink writing real files. Each failure names the seed, the case and the stream.
 */
class TreeRulesTest {

    private static final long[] SEEDS = {1, 2, 3, 42, 1234, 99_991, 7_777_777, 20_261_128};

    @TempDir
    Path dir;

    @Test
    void generatedStreamsThatKeepTheRulesAreAccepted() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            for (int i = 0; i < 300; i++) {
                List<Rec> stream = RuleStreams.valid(r, 40);
                try {
                    RuleStreams.drive(stream, rules(stream));
                } catch (RuntimeException e) {
                    fail("seed " + seed + " case " + i + ": " + e.getMessage() + "\n" + show(stream), e);
                }
            }
        }
    }

    @Test
    void theRealSourcesStreamsAreAccepted() throws IOException {
        for (long seed : new long[] {5, 6}) {
            Random r = new Random(seed);
            Path src = Trees.varied(dir.resolve("src" + seed), r.nextInt(120), seed == 5 ? 0 : 150_000, seed);
            for (int parallel : new int[] {0, 4}) {
                byte[] stream = streamOf(TreeSource.of(src, TreeSourceOptions.defaults().withParallelFiles(parallel)));
                Driver d = new Driver(TreeRules.tree(Long.MAX_VALUE, TreeSinkOptions.defaults().maxOpenFiles(), true));
                TreeParser parser = new TreeParser(d);
                // Cut anywhere: the rules see the same records.
                for (int at = 0; at < stream.length; ) {
                    int n = Math.min(stream.length - at, 1 + r.nextInt(70_000));
                    parser.feed(ByteBuffer.wrap(stream, at, n));
                    at += n;
                }
                parser.finish();
                assertThat(d.entries).as("seed %d, parallel files %d", seed, parallel).isGreaterThan(30);
            }
        }
    }

    @Test
    void everySingleBreakIsRefusedByTheRulesAsBefore() {
        for (long seed : SEEDS) {
            Random r = new Random(seed);
            for (int i = 0; i < 400; i++) {
                Broken b = broken(r);
                String why = "seed " + seed + " case " + i + " (" + b.mutation() + ")\n" + show(b.stream());
                try {
                    RuleStreams.drive(b.stream(), rules(b.stream()));
                    fail("accepted: " + why);
                } catch (RdmaFluxException e) {
                    assertThat(e.getMessage()).as(why).isEqualTo(b.message());
                    assertThat(e.code()).as(why).isEqualTo(ErrorCode.CODEC);
                }
            }
        }
    }

    @Test
    void everySingleBreakIsRefusedByTheRealSinkAsBefore() {
        int n = 0;
        for (long seed : new long[] {11, 12, 13}) {
            Random r = new Random(seed);
            for (int i = 0; i < 70; i++) {
                Broken b = broken(r);
                if (b.rulesOnly()) {
                    continue;
                }
                String why = "seed " + seed + " case " + i + " (" + b.mutation() + ")\n" + show(b.stream());
                Path dest = dir.resolve("dest" + seed + "-" + i);
                byte[] stream = RuleStreams.render(b.stream());
                assertThatThrownBy(() -> TreeSink.of(dest).writeTree(Trees.chunks(stream, 1 + r.nextInt(4000))).block(T))
                        .as(why)
                        .isInstanceOf(RdmaFluxException.class)
                        // then what the sink did about it: "; no partial file left ..."
                        .hasMessageStartingWith(b.message() + "; ");
                n++;
            }
        }
        assertThat(n).isGreaterThan(150);
    }

    @Test
    void aListingKeepsTheSequenceAndCarriesNoContents() {
        TreeRules rules = TreeRules.listing();
        assertThatThrownBy(() -> rules.header(0)).hasMessageContaining("a tree with contents where a listing was expected");
        TreeEntry root = new TreeEntry("", TreeEntry.Kind.DIRECTORY, 0755, 0, 0, null, null);
        TreeEntry file = new TreeEntry("a", TreeEntry.Kind.FILE, 0644, 0, 3, null, null);
        rules.header(TreeFormat.FLAG_LISTING);
        rules.entry(0, root, 0);
        assertThatThrownBy(() -> rules.entry(2, file, 0)).hasMessage("refused tree stream: entry 2 out of sequence");
        assertThatThrownBy(() -> rules.entry(2, file, TreeFormat.F_DATA))
                .hasMessage("refused tree stream: a listing entry with contents");
        assertThatThrownBy(() -> rules.contents(1, "DATA", 3)).hasMessage("refused tree stream: contents in a listing");
        assertThatThrownBy(() -> rules.fileEnd(1, null, 3)).hasMessage("refused tree stream: contents in a listing");
        assertThatThrownBy(() -> rules.end(2, 0, 0)).hasMessage("refused tree stream: END counts 2 entries, the listing had 3");
        assertThatThrownBy(() -> rules.end(1, 0, 0)).as("one entry is no \"1 entries\"")
                .hasMessage("refused tree stream: END counts 1 entry, the listing had 3");
        TreeRules tree = TreeRules.tree(Long.MAX_VALUE, 4, false);
        assertThatThrownBy(() -> tree.header(TreeFormat.FLAG_LISTING))
                .hasMessageContaining("a listing where a tree with contents was expected");
    }

    @Test
    void noMoreFilesOpenThanTheLimit() {
        TreeRules rules = TreeRules.tree(Long.MAX_VALUE, 2, false);
        rules.entry(0, new TreeEntry("", TreeEntry.Kind.DIRECTORY, 0755, 0, 0, null, null), 0);
        rules.directoryMade("");
        for (int id = 1; id <= 3; id++) {
            TreeEntry f = new TreeEntry("f" + id, TreeEntry.Kind.FILE, 0644, 0, 1, null, null);
            rules.entry(id, f, TreeFormat.F_DATA);
            if (id < 3) {
                rules.opened(id, f);
            } else {
                assertThatThrownBy(() -> rules.opened(3, f))
                        .hasMessage("refused tree stream: more than 2 files open at once (entry 'f3')");
            }
        }
        assertThat(rules.fileEnd(1, "unreadable", 0)).isNull();   // one closes: room for the next
        rules.opened(3, new TreeEntry("f3", TreeEntry.Kind.FILE, 0644, 0, 1, null, null));
    }

    private static TreeRules rules(List<Rec> stream) {
        return TreeRules.tree(Long.MAX_VALUE, 1000, stream.size() % 2 == 0);
    }

    // ---- mutations: each breaks one rule of a valid stream -------------------------------

    private record Mutation(String name, Function<Case, Broken> apply) {
    }

    /** A valid stream being broken, and its random source. */
    private record Case(Random r, List<Rec> stream) {
        List<Ent> entries() {
            return RuleStreams.number(stream);
        }

        /** A random entry other than the root, or null when there is none. */
        Ent nonRoot() {
            List<Ent> e = entries();
            return e.size() < 2 ? null : e.get(1 + r.nextInt(e.size() - 1));
        }

        Ent pick(int kind) {
            List<Ent> e = entries().stream().filter(x -> x.kind == kind && !x.path.isEmpty()).toList();
            return e.isEmpty() ? null : e.get(r.nextInt(e.size()));
        }

        /** Inserts {@code x} just before END. */
        void beforeEnd(Rec x) {
            stream.add(stream.size() - 1, x);
        }

        Broken broken(String mutation, Supplier<String> refusal) {
            return new Broken(mutation, stream, refusal, false);
        }
    }

    private static final List<Mutation> MUTATIONS = List.of(
            path("'..' component", p -> p + "/..", "a '..' component would leave the destination"),
            path("'..' first", p -> "../" + p, "a '..' component would leave the destination"),
            path("absolute path", p -> "/" + p, "the path is absolute"),
            path("NUL in the path", p -> p + "\0x", "the path contains a NUL character"),
            path("empty component", p -> p + "//x", "the path has an empty component"),
            path("'.' component", p -> "./" + p, "the path has a '.' component"),
            new Mutation("hard link target escaping", c -> {
                Ent h = new Ent(Crafted.HARD_LINK, 0, 0, "zz-link", "../" + c.r().nextInt(9) + "/escape");
                c.beforeEnd(h);
                return c.broken("hard link target escaping",
                        () -> h.where() + ": its link target: a '..' component would leave the destination");
            }),
            new Mutation("absolute hard link target", c -> {
                Ent h = new Ent(Crafted.HARD_LINK, 0, 0, "zz-link", "/etc/passwd");
                c.beforeEnd(h);
                return c.broken("absolute hard link target", () -> h.where() + ": its link target: the path is absolute");
            }),
            new Mutation("undeclared directory", c -> {
                Ent e = c.nonRoot();
                if (e == null) {
                    return null;
                }
                e.path = "zz-undeclared/" + e.path.substring(e.path.lastIndexOf('/') + 1);
                return c.broken("undeclared directory", () -> e.where() + ": its directory 'zz-undeclared' was not listed"
                        + " before it (an entry may not be reached through a symbolic link or a missing directory)");
            }),
            new Mutation("entry before its directory", c -> {
                for (Ent d : c.entries()) {
                    if (d.kind == Crafted.DIR && !d.path.isEmpty()) {
                        for (Ent child : c.entries()) {
                            if (child.path.startsWith(d.path + "/") && child.path.indexOf('/', d.path.length() + 1) < 0) {
                                c.stream().remove(child);
                                c.stream().add(c.stream().indexOf(d), child);
                                return c.broken("entry before its directory", () -> child.where() + ": its directory '"
                                        + d.path + "' was not listed before it (an entry may not be reached through"
                                        + " a symbolic link or a missing directory)");
                            }
                        }
                    }
                }
                return null;
            }),
            new Mutation("a directory's path again", c -> {
                Ent d = c.pick(Crafted.DIR);
                if (d == null) {
                    return null;
                }
                int kind = new int[] {Crafted.DIR, Crafted.SYMLINK, Crafted.FILE}[c.r().nextInt(3)];
                Ent again = new Ent(kind, 0, 0, d.path, kind == Crafted.SYMLINK ? "t" : "");
                c.beforeEnd(again);
                return c.broken("a directory's path again", () -> again.where() + " takes the path of a directory listed earlier");
            }),
            new Mutation("id skipped", c -> {
                Ent e = c.entries().get(c.r().nextInt(c.entries().size()));
                int expected = e.id;
                e.idOverride = e.id + 1 + c.r().nextInt(3);
                return c.broken("id skipped", () -> e.where() + " out of sequence (expected entry " + expected + ")");
            }),
            new Mutation("a second root", c -> {
                Ent root = new Ent(Crafted.DIR, 0, 0, "", "");
                c.beforeEnd(root);
                return c.broken("a second root", () -> root.where() + ": only the first entry may be the root");
            }),
            new Mutation("root not first", c -> {
                Ent root = c.entries().get(0);
                root.path = "zz-root";
                root.flags = 0;
                return c.broken("root not first", () -> "the first entry must be the root (an empty path), not 'zz-root'");
            }),
            new Mutation("root a hard link", c -> {
                Ent root = c.entries().get(0);
                root.kind = Crafted.HARD_LINK;
                root.link = "elsewhere";
                root.flags = 0;
                return c.broken("root a hard link", () -> "the root is a hard link");
            }),
            new Mutation("entries below a root that is not a directory", c -> {
                Ent root = c.entries().get(0);
                if (c.entries().size() < 2) {
                    return null;
                }
                root.kind = Crafted.SYMLINK;
                root.link = "t";
                root.flags = 0;
                Ent second = c.entries().get(1);
                return c.broken("root not a directory", () -> second.where() + ": the root is not a directory, so it is the only entry");
            }),
            new Mutation("hard link to no file the stream wrote", c -> {
                Ent d = c.pick(Crafted.DIR);
                String to = d != null && c.r().nextBoolean() ? d.path : "zz-nothing";
                Ent h = new Ent(Crafted.HARD_LINK, 0, 0, "zz-link", to);
                c.beforeEnd(h);
                return c.broken("hard link to nothing written",
                        () -> "hard link 'zz-link' names '" + to + "', which is not a file this stream wrote");
            }),
            new Mutation("contents for a file not open", c -> {
                Ent e = c.entries().get(c.r().nextInt(c.entries().size()));
                boolean hole = c.r().nextBoolean();
                c.beforeEnd(hole ? new RuleStreams.Hole(e, 5) : new Data(e, 5));
                return c.broken("contents for a file not open",
                        () -> (hole ? "HOLE" : "DATA") + " for file " + e.id() + ", which is not open");
            }),
            new Mutation("more data than declared", c -> {
                for (Rec x : c.stream()) {
                    if (x instanceof FileEnd f && !f.failed()) {
                        c.stream().add(c.stream().indexOf(x), new Data(f.file(), 1 + c.r().nextInt(10)));
                        return c.broken("more data than declared", () -> "file '" + f.file().path + "': more data than the "
                                + f.file().size + " bytes its header says");
                    }
                }
                return null;
            }),
            new Mutation("FILE_END's length wrong", c -> {
                for (Rec x : c.stream()) {
                    if (x instanceof FileEnd f && !f.failed()) {
                        long wrong = f.file().size + 1 + c.r().nextInt(100);
                        c.stream().set(c.stream().indexOf(x), new FileEnd(f.file(), false, wrong));
                        return c.broken("FILE_END's length wrong", () -> "file '" + f.file().path + "': its header says "
                                + f.file().size + " bytes, " + f.file().size + " arrived, its end says " + wrong);
                    }
                }
                return null;
            }),
            new Mutation("END's counts wrong", c -> {
                int which = c.r().nextInt(3);
                long[] own = counts(c);
                long[] said = own.clone();
                said[which] += 1 + c.r().nextInt(5);
                c.stream().set(c.stream().size() - 1, new End(said[0], said[1], said[2]));
                return c.broken("END's counts wrong", () -> "END counts " + Plural.count(said[0], "entry", "entries") + ", "
                        + Plural.count(said[1], "byte") + " and " + Plural.count(said[2], "failure") + "; the stream had "
                        + own[0] + ", " + own[1] + " and " + own[2]);
            }),
            new Mutation("END while a file is open", c -> {
                for (Rec x : c.stream()) {
                    if (x instanceof FileEnd f && (f.file().flags & TreeFormat.F_LINK_TARGET) == 0) {
                        c.stream().remove(x);
                        return c.broken("END while a file is open",
                                () -> "END while 1 file is still open (entry '" + f.file().path + "')");
                    }
                }
                return null;
            }),
            new Mutation("entry after END", c -> {
                Ent e = new Ent(Crafted.DIR, 0, 0, "zz-late", "");
                c.stream().add(e);
                Broken b = c.broken("entry after END", () -> e.where() + " after the END record");
                return new Broken(b.mutation(), b.stream(), b.refusal(), true);   // the parser refuses it first
            }),
            new Mutation("symbolic link without a target", c -> {
                Ent s = new Ent(Crafted.SYMLINK, 0, 0, "zz-link", c.r().nextBoolean() ? "" : "a\0b");
                c.beforeEnd(s);
                return c.broken("symbolic link without a target", () -> s.where() + " has no link target or a NUL in it");
            }),
            new Mutation("a link target on a directory", c -> {
                Ent d = new Ent(Crafted.DIR, 0, 0, "zz-dir", "t");
                c.beforeEnd(d);
                return c.broken("a link target on a directory", () -> d.where() + " has a link target");
            }),
            new Mutation("container below the root", c -> {
                Ent e = c.nonRoot();
                if (e == null) {
                    return null;
                }
                e.flags |= TreeFormat.F_CONTAINER;
                return c.broken("container below the root",
                        () -> e.where() + " is marked as a container, which only a root directory may be");
            }),
            new Mutation("a directory with contents", c -> {
                Ent d = new Ent(Crafted.DIR, 0, 1 + c.r().nextInt(9), "zz-dir", "");
                c.beforeEnd(d);
                return c.broken("a directory with contents", () -> d.where() + " is a directory with contents");
            }),
            new Mutation("unknown kind", c -> {
                Ent e = c.nonRoot();
                if (e == null) {
                    return null;
                }
                int kind = 5 + c.r().nextInt(250);
                e.kind = kind;
                return c.broken("unknown kind", () -> e.where() + " is of kind " + kind
                        + ", which this version does not create (special files are not carried)");
            }),
            new Mutation("unknown mode bits", c -> {
                Ent e = c.entries().get(c.r().nextInt(c.entries().size()));
                e.mode |= 010000 << c.r().nextInt(4);
                return c.broken("unknown mode bits", () -> e.where() + " has unknown flags, mode bits or a negative size");
            }));

    /** A mutation of an entry's path: the refusal names the mutated path. */
    private static Mutation path(String name, Function<String, String> change, String problem) {
        return new Mutation(name, c -> {
            Ent e = c.nonRoot();
            if (e == null) {
                return null;
            }
            e.path = change.apply(e.path);
            return c.broken(name, () -> e.where() + ": " + problem);
        });
    }

    private static long[] counts(Case c) {
        long entries = c.entries().size();
        long bytes = 0;
        long failures = 0;
        for (Rec x : c.stream()) {
            if (x instanceof FileEnd f) {
                if (f.failed()) {
                    failures++;
                } else {
                    bytes += f.file().size;   // a file that ends well got all its declared bytes
                }
            } else if (x instanceof RuleStreams.Notice n && n.error()) {
                failures++;
            }
        }
        return new long[] {entries, bytes, failures};
    }

    /** A valid stream with one random mutation (tried until one applies to it). */
    private static Broken broken(Random r) {
        for (;;) {
            Mutation m = MUTATIONS.get(r.nextInt(MUTATIONS.size()));
            Broken b = m.apply().apply(new Case(r, new ArrayList<>(RuleStreams.valid(r, 30))));
            if (b != null) {
                return b;
            }
        }
    }

    private static String show(List<Rec> stream) {
        RuleStreams.number(stream);
        return stream.stream().map(Object::toString).collect(Collectors.joining("\n  ", "  ", ""));
    }

    private static byte[] streamOf(TreeSource source) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        source.open().doOnNext(c -> {
            ByteBuffer b = c.buffer();
            byte[] a = new byte[b.remaining()];
            b.get(a);
            out.write(a, 0, a.length);
            c.release();
        }).blockLast(T);
        return out.toByteArray();
    }

    /** Feeds a parsed stream to the rules as the sink does, every directory made, every file arriving. */
    private static final class Driver implements TreeParser.Handler {
        final TreeRules rules;
        final java.util.Map<Integer, TreeEntry> open = new java.util.HashMap<>();
        final java.util.Map<Integer, Integer> flags = new java.util.HashMap<>();
        long entries;

        Driver(TreeRules rules) {
            this.rules = rules;
        }

        @Override
        public void header(int f) {
            rules.header(f);
        }

        @Override
        public void entry(int id, TreeEntry e, int f) {
            entries++;
            assertThat(rules.entry(id, e, f)).isEqualTo(TreeRules.Verdict.WRITE);
            if (e.kind() == TreeEntry.Kind.DIRECTORY) {
                rules.directoryMade(e.path());
            } else if (e.kind() == TreeEntry.Kind.HARD_LINK) {
                assertThat(rules.hardLinkTargetArrived(e)).as(e.path()).isTrue();
            } else if ((f & TreeFormat.F_DATA) != 0) {
                rules.opened(id, e);
                open.put(id, e);
                flags.put(id, f);
            }
        }

        @Override
        public void data(int id, ByteBuffer data) {
            assertThat(rules.contents(id, "DATA", data.remaining())).isNull();
            data.position(data.limit());
        }

        @Override
        public void hole(int id, long count) {
            assertThat(rules.contents(id, "HOLE", count)).isNull();
        }

        @Override
        public void fileEnd(int id, String failure, long length, int crc) {
            assertThat(rules.fileEnd(id, failure, length)).isNull();
            rules.linkTarget(open.remove(id), flags.remove(id), failure == null);
        }

        @Override
        public void notice(boolean error, String path, String message) {
            rules.notice(error);
        }

        @Override
        public void end(long e, long bytes, long failures) {
            rules.end(e, bytes, failures);
        }
    }
}
