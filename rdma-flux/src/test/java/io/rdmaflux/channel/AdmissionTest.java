package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.TransportServer;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.util.RaceTestUtils;

/** A one-stream receiver's door: its one stream is either claimed before it closes, or refused. */
class AdmissionTest {

    private static final ChannelOptions OPTIONS = MemoryPair.OPTIONS;
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int ROUNDS = 20_000;

    /**
     * Closing (a cancelled {@code bindOne}) races a sender's claim: whoever wins, the closer
     * learns of every stream that was claimed, so that it can cancel it. Before the fix a claim
     * that had read "open" could succeed after the closer had looked and found no stream: the
     * stream then ran, and was acknowledged, with nobody waiting for it.
     */
    @Test
    void aStreamClaimedAsTheReceiverClosesIsAlwaysSeenByTheCloser() throws Exception {
        MemoryTransport t = new MemoryTransport();
        CompletableFuture<FrameConnection> accepted = new CompletableFuture<>();
        TransportServer server = t.listen(new InetSocketAddress(0), OPTIONS.transportOptions(), accepted::complete)
                .block(WAIT);
        try {
            t.connect(server.address(), OPTIONS.transportOptions()).block(WAIT);
            ReceiverSession session = new ReceiverSession(accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS),
                    "k".getBytes(StandardCharsets.UTF_8), OPTIONS, in -> Mono.empty(), new Admission(1, true));
            for (int round = 0; round < ROUNDS; round++) {
                Admission admission = new Admission(4, true);
                AtomicBoolean claimed = new AtomicBoolean();
                AtomicReference<ReceiverSession> seen = new AtomicReference<>();
                RaceTestUtils.race(() -> claimed.set(admission.claim(session) == null), () -> seen.set(admission.close()));
                assertThat(seen.get() == session).as("the closer saw the claimed stream, round %d", round)
                        .isEqualTo(claimed.get());
            }
        } finally {
            server.dispose();
        }
    }
}
