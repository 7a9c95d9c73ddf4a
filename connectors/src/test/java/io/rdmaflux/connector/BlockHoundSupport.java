package io.rdmaflux.connector;

import reactor.blockhound.BlockHound;

/** The BlockHound set-up the channel tests share (they run in a JVM of their own, see the pom). */
public final class BlockHoundSupport {

    private BlockHoundSupport() {
    }

    /** Installs BlockHound once per JVM; later calls change nothing. */
    public static void install() {
        // install(...) and not builder().install(): only the former loads the Reactor and
        // Netty integrations that say which threads must not block.
        BlockHound.install(b -> b
                // Positional file I/O is not on BlockHound's built-in list.
                .markAsBlocking("sun.nio.ch.FileDispatcherImpl", "pread0", "(Ljava/io/FileDescriptor;JIJ)I")
                .markAsBlocking("sun.nio.ch.FileDispatcherImpl", "pwrite0", "(Ljava/io/FileDescriptor;JIJ)I")
                // The channel draws its HELLO nonces on the event loop; /dev/urandom never blocks.
                .allowBlockingCallsInside("java.security.SecureRandom", "nextBytes"));
    }
}
