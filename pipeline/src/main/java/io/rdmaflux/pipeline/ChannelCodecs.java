package io.rdmaflux.pipeline;

import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * What both channel ends do with a chain: before data moves, warm AES up and say what runs;
 * after a failure, name altered encrypted data as such.
 */
final class ChannelCodecs {

    private static final Logger log = Loggers.getLogger(ChannelCodecs.class);

    private ChannelCodecs() {
    }

    static void prepare(CodecChain chain) {
        if (chain.isEmpty()) {
            return;
        }
        log.info("codecs: {}", chain.format());
        if (chain.contains(AesGcmStage.NAME)) {
            AesGcmStage.warmUp();
            // describe(), not provider(): the receiving end runs this on the transport's event loop.
            AesGcmStage.describe().subscribe(log::info, e -> log.info("AES-256-GCM: " + e.getMessage()));
        }
    }

    /**
     * {@code e}, or for an encrypted stream whose checksum did not match, a CODEC failure: the
     * stream's CRC32C and AES-GCM both catch altered data, and the first to see it depends on
     * timing; with encryption, altered data is tampering whichever saw it first.
     */
    static Throwable altered(CodecChain chain, Throwable e) {
        if (chain.contains(AesGcmStage.NAME) && e instanceof ProtocolException pe && pe.code() == ErrorCode.CHECKSUM) {
            return new ProtocolException(ErrorCode.CODEC, pe.getMessage() + ": the encrypted stream was altered on the way", e);
        }
        return e;
    }
}
