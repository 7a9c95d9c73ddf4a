package io.rdmaflux.cli;

import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.connector.CommandSource;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.connector.Source;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.connector.StdinSource;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.file.Path;
import java.util.Locale;

/** How rdsend and rdrecv use codec stages: building the sender's chain, reading in blocks, reporting. */
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
        } catch (RdmaFluxException | IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * The source the tool's arguments name: the output of {@code command} when given, else the
     * FILE argument (standard input when null or "-"), read in blocks of {@code block} bytes
     * into {@code buffers} buffers.
     */
    static Source source(String file, String command, int block, int buffers) {
        SourceOptions options = SourceOptions.defaults().withChunkSize(block).withBuffers(buffers);
        if (command != null) {
            return CommandSource.shell(command).withOptions(options);
        }
        return file == null || file.equals("-") ? StdinSource.create(options) : FileSource.of(Path.of(file), options);
    }

    /** "; N bytes on the wire (ratio R)" when codec stages ran ({@code coded}), else nothing. */
    static String ratio(boolean coded, long payload, long wire) {
        if (!coded || payload == 0) {
            return "";
        }
        return String.format(Locale.ROOT, "; %d bytes on the wire (ratio %.3f)", wire, (double) wire / payload);
    }
}
