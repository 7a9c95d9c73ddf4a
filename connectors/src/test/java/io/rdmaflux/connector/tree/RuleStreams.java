package io.rdmaflux.connector.tree;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * Tree streams as lists of records, for the seeded-random tests of {@link TreeRules}: a
 * generator of streams that keep every rule (random trees, interleaved contents, sender
 * failures, notices), single mutations that each break one rule with the refusal they must
 * get, a driver that feeds records to the rules as the sink does, and a renderer to bytes
 * ({@link Crafted}) for the real sink. Ids and END's counts are worked out when a stream is
 * driven or rendered, so that records can be moved and inserted.
 */
final class RuleStreams {

    private RuleStreams() {
    }

    /** One record. */
    interface Rec {
    }

    /** An ENTRY; {@code id} is its place among the entries unless {@code idOverride} is set. */
    static final class Ent implements Rec {
        int kind;
        int flags;
        int mode = 0644;
        long size;
        String path;
        String link = "";
        Integer idOverride;
        int id;

        Ent(int kind, int flags, long size, String path, String link) {
            this.kind = kind;
            this.flags = flags;
            this.size = size;
            this.path = path;
            this.link = link;
            this.mode = kind == Crafted.DIR ? 0755 : 0644;
        }

        int id() {
            return idOverride != null ? idOverride : id;
        }

        /** How the rules name it in a refusal. */
        String where() {
            return "entry " + id() + " '" + path + "'";
        }

        @Override
        public String toString() {
            return "ENTRY " + id() + " kind " + kind + " flags " + flags + " size " + size + " '" + path + "'"
                    + (link.isEmpty() ? "" : " -> '" + link + "'");
        }
    }

    /** DATA for a file: {@code n} bytes, each the low byte of its offset plus the file's id. */
    record Data(Ent file, int n) implements Rec {
        @Override
        public String toString() {
            return "DATA " + file.id() + " " + n;
        }
    }

    record Hole(Ent file, long n) implements Rec {
        @Override
        public String toString() {
            return "HOLE " + file.id() + " " + n;
        }
    }

    /** FILE_END; {@code length} -1: what arrived. */
    record FileEnd(Ent file, boolean failed, long length) implements Rec {
        @Override
        public String toString() {
            return "FILE_END " + file.id() + (failed ? " failed" : " ok") + " " + length;
        }
    }

    record Notice(boolean error, String path) implements Rec {
    }

    /** END; null counts: the stream's own. */
    record End(Long entries, Long bytes, Long failures) implements Rec {
        @Override
        public String toString() {
            return "END " + entries + " " + bytes + " " + failures;
        }
    }

    /** A stream that keeps every rule, of up to {@code maxEntries} entries besides the root. */
    static List<Rec> valid(Random r, int maxEntries) {
        List<Rec> out = new ArrayList<>();
        Ent root = new Ent(Crafted.DIR, r.nextInt(4) == 0 ? TreeFormat.F_CONTAINER : 0, 0, "", "");
        out.add(root);
        List<String> dirs = new ArrayList<>(List.of(""));
        List<String> targets = new ArrayList<>();
        Map<Ent, long[]> open = new HashMap<>();   // file -> {sent so far}
        int n = r.nextInt(maxEntries + 1);
        for (int i = 0; i < n; i++) {
            String parent = dirs.get(r.nextInt(dirs.size()));
            String path = (parent.isEmpty() ? "" : parent + "/") + name(r, i);
            int k = r.nextInt(20);
            if (k < 5) {
                out.add(new Ent(Crafted.DIR, 0, 0, path, ""));
                dirs.add(path);
            } else if (k < 14) {
                boolean target = r.nextBoolean();
                long size = r.nextInt(4) == 0 ? 0 : r.nextInt(3000);
                Ent f = new Ent(Crafted.FILE, TreeFormat.F_DATA | (target ? TreeFormat.F_LINK_TARGET : 0), size, path, "");
                out.add(f);
                open.put(f, new long[1]);
            } else if (k < 15) {
                out.add(new Ent(Crafted.FILE, 0, r.nextInt(100), path, ""));   // kept by a sync
            } else if (k < 18 || targets.isEmpty()) {
                // A symbolic link's target is text, never followed: anything, '..' and absolute included.
                String[] to = {"../../etc/passwd", "/abs/olute", "sibling", "a/../../b", "日本/x"};
                out.add(new Ent(Crafted.SYMLINK, 0, 0, path, to[r.nextInt(to.length)]));
            } else {
                out.add(new Ent(Crafted.HARD_LINK, 0, 0, path, targets.get(r.nextInt(targets.size()))));
            }
            if (r.nextInt(12) == 0) {
                out.add(new Notice(r.nextBoolean(), path));
            }
            // Contents of the open files, interleaved; some files end now, some later.
            for (Ent f : new ArrayList<>(open.keySet())) {
                if (r.nextInt(3) != 0) {
                    boolean part = r.nextInt(3) == 0;
                    contents(r, out, f, open.get(f), part);
                    // A file ends once all of it came, or part way when the sender could not read it.
                    boolean failed = r.nextInt(15) == 0;
                    if (r.nextInt(4) != 0 && (!part || failed)) {
                        open.remove(f);
                        end(out, f, failed, targets);
                    }
                }
            }
        }
        for (Ent f : new ArrayList<>(open.keySet())) {
            contents(r, out, f, open.remove(f), false);
            end(out, f, r.nextInt(15) == 0, targets);
        }
        out.add(new End(null, null, null));
        return out;
    }

    private static void contents(Random r, List<Rec> out, Ent f, long[] sent, boolean part) {
        long goal = part ? sent[0] + (f.size - sent[0]) / 2 : f.size;
        while (sent[0] < goal) {
            int n = (int) Math.min(goal - sent[0], 1 + r.nextInt(1200));
            out.add(r.nextInt(4) == 0 ? new Hole(f, n) : new Data(f, n));
            sent[0] += n;
        }
    }

    private static void end(List<Rec> out, Ent f, boolean failed, List<String> targets) {
        out.add(new FileEnd(f, failed, failed ? 0 : -1));
        if (!failed && (f.flags & TreeFormat.F_LINK_TARGET) != 0) {
            targets.add(f.path);
        }
    }

    /** A file or directory name of any sort a tree holds: spaces, dots, dashes, unicode. */
    private static String name(Random r, int i) {
        String[] stems = {"a", "file", "a.b", "...", ".hidden", "-dash", "with space", "日本語", "ünï", "~", "x".repeat(40)};
        return stems[r.nextInt(stems.length)] + "-" + i;
    }

    /** Assigns the entries' ids (their places) and returns them in order. */
    static List<Ent> number(List<Rec> stream) {
        List<Ent> entries = new ArrayList<>();
        for (Rec x : stream) {
            if (x instanceof Ent e) {
                e.id = entries.size();
                entries.add(e);
            }
        }
        return entries;
    }

    /**
     * Feeds the stream to {@code rules} as the tree sink does, every directory made and every
     * file arriving whole; throws the first refusal.
     */
    static void drive(List<Rec> stream, TreeRules rules) {
        number(stream);
        Map<Ent, Long> received = new IdentityHashMap<>();
        long okBytes = 0;
        long failures = 0;
        rules.header(0);
        for (Rec x : stream) {
            if (x instanceof Ent e) {
                TreeEntry entry = TreeRules.entry(e.id(), e.kind, e.flags, e.mode, 0, e.size, e.path, e.link, null);
                TreeRules.Verdict v = rules.entry(e.id(), entry, e.flags);
                if (v == TreeRules.Verdict.WRITE && entry.kind() == TreeEntry.Kind.DIRECTORY) {
                    rules.directoryMade(entry.path());
                }
                if (entry.kind() == TreeEntry.Kind.HARD_LINK) {
                    rules.hardLinkTargetArrived(entry);
                }
                if ((e.flags & TreeFormat.F_DATA) != 0) {
                    rules.opened(e.id(), entry);
                    received.put(e, 0L);
                } else if (entry.kind() == TreeEntry.Kind.FILE) {
                    rules.linkTarget(entry, e.flags, true);
                }
            } else if (x instanceof Data d) {
                throwIf(rules.contents(d.file().id(), "DATA", d.n()));
                received.merge(d.file(), (long) d.n(), Long::sum);
            } else if (x instanceof Hole h) {
                throwIf(rules.contents(h.file().id(), "HOLE", h.n()));
                received.merge(h.file(), h.n(), Long::sum);
            } else if (x instanceof FileEnd f) {
                long length = f.length() >= 0 ? f.length() : received.getOrDefault(f.file(), 0L);
                throwIf(rules.fileEnd(f.file().id(), f.failed() ? "unreadable" : null, length));
                TreeEntry entry = new TreeEntry(f.file().path, TreeEntry.Kind.FILE, 0644, 0, f.file().size, null, null);
                rules.linkTarget(entry, f.file().flags, !f.failed());
            } else if (x instanceof Notice n) {
                rules.notice(n.error());
            } else if (x instanceof End end) {
                long[] counts = counts(stream);
                rules.end(or(end.entries(), counts[0]), or(end.bytes(), counts[1]), or(end.failures(), counts[2]));
            }
        }
    }

    private static void throwIf(RuntimeException refused) {
        if (refused != null) {
            throw refused;
        }
    }

    private static long or(Long given, long own) {
        return given != null ? given : own;
    }

    /** The stream's own counts for END: entries, bytes of files read whole, sender failures. */
    private static long[] counts(List<Rec> stream) {
        long entries = 0;
        long bytes = 0;
        long failures = 0;
        Map<Ent, Long> received = new IdentityHashMap<>();
        for (Rec x : stream) {
            if (x instanceof End) {
                break;
            } else if (x instanceof Ent) {
                entries++;
            } else if (x instanceof Data d) {
                received.merge(d.file(), (long) d.n(), Long::sum);
            } else if (x instanceof Hole h) {
                received.merge(h.file(), h.n(), Long::sum);
            } else if (x instanceof FileEnd f) {
                if (f.failed()) {
                    failures++;
                } else {
                    bytes += f.length() >= 0 ? f.length() : received.getOrDefault(f.file(), 0L);
                }
            } else if (x instanceof Notice n && n.error()) {
                failures++;
            }
        }
        return new long[] {entries, bytes, failures};
    }

    /** The stream as bytes, with true CRCs. */
    static byte[] render(List<Rec> stream) {
        number(stream);
        Crafted c = new Crafted().header(0);
        Map<Ent, CRC32C> crcs = new IdentityHashMap<>();
        Map<Ent, Long> received = new IdentityHashMap<>();
        long[] counts = counts(stream);
        for (Rec x : stream) {
            if (x instanceof Ent e) {
                c.entry(e.id(), e.kind, e.flags, e.mode, e.size, e.path, e.link);
            } else if (x instanceof Data d) {
                byte[] b = new byte[d.n()];
                long at = received.getOrDefault(d.file(), 0L);
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) (at + i + d.file().id());
                }
                crcs.computeIfAbsent(d.file(), k -> new CRC32C()).update(b);
                received.merge(d.file(), (long) d.n(), Long::sum);
                c.data(d.file().id(), b);
            } else if (x instanceof Hole h) {
                crcs.computeIfAbsent(h.file(), k -> new CRC32C()).update(ByteBuffer.allocate((int) h.n()));
                received.merge(h.file(), h.n(), Long::sum);
                c.hole(h.file().id(), h.n());
            } else if (x instanceof FileEnd f) {
                long length = f.length() >= 0 ? f.length() : received.getOrDefault(f.file(), 0L);
                int crc = (int) crcs.computeIfAbsent(f.file(), k -> new CRC32C()).getValue();
                c.fileEnd(f.file().id(), f.failed() ? 1 : 0, length, crc, f.failed() ? "unreadable" : "");
            } else if (x instanceof Notice n) {
                c.notice(n.error() ? 2 : 1, n.path(), "a notice");
            } else if (x instanceof End end) {
                c.end(or(end.entries(), counts[0]), or(end.bytes(), counts[1]), or(end.failures(), counts[2]));
            }
        }
        return c.bytes();
    }

    /** A stream that breaks one rule, the refusal it must get, and whether only the rules see it (the parser refuses first). */
    record Broken(String mutation, List<Rec> stream, Supplier<String> refusal, boolean rulesOnly) {
        /** The refusal's whole message, as {@link TreeFormat#malformed} makes it. */
        String message() {
            number(stream);
            return TreeFormat.malformed(refusal.get()).getMessage();
        }
    }
}
