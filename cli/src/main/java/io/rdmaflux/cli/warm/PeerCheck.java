package io.rdmaflux.cli.warm;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * Whether a connection's peer is this user, by the kernel's word ({@code SO_PEERCRED}, through
 * {@code jdk.net.ExtendedSocketOptions}). On a runtime without the {@code jdk.net} module the
 * check cannot be made and the private directory is the only guard: the connection is taken.
 */
public final class PeerCheck {

    private PeerCheck() {
    }

    /** Whether the peer of {@code c} is this user; true when the runtime cannot tell (see above). */
    public static boolean sameUser(SocketChannel c) {
        try {
            return peerName(c).equals(System.getProperty("user.name"));
        } catch (LinkageError e) {
            return true;   // no jdk.net here: the 0700 directory keeps other users out
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static String peerName(SocketChannel c) throws IOException {
        return c.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED).user().getName();
    }
}
