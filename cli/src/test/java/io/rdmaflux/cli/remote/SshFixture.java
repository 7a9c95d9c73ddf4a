package io.rdmaflux.cli.remote;

import java.io.IOException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An {@link SshServer} as a JUnit 5 extension: started before the class's tests, stopped after
 * them (killing every session it served and whatever those left running).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final SshFixture sshd = new SshFixture();
 * ...
 * RemoteShell shell = RemoteShell.create().rsh(sshd.rsh());   // hosts h1, h2, h3
 * }</pre>
 *
 * <p>When sshd cannot be started (not installed, no permission) the tests are skipped with the
 * reason, unless {@value #REQUIRE_ENV} is set (CI sets it), where they fail.
 */
public final class SshFixture extends SshServer implements BeforeAllCallback, AfterAllCallback {

    /** Set (to anything) to make a server that cannot start a failure instead of a skip. */
    public static final String REQUIRE_ENV = "RDMAFLUX_REQUIRE_SSHD";

    @Override
    public void beforeAll(ExtensionContext context) {
        try {
            startServer();
        } catch (IOException | IllegalStateException e) {
            close();
            String why = "no OpenSSH server for the ssh tests: " + e.getMessage();
            if (System.getenv(REQUIRE_ENV) != null) {
                throw new IllegalStateException(why + " (" + REQUIRE_ENV + " is set, so this fails)", e);
            }
            Assumptions.abort(why + " (install openssh-server and openssh-client; set " + REQUIRE_ENV
                    + " to fail instead of skipping)");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }
}
