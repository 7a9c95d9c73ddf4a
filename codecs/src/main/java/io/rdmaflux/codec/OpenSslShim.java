package io.rdmaflux.codec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Supplier;

/**
 * Points Apache Commons Crypto 1.2.0's OpenSSL binding at {@code librdflux-openssl3.so}, the
 * library the build makes from {@code src/main/native}, so that the binding loads with OpenSSL 3.
 *
 * <p>The binding opens {@code libcrypto.so} in the directory named by the system property
 * {@value #PROPERTY} when that is set (Commons Crypto's own override), and otherwise wherever
 * the dynamic loader finds it. The shim is copied from the jar into a private temporary
 * directory (mode 700, removed at exit) under that name, loaded once here to check that its
 * libcrypto is present, and the property names that directory only while the binding loads:
 * it is read once, when the binding first opens libcrypto, and is restored afterwards.
 *
 * <p>A {@value #PROPERTY} set by the user is left alone, and so is a binding that something
 * else in this JVM loaded first: the binding then finds libcrypto as it would without us.
 */
final class OpenSslShim {

    /** Where the native-openssl build profile puts the shim inside the jar. */
    static final String RESOURCE = "/native/linux-x86_64/librdflux-openssl3.so";
    /** The directory Commons Crypto opens {@code libcrypto.so} in. */
    static final String PROPERTY = "jni.library.path";

    private OpenSslShim() {
    }

    /**
     * Runs {@code loadBinding} (which must make Commons Crypto open libcrypto for the first time)
     * with the binding pointed at the shim where that can be done. Returns what {@code loadBinding}
     * returned and a note on the shim: null when it was used, else why not.
     */
    static <T> Result<T> around(Supplier<T> loadBinding) {
        if (System.getProperty(PROPERTY) != null) {
            return new Result<>(loadBinding.get(), PROPERTY + " is set");
        }
        Path dir;
        try {
            dir = extract();
        } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
            return new Result<>(loadBinding.get(), "shim not usable (" + oneLine(e) + ")");
        }
        if (dir == null) {
            return new Result<>(loadBinding.get(), "no shim in this build");
        }
        System.setProperty(PROPERTY, dir.toString());
        try {
            return new Result<>(loadBinding.get(), null);
        } finally {
            System.clearProperty(PROPERTY);
        }
    }

    /** The value {@link #around} returns. */
    record Result<T>(T value, String notUsed) {
    }

    /** Copies the shim out of the jar as {@code libcrypto.so} and loads it; null when the jar has none. */
    private static Path extract() throws IOException {
        try (InputStream in = OpenSslShim.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return null;
            }
            Path dir = Files.createTempDirectory("rdma-flux-openssl-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            dir.toFile().deleteOnExit();
            Path lib = dir.resolve("libcrypto.so");
            Files.copy(in, lib);
            lib.toFile().deleteOnExit();
            // Fails here, with the loader's reason, where this host has no libcrypto.so.3.
            System.load(lib.toString());
            return dir;
        }
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replace('\n', ' ');
    }
}
