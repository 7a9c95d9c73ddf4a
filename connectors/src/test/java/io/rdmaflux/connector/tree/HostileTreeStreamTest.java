package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.Trees.T;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams a hostile sender could send, crafted byte by byte: each is refused with a PROTOCOL
 * error naming the entry, nothing lands outside the destination, and no partial file is left.
 */
class HostileTreeStreamTest {

    private static final byte[] PAYLOAD = "pwned".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    Path dest;
    Path outside;

    @BeforeEach
    void dirs() throws IOException {
        dest = dir.resolve("dest");
        outside = Files.createDirectories(dir.resolve("outside"));
    }

    @Test
    void anAbsolutePathIsRefused() {
        refused(Crafted.tree().file(outside.resolve("x").toString(), PAYLOAD).end(), "the path is absolute");
    }

    @Test
    void dotDotIsRefused() {
        refused(Crafted.tree().file("../outside/x", PAYLOAD).end(), "'..'");
        refused(Crafted.tree().dir("a").file("a/../../outside/x", PAYLOAD).end(), "'..'");
    }

    @Test
    void emptyDotAndNulComponentsAreRefused() {
        refused(Crafted.tree().dir("a").file("a//x", PAYLOAD).end(), "empty component");
        refused(Crafted.tree().file("./x", PAYLOAD).end(), "'.' component");
        refused(Crafted.tree().file("x\0y", PAYLOAD).end(), "NUL");
        refused(Crafted.tree().dir("a").file("a/", PAYLOAD).end(), "empty component");
    }

    @Test
    void aFileThroughASymlinkTheStreamMadeIsRefused() {
        refused(Crafted.tree().symlink("evil", outside.toString()).file("evil/x", PAYLOAD).end(),
                "'evil/x': its directory 'evil' was not listed before it");
        refused(Crafted.tree().symlink("evil", "../outside").dir("evil/sub").end(), "'evil/sub'");
    }

    @Test
    void aFileThroughASymlinkThatWasAlreadyThereIsRefused() throws IOException {
        Files.createDirectories(dest);
        Files.createSymbolicLink(dest.resolve("evil"), outside);
        refused(Crafted.tree().file("evil/x", PAYLOAD).end(), "its directory 'evil' was not listed");
    }

    @Test
    void aDirectoryEntryReplacesALinkInItsPlaceInsteadOfFollowingIt() throws IOException {
        TreeReport report = write(Crafted.tree().symlink("evil", outside.toString()).dir("evil")
                .file("evil/x", PAYLOAD).end());
        assertThat(report.complete()).isTrue();
        assertThat(Files.isDirectory(dest.resolve("evil"), Trees.NOFOLLOW)).isTrue();
        assertThat(dest.resolve("evil/x")).hasBinaryContent(PAYLOAD);
        assertThat(outside).isEmptyDirectory();
    }

    @Test
    void aDirectoryCannotBeTurnedIntoALinkLater() {
        refused(Crafted.tree().dir("d").symlink("d", outside.toString()).file("d/x", PAYLOAD).end(),
                "'d' takes the path of a directory listed earlier");
    }

    @Test
    void aFileUnderAFileIsRefused() {
        refused(Crafted.tree().file("f", PAYLOAD).file("f/x", PAYLOAD).end(), "its directory 'f' was not listed");
    }

    @Test
    void deviceAndUnknownKindsAreRefused() {
        refused(Crafted.tree().entry(1, 6, 0, 0600, 0, "sda", "").end(), "'sda' is of kind 6");
        refused(Crafted.tree().entry(1, 99, 0, 0600, 0, "x", "").end(), "kind 99");
    }

    @Test
    void hardLinksOnlyToFilesTheStreamWrote() throws IOException {
        Files.createDirectories(dest);
        Files.write(dest.resolve("existing"), PAYLOAD);
        refused(Crafted.tree().entry(1, Crafted.HARD_LINK, 0, 0644, 0, "l", "existing").end(),
                "names 'existing', which is not a file this stream wrote");
        refused(Crafted.tree().entry(1, Crafted.HARD_LINK, 0, 0644, 0, "l", "/etc/passwd").end(),
                "link target: the path is absolute");
        refused(Crafted.tree().entry(1, Crafted.HARD_LINK, 0, 0644, 0, "l", "../x").end(), "'..'");
    }

    @Test
    void aTruncatedStreamIsRefusedAndLeavesNoPartialFile() {
        byte[] whole = Crafted.tree().file("done", PAYLOAD).entry(2, Crafted.FILE, 1, 0644, 1000, "partial", "")
                .data(2, new byte[600]).bytes();
        refused(whole, "ended without its END record");
        // dest is made by the copy: staged beside it until the stream ends, so not there.
        assertThat(dest).doesNotExist();
        assertThat(StagedTree.of(dest).resolve("partial")).doesNotExist();
        assertThat(StagedTree.of(dest).resolve("done")).hasBinaryContent(PAYLOAD);
        refused(java.util.Arrays.copyOf(whole, 20), "ended without its END record");
    }

    @Test
    void dataLongerOrShorterThanTheHeaderSaysIsRefused() {
        refused(Crafted.tree().entry(1, Crafted.FILE, 1, 0644, 3, "long", "").data(1, PAYLOAD)
                .fileEnd(1, 0, 5, Crafted.crc(PAYLOAD), "").end(), "'long': more data than the 3 bytes");
        refused(Crafted.tree().entry(1, Crafted.FILE, 1, 0644, 10, "short", "").data(1, PAYLOAD)
                .fileEnd(1, 0, 5, Crafted.crc(PAYLOAD), "").end(), "'short': its header says 10 bytes, 5 arrived");
        assertThat(dest.resolve("short")).doesNotExist();
    }

    @Test
    void recordsOutOfOrderAreRefused() {
        refused(Crafted.tree().data(7, PAYLOAD).end(), "DATA for file 7, which is not open");
        refused(Crafted.tree().entry(5, Crafted.DIR, 0, 0755, 0, "x", "").end(), "out of sequence");
        refused(Crafted.tree().file("x", PAYLOAD).end().dir("late").bytes(), "after the END record");
        refused(new Crafted().header(0).file("x", PAYLOAD).end(), "the first entry must be the root");
        refused(Crafted.tree().file("x", PAYLOAD).end(9, 5, 0), "END counts 9 entries");
    }

    @Test
    void tooManyOpenFilesAreRefused() {
        Crafted c = Crafted.tree();
        for (int i = 1; i <= 200; i++) {
            c.entry(i, Crafted.FILE, 1, 0644, 1, "f" + i, "");
        }
        refused(c.end(), "more than 128 files open at once");
    }

    @Test
    void garbageAndOtherVersionsAreRefused() {
        byte[] noise = new byte[5000];
        new Random(7).nextBytes(noise);
        refused(noise, "not a tree stream");
        refused(new Crafted().raw("RDTR".getBytes(StandardCharsets.US_ASCII)).raw(0, 3, 0, 0).bytes(),
                "tree format version 3 is not supported (this side reads 1 and 2)");
        refused(new Crafted().header(0).raw(1, 0x7f, 0, 0, 0).bytes(), "with a body of");
        // A listing is not a tree to write.
        refused(new Crafted().header(1).dir("").end(), "a listing where a tree with contents was expected");
    }

    @Test
    void aDamagedFileFailsByNameAndTheRestArrives() {
        TreeReport report = write(Crafted.tree().entry(1, Crafted.FILE, 1, 0644, 5, "damaged", "").data(1, PAYLOAD)
                .fileEnd(1, 0, 5, 12345, "").file("fine", PAYLOAD).end());
        assertThat(report.failureLines()).containsExactly("damaged: its CRC32C does not match: the data arrived damaged");
        assertThat(dest.resolve("damaged")).doesNotExist();
        assertThat(dest.resolve("fine")).hasBinaryContent(PAYLOAD);
    }

    @Test
    void aFileTheSenderFailedIsDiscardedAndReportedByName() throws IOException {
        TreeReport report = write(Crafted.tree().entry(1, Crafted.FILE, 1, 0644, 100, "changing", "")
                .data(1, PAYLOAD).fileEnd(1, 1, 5, 0, "changed while it was read").file("fine", PAYLOAD).end());
        assertThat(report.failureLines()).containsExactly("changing: changed while it was read");
        assertThat(dest.resolve("changing")).doesNotExist();
        assertThat(Trees.temporaries(dest)).isEmpty();
    }

    /** What a terminal would obey: ESC, BEL, CSI, and the zero-width, bidi and private-use characters used below. */
    private static final String[] OBEYED = {"\u001b", "\u0007", "\u009b", "\u202e", "\u200b", "\ue000"};

    @Test
    void aSendersNoticesReasonsAndPathsReachMessagesOnlySanitized() {
        TreeReport report = write(Crafted.tree()
                .notice(1, "n\u001b]0;retitled\u0007", "warned\u001b]0;title\u0007 \u001b[2Jcleared")
                .notice(2, "e\u202e", "failed\u200b\ue000\u009b31m")
                .entry(1, Crafted.FILE, 1, 0644, 5, "changing", "").data(1, PAYLOAD)
                .fileEnd(1, 1, 5, 0, "changed\u001b[2J while\u0007 read").end());
        assertThat(report.warnings()).containsExactly("n?: warned? ?cleared");
        assertThat(report.failureLines()).containsExactly("e?: failed???31m", "changing: changed? while? read");
        for (String line : report.failureLines()) {
            assertThat(line).doesNotContain(OBEYED);
        }
        // A refused stream's message quotes the entry's path: sanitized too.
        assertThatThrownBy(() -> TreeSink.of(dest).writeTree(Trees.chunks(Crafted.tree()
                .file("../\u001b[2J\u001b]0;t\u0007x", PAYLOAD).end().bytes(), 3)).block(T))
                .isInstanceOf(RdmaFluxException.class)
                .hasMessageStartingWith("refused tree stream: entry 1 '../??x'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(OBEYED));
    }

    private TreeReport write(Crafted c) {
        return TreeSink.of(dest).writeTree(Trees.chunks(c.bytes(), 7)).block(T);
    }

    private void refused(Crafted c, String reason) {
        refused(c.bytes(), reason);
    }

    private static boolean empty(Path d) {
        try (var list = Files.list(d)) {
            return list.findAny().isEmpty();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The stream, cut into 3-byte pieces, is refused with {@code reason}; nothing escaped. */
    private void refused(byte[] stream, String reason) {
        assertThatThrownBy(() -> TreeSink.of(dest).writeTree(Trees.chunks(stream, 3)).block(T))
                .isInstanceOfSatisfying(RdmaFluxException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC))
                .hasMessageStartingWith("refused tree stream: ")
                .hasMessageContaining(reason);
        try {
            assertThat(outside).isEmptyDirectory();
            if (Files.exists(dest)) {
                assertThat(Trees.temporaries(dest)).isEmpty();
                // Nor an empty directory of the copy's making: a refused stream leaves no bare tree.
                try (var walk = Files.walk(dest)) {
                    assertThat(walk.filter(p -> Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                            .filter(HostileTreeStreamTest::empty)).isEmpty();
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
