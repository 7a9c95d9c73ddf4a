package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterMethod;
import reactor.core.publisher.Flux;

/**
 * The Reactive Streams TCK against the publisher the channel exposes at its edge,
 * {@link InboundStream#receive()}: each element is one received data frame.
 */
public class InboundStreamTckTest extends PublisherVerification<ByteBuffer> {

    private final List<MemoryPair> pairs = new ArrayList<>();

    public InboundStreamTckTest() {
        super(new TestEnvironment(2000, 500));
    }

    @Override
    public Publisher<ByteBuffer> createPublisher(long elements) {
        MemoryPair pair = new MemoryPair();
        pairs.add(pair);
        pair.send(session -> Flux.range(0, (int) elements).map(i -> Chunk.wrap(ByteBuffer.wrap(new byte[] {(byte) (int) i}))));
        // The handler stays open until closePairs(); the stream itself completes on END.
        return pair.stream().receive();
    }

    @Override
    public Publisher<ByteBuffer> createFailedPublisher() {
        MemoryPair pair = new MemoryPair();
        pairs.add(pair);
        pair.send(session -> Flux.just(Chunk.wrap(ByteBuffer.wrap(new byte[] {1}))));
        InboundStream in = pair.stream();
        in.receive().subscribe(b -> { }, e -> { });
        // An inbound stream may be subscribed to once; a second subscriber gets an error at once.
        return in.receive();
    }

    @Override
    public long maxElementsFromPublisher() {
        return 512;
    }

    @AfterMethod
    public void closePairs() {
        pairs.forEach(MemoryPair::close);
        pairs.clear();
    }
}
