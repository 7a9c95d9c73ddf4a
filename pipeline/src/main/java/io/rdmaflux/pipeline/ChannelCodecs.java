package io.rdmaflux.pipeline;

import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import reactor.util.Logger;
import reactor.util.Loggers;

/** What both channel ends do with a chain before data moves: warm AES up, say what runs. */
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
}
