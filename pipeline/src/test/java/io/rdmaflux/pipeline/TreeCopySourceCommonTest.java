package io.rdmaflux.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.connector.tree.TreeListing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a sync to many hosts syncs against ({@code rdcp --sync --to}): of the hosts' listings,
 * only the entries all of them have alike, read from real directories.
 */
class TreeCopySourceCommonTest {

    @TempDir
    Path dir;

    @Test
    void aFileIsCommonOnlyWhereEveryHostHasItTheSame() throws IOException {
        Path a = host("a");
        Path b = host("b");
        Path c = host("c");
        Files.writeString(b.resolve("changed"), "other content");
        Files.setLastModifiedTime(b.resolve("changed"), FileTime.fromMillis(1_000_000));
        Files.delete(c.resolve("missing"));

        TreeListing common = TreeCopySource.common(List.of(listing(a), listing(b), listing(c)));

        assertThat(common.get("same")).isPresent();
        assertThat(common.get("changed")).as("changed on b").isEmpty();
        assertThat(common.get("missing")).as("missing on c").isEmpty();
    }

    private Path host(String name) throws IOException {
        Path root = Files.createDirectories(dir.resolve(name));
        for (String f : List.of("same", "changed", "missing")) {
            Files.writeString(root.resolve(f), "content of " + f);
            Files.setLastModifiedTime(root.resolve(f), FileTime.fromMillis(2_000_000));
        }
        return root;
    }

    private static TreeListing listing(Path root) {
        return TreeListing.local(root, false).block();
    }
}
