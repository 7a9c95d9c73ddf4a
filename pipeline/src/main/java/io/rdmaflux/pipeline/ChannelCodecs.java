package io.rdmaflux.pipeline;

import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * What both channel ends do with a chain: before data moves, warm AES up and say what runs;
 * after a failure, name altered encrypted data as such.
 */
final class ChannelCodecs {

    private static final Logger log = Loggers.getLogger(ChannelCodecs.class);
    private static final AtomicBoolean providerSaid = new AtomicBoolean();

    private ChannelCodecs() {
    }

    /**
     * @param sending whether the chain encodes (a send sink) or decodes (a receive source):
     *     a process with both (an rdpipe hop) says which is which
     */
    static void prepare(CodecChain chain, boolean sending) {
        if (chain.isEmpty()) {
            return;
        }
        log.info("{} through codecs: {}", sending ? "sending" : "receiving", chain.format());
        if (chain.contains(AesGcmStage.NAME)) {
            AesGcmStage.warmUp();
            // The provider is the process's, whichever way the data goes: said once.
            if (providerSaid.compareAndSet(false, true)) {
                // describe(), not provider(): the receiving end runs this on the transport's event loop.
                AesGcmStage.describe().subscribe(log::info, e -> log.info("AES-256-GCM: " + e.getMessage()));
            }
        }
    }

    /**
     * {@code e}, or for an encrypted stream whose checksum did not match, a CODEC failure: the
     * stream's CRC32C and AES-GCM both catch altered data, and the first to see it depends on
     * timing; with encryption, altered data is tampering whichever saw it first.
     */
    static Throwable altered(CodecChain chain, Throwable e) {
        if (chain.contains(AesGcmStage.NAME) && e instanceof RdmaFluxException pe && pe.code() == ErrorCode.CHECKSUM) {
            return new RdmaFluxException(ErrorCode.CODEC, pe.getMessage() + ": the encrypted stream was altered on the way", e);
        }
        return e;
    }
}
