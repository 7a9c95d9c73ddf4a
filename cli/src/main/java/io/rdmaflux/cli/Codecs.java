package io.rdmaflux.cli;

import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.connector.StdinSource;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;
import java.nio.file.Path;
import java.util.Locale;

/** How the tools use codec stages: building the sender's chain, reading in blocks, reporting. */
final class Codecs {

    private Codecs() {
    }

    /** The chain for {@code --zstd[=LEVEL]} and {@code --encrypt}, sized for the frame size; empty for neither. */
    static CodecChain chain(Integer zstdLevel, boolean encrypt, int frameSize) {
        CodecChain.Builder b = CodecChain.builder();
        try {
            if (zstdLevel != null) {
                b.zstd(zstdLevel);
            }
            if (encrypt) {
                b.aesGcm();
            }
            return b.build().forFrameSize(frameSize);
        } catch (ProtocolException | IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The source a FILE argument names, reading blocks of {@code block} bytes into {@code buffers} buffers. */
    static Source source(String file, int block, int buffers) {
        SourceOptions options = SourceOptions.defaults().withChunkSize(block).withBuffers(buffers);
        return file == null || file.equals("-") ? StdinSource.create(options) : FileSource.of(Path.of(file), options);
    }

    /**
     * Says which stages run, and which AES implementation, under -v; starts AES's warm-up. Never
     * blocks (rdrecv calls it on the transport's event loop): the AES line follows once loaded.
     */
    static void announce(CodecChain chain, boolean verbose) {
        if (chain.contains(AesGcmStage.NAME)) {
            AesGcmStage.warmUp();
        }
        if (verbose) {
            Console.info("codecs: " + chain.format());
            if (chain.contains(AesGcmStage.NAME)) {
                AesGcmStage.describe().subscribe(Console::info, e -> Console.info("AES-256-GCM: " + e.getMessage()));
            }
        }
    }

    /**
     * {@code e}, or for an encrypted stream whose checksum did not match, a CODEC failure: the
     * stream's CRC32C and AES-GCM both catch altered data, and the first to see it depends on
     * timing; with encryption, altered data is tampering (exit 65) whichever saw it first.
     */
    static Throwable altered(CodecChain chain, Throwable e) {
        if (chain.contains(AesGcmStage.NAME) && e instanceof ProtocolException pe && pe.code() == ErrorCode.CHECKSUM) {
            return new ProtocolException(ErrorCode.CODEC, pe.getMessage() + ": the encrypted stream was altered on the way", e);
        }
        return e;
    }

    /** ", compressed to N bytes (ratio R)" when a chain ran, else nothing. */
    static String ratio(CodecChain chain, long payload, long wire) {
        if (chain.isEmpty() || payload == 0) {
            return "";
        }
        return String.format(Locale.ROOT, "; %d bytes on the wire (ratio %.3f)", wire, (double) wire / payload);
    }
}
