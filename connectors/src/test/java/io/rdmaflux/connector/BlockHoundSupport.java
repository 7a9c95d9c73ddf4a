package io.rdmaflux.connector;

import java.security.NoSuchAlgorithmException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Mac;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * Installs BlockHound once for the JVM that runs the round-trip tests (tagged "blockhound",
 * a JVM of their own: see the connectors pom), so that any blocking call on a Netty event loop
 * or another non-blocking thread fails the test that made it.
 */
public final class BlockHoundSupport {

    private static final AtomicBoolean INSTALLED = new AtomicBoolean();

    private BlockHoundSupport() {
    }

    /** Installs BlockHound once per JVM; later calls change nothing. */
    public static void install() {
        if (!INSTALLED.compareAndSet(false, true)) {
            return;
        }
        // The JDK reads its crypto policy files once, when the channel first uses HMAC (on an
        // event loop); let that happen here, so that only our own reads are watched.
        try {
            Mac.getInstance("HmacSHA256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        // install(...) and not builder().install(): only the former loads the Reactor and
        // Netty integrations that say which threads must not block.
        BlockHound.install(b -> b
                // File channel I/O is not on BlockHound's built-in list: positional reads and
                // writes of files, sequential ones of pipes (a command's stdin and stdout).
                .markAsBlocking("sun.nio.ch.FileDispatcherImpl", "pread0", "(Ljava/io/FileDescriptor;JIJ)I")
                .markAsBlocking("sun.nio.ch.FileDispatcherImpl", "pwrite0", "(Ljava/io/FileDescriptor;JIJ)I")
                .markAsBlocking("sun.nio.ch.FileChannelImpl", "read", "(Ljava/nio/ByteBuffer;)I")
                .markAsBlocking("sun.nio.ch.FileChannelImpl", "write", "(Ljava/nio/ByteBuffer;)I")
                // The channel draws its HELLO nonces on the event loop; /dev/urandom never blocks.
                .allowBlockingCallsInside("java.security.SecureRandom", "nextBytes")
                // The error can be swallowed by the code that made the call, so that the test
                // only sees a stream that never ends: print where it happened, then throw.
                .blockingMethodCallback(method -> {
                    BlockingOperationError error = new BlockingOperationError(method);
                    error.printStackTrace();
                    throw error;
                }));
    }
}
