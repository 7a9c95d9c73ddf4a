package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link ListingStore}: what goes in comes out, found by path, in order, within its byte budget. */
class ListingStoreTest {

    @Test
    void entriesAreFoundByPathAndIteratedInTheOrderAdded() {
        for (long seed : new long[] {1, 2, 3}) {
            Random r = new Random(seed);
            List<TreeEntry> entries = new ArrayList<>();
            entries.add(new TreeEntry("", TreeEntry.Kind.DIRECTORY, 0755, 1, 0, null, null));
            List<String> dirs = new ArrayList<>(List.of(""));
            for (int i = 0; i < 3000; i++) {
                String parent = dirs.get(r.nextInt(dirs.size()));
                String name = (r.nextBoolean() ? "z" : "a") + Integer.toString(r.nextInt(1_000_000), 36) + "-" + i + "é";
                String path = parent.isEmpty() ? name : parent + "/" + name;
                TreeEntry e = switch (r.nextInt(4)) {
                    case 0 -> new TreeEntry(path, TreeEntry.Kind.DIRECTORY, 0700, r.nextLong(), 0, null, null);
                    case 1 -> new TreeEntry(path, TreeEntry.Kind.SYMLINK, 0777, r.nextLong(), 0, "../t" + i, null);
                    default -> new TreeEntry(path, TreeEntry.Kind.FILE, 0644, r.nextLong(), r.nextInt(1 << 30), null,
                            r.nextBoolean() ? new byte[32] : null);
                };
                if (e.kind() == TreeEntry.Kind.DIRECTORY) {
                    dirs.add(path);
                }
                entries.add(e);
            }
            ListingStore store = new ListingStore(ListingStore.MAX_BYTES);
            for (TreeEntry e : entries) {
                assertThat(store.add(e)).isTrue();
            }
            assertThat(store.seal()).as("seed %d", seed).isNull();
            List<TreeEntry> back = new ArrayList<>();
            store.iterator().forEachRemaining(back::add);
            assertThat(back).as("seed %d", seed).isEqualTo(entries);
            List<TreeEntry> shuffled = new ArrayList<>(entries);
            Collections.shuffle(shuffled, r);
            for (TreeEntry e : shuffled) {
                int at = store.find(e.path());
                assertThat(at).as("seed %d: %s", seed, e.path()).isNotNegative();
                assertThat(store.entry(at)).isEqualTo(e);
            }
            assertThat(store.find("no such/entry")).isEqualTo(-1);
            assertThat(store.count).isEqualTo(entries.size());
        }
    }

    @Test
    void aPathAddedTwiceIsNamedBySeal() {
        ListingStore store = new ListingStore(ListingStore.MAX_BYTES);
        store.add(new TreeEntry("", TreeEntry.Kind.DIRECTORY, 0755, 0, 0, null, null));
        store.add(new TreeEntry("b", TreeEntry.Kind.FILE, 0644, 0, 1, null, null));
        store.add(new TreeEntry("a", TreeEntry.Kind.FILE, 0644, 0, 1, null, null));
        store.add(new TreeEntry("b", TreeEntry.Kind.DIRECTORY, 0755, 0, 0, null, null));
        assertThat(store.seal()).isEqualTo("b");
    }

    @Test
    void anEntryPastTheBudgetIsNotAdded() {
        TreeEntry root = new TreeEntry("", TreeEntry.Kind.DIRECTORY, 0755, 0, 0, null, null);
        TreeEntry file = new TreeEntry("f", TreeEntry.Kind.FILE, 0644, 0, 1, null, null);
        // The root costs its record and its own "directory"; the file its record and the root's directory.
        long root1 = TreeListing.ENTRY_BYTES + TreeListing.DIRECTORY_BYTES + 2;
        long file1 = TreeListing.ENTRY_BYTES + 1 + TreeListing.DIRECTORY_BYTES;
        ListingStore exact = new ListingStore(root1 + file1);
        assertThat(exact.add(root)).isTrue();
        assertThat(exact.add(file)).isTrue();
        assertThat(exact.bytes).isEqualTo(root1 + file1);
        ListingStore short1 = new ListingStore(root1 + file1 - 1);
        assertThat(short1.add(root)).isTrue();
        assertThat(short1.add(file)).isFalse();
        assertThat(short1.count).isEqualTo(1);
        assertThat(short1.bytes).isEqualTo(root1);
    }
}
