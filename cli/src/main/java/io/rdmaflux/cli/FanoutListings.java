package io.rdmaflux.cli;

import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.pipeline.TreeCopySource;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.nio.ByteBuffer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * With {@code rdcp --sync --to}: the source waits for one listing per host on its listing
 * port, and a host whose listing job fails (its host not reached, no rdflux there, killed
 * before it sent) would make it wait out its {@code listing-timeout} and then fail every host.
 * So the coordinator, which sees that job fail, sends in its place a stand-in: an empty stream
 * marked {@link TreeCopySource#NO_LISTING}, which the source counts and leaves out of what it
 * syncs against. Leaving it out, rather than counting an empty listing (which would make the
 * source send every file's data), keeps the sync's saving for the hosts that are up; the
 * failed host gets nothing of this chain's stream, so nothing is kept on its behalf.
 */
final class FanoutListings {

    private FanoutListings() {
    }

    /**
     * When {@code lister} fails, a stand-in for its listing sent to {@code source}'s listing
     * port under {@code key}; given up once the source has ended (it took its listings, or failed).
     */
    static Mono<Void> standInOnFailure(CopyEnd lister, CopyEnd source, String key, TransportKind transport,
                                       String host) {
        Mono<Void> sourceEnded = source.done().onErrorResume(e -> Mono.empty());
        return lister.done().onErrorResume(failed -> source.listening()
                        .flatMap(port -> address(source).flatMap(a -> FluxSender.create().host(a).port(port).key(key)
                                .transport(transport).metadata(StreamMetadata.empty().with(TreeCopySource.NO_LISTING, host))
                                .send(Flux.<ByteBuffer>empty())))
                        .takeUntilOther(sourceEnded))
                // The stand-in is a help, not a part of the copy: if it cannot go, the source says why it waited.
                .onErrorResume(e -> Mono.empty());
    }

    /** Where this process reaches the source's receiver: its agent's address, or loopback for one in this process. */
    private static Mono<String> address(CopyEnd source) {
        return source instanceof CopyEnd.Remote r ? r.agent.dataAddress() : Mono.just("127.0.0.1");
    }
}
