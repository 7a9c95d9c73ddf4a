package io.rdmaflux.transport.rdma;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One side of a stream over RDMA, as its own process, for the kill tests in the guest:
 * {@code recv ADDR PORT} prints "listening" and receives one stream;
 * {@code send ADDR PORT MB} sends MB megabytes. Each prints "ok BYTES" and exits 0, or prints
 * "failed CODE: message" and exits 75 (or 70 for an unclassified failure).
 */
public final class RdmaPeer {

    public static void main(String[] args) throws Exception {
        // Two cold JVMs in an emulated guest on a loaded host once took over the default 10 s to
        // finish the handshake; this check is about kills mid-stream, so it gives the handshake time.
        ChannelOptions o = ChannelOptions.defaults().withFrameSize(64 * 1024).withReceiveSlots(8).withSendSlots(8)
                .withConnectTimeout(Duration.ofSeconds(20)).withHandshakeTimeout(Duration.ofSeconds(60));
        RdmaTransport t = new RdmaTransport();
        AtomicLong bytes = new AtomicLong();
        try {
            if (args[0].equals("recv")) {
                Mono<Void> done = FluxReceiver.create().host(args[1]).port(Integer.parseInt(args[2])).key("k")
                        .transport(t).options(o)
                        .handle(in -> in.receiveChunks().doOnNext(c -> {
                            if (bytes.getAndAdd(c.remaining()) == 0) {
                                System.out.println("receiving");
                                System.out.flush();
                            }
                            c.release();
                        }).then())
                        .receiveOne();
                System.out.println("listening");
                done.block(Duration.ofSeconds(300));
            } else {
                long total = Long.parseLong(args[3]) * 1_000_000L;
                ByteBuffer block = ByteBuffer.allocateDirect(64 * 1024);
                FluxSender.create().host(args[1]).port(Integer.parseInt(args[2])).key("k").transport(t).options(o)
                        .send(Flux.generate(sink -> {
                            long left = total - bytes.get();
                            if (left <= 0) {
                                sink.complete();
                                return;
                            }
                            int n = (int) Math.min(left, block.capacity());
                            bytes.addAndGet(n);
                            sink.next(block.duplicate().clear().limit(n));
                        }))
                        .block(Duration.ofSeconds(300));
            }
            System.out.println("ok " + bytes.get());
            System.exit(0);
        } catch (RdmaFluxException e) {
            System.out.println("failed " + e.code() + ": " + e.getMessage());
            System.exit(75);
        } catch (RuntimeException e) {
            System.out.println("failed INTERNAL: " + e);
            System.exit(70);
        }
    }

    private RdmaPeer() {
    }
}
