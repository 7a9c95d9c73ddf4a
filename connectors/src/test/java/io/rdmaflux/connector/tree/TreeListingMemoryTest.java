package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A listing read from a peer (the destination's side of a sync) is bounded by the bytes it holds,
 * not by its number of entries, and finds its entries whatever their order.
 */
class TreeListingMemoryTest {

    /** A path of 16 directories of 250 bytes (about 4 KiB), each listed before its entries. */
    private static final String DEEP;

    static {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            b.append(i == 0 ? "" : "/").append(String.valueOf((char) ('a' + i)).repeat(250));
        }
        DEEP = b.toString();
    }

    /** A listing stream being written, which numbers its entries. */
    private static final class Listing {
        final Crafted c = new Crafted().header(TreeFormat.FLAG_LISTING).dir("");
        int next = 1;

        Listing dir(String path) {
            c.dir(path);
            next++;
            return this;
        }

        Listing entry(int kind, long size, String path, String link) {
            c.entry(next++, kind, 0, kind == Crafted.SYMLINK ? 0777 : 0644, size, path, link);
            return this;
        }

        Crafted end() {
            return c.end();
        }
    }

    private static Listing listing() {
        return new Listing();
    }

    private static TreeListing read(Crafted c, long maxBytes) {
        return TreeListing.read(Trees.chunks(c.bytes(), 64 * 1024), maxBytes).block(T);
    }

    @Test
    void entriesWithLongPathsAreRefusedPastTheByteBudgetNamingItAndHowToRaiseIt() {
        // The hostile listing of the issue, scaled down: long paths, few entries. Counted in
        // entries (the limit was 5,000,000) this was let through whatever it cost.
        Listing c = listing();
        for (int i = 1; i <= 16; i++) {
            c.dir(DEEP.substring(0, 251 * i - 1));
        }
        for (int i = 0; i < 400; i++) {
            // Each in a directory of its own: a directory's path is held once, so this is the costly case.
            String dir = DEEP + "/" + String.format("%03d", i);
            c.dir(dir).entry(Crafted.FILE, 0, dir + "/f", "");
        }
        byte[] stream = c.end().bytes();
        assertThat(stream.length).isGreaterThan(3 << 20);
        assertThatThrownBy(() -> TreeListing.read(Trees.chunks(stream, 64 * 1024), 1 << 20).block(T))
                .isInstanceOf(RdmaFluxException.class)
                .satisfies(e -> assertThat(((RdmaFluxException) e).code()).isEqualTo(ErrorCode.CODEC))
                .hasMessageContaining("the listing needs more than 1 MiB of memory here")
                .hasMessageContaining("RDFLUX_JAVA_OPTS=-Xmx");
    }

    @Test
    void manySmallEntriesFitABudgetTheirCountWouldNot() {
        // 20,000 entries with short names cost about 46 bytes each: under 1 MiB.
        Listing c = listing();
        for (int d = 0; d < 20; d++) {
            c.dir(String.format("d%02d", d));
            for (int f = 0; f < 999; f++) {
                c.entry(Crafted.FILE, f, String.format("d%02d/f%06d", d, f), "");
            }
        }
        TreeListing l = read(c.end(), 1 << 20);
        assertThat(l.size()).isEqualTo(1 + 20 * 1000);
        assertThat(l.get("d07/f000123").orElseThrow().size()).isEqualTo(123);
        assertThat(l.bytes()).isLessThan(1 << 20);
    }

    @Test
    void entriesInAnyOrderAreFoundAndKeepTheStreamsOrder() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            names.add("n" + i + (i % 7 == 0 ? "é" : ""));
        }
        Collections.shuffle(names, new Random(21));
        Listing c = listing().dir("d");
        for (String n : names) {
            c.entry(Crafted.SYMLINK, 0, "d/" + n, "to " + n);
        }
        TreeListing l = read(c.end(), 1 << 30);
        for (String n : names) {
            assertThat(l.get("d/" + n).orElseThrow().link()).isEqualTo("to " + n);
        }
        assertThat(l.get("d/none")).isEmpty();
        assertThat(l.get("d")).get().extracting(TreeEntry::kind).isEqualTo(TreeEntry.Kind.DIRECTORY);
        assertThat(l.get("")).get().extracting(TreeEntry::kind).isEqualTo(TreeEntry.Kind.DIRECTORY);
        assertThat(l.entries()).extracting(TreeEntry::path).containsSubsequence("", "d", "d/" + names.get(0),
                "d/" + names.get(2999));
        assertThat(l.entries()).hasSize(3002);
    }

    @Test
    void aPathListedTwiceIsRefused() {
        Listing c = listing().dir("d").entry(Crafted.FILE, 1, "d/x", "").entry(Crafted.FILE, 2, "d/y", "")
                .entry(Crafted.FILE, 3, "d/x", "");
        assertThatThrownBy(() -> read(c.end(), 1 << 30))
                .isInstanceOf(RdmaFluxException.class).hasMessageContaining("'d/x' is listed twice");
    }
}
