package io.rdmaflux.codec;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.lang.reflect.Method;
import java.security.GeneralSecurityException;
import java.util.Properties;
import javax.crypto.Cipher;
import org.apache.commons.crypto.Crypto;
import org.apache.commons.crypto.cipher.CryptoCipher;
import org.apache.commons.crypto.cipher.CryptoCipherFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Which AES-GCM implementation the stage runs, in one line, and a cipher instance per thread.
 *
 * <p>Apache Commons Crypto's OpenSSL binding where it loads (on OpenSSL 3 with the help of
 * {@link OpenSslShim}), the JDK's cipher through Commons Crypto otherwise. Both write the same
 * records: the choice changes speed, not the format. Loading extracts native libraries to
 * temporary files, so it blocks: it happens once per process, in {@link #get()}; the stages
 * wait for {@link #ready()}, which does it on a thread that may block, never on an event loop
 * or a codec worker.
 */
final class AesGcmProvider {

    static final String TRANSFORMATION = "AES/GCM/NoPadding";
    /** System property: {@code false} runs the JDK's cipher even where OpenSSL loads (to compare them). */
    static final String USE_OPENSSL = "rdflux.aes.openssl";
    private static final String OPENSSL_CIPHER = "org.apache.commons.crypto.cipher.OpenSslCipher";
    private static final String JCE_CIPHER = "org.apache.commons.crypto.cipher.JceCipher";

    private static final Mono<AesGcmProvider> READY =
            Mono.fromCallable(AesGcmProvider::get).subscribeOn(Schedulers.boundedElastic()).cache();

    private final boolean openSsl;
    private final String description;
    private final Properties properties = new Properties();
    private final ThreadLocal<CryptoCipher> ciphers = ThreadLocal.withInitial(this::newCipher);

    private AesGcmProvider(String cipherClass, boolean openSsl, String description) {
        this.openSsl = openSsl;
        this.description = description;
        properties.setProperty(CryptoCipherFactory.CLASSES_KEY, cipherClass);
    }

    /** The implementation of this process, loaded on first use (blocking). */
    static AesGcmProvider get() {
        return Loaded.INSTANCE;
    }

    /** {@link #get()}, loaded on a thread that may block the first time; at once afterwards. */
    static Mono<AesGcmProvider> ready() {
        return READY;
    }

    /** The JDK's cipher through Commons Crypto, whatever {@link #get()} chose; for tests and benchmarks. */
    static AesGcmProvider jdk() {
        return new AesGcmProvider(JCE_CIPHER, false, "JDK cipher");
    }

    boolean isOpenSsl() {
        return openSsl;
    }

    /** One line for {@code -v} and {@code rdflux doctor}. */
    String description() {
        return description;
    }

    /** This thread's cipher; each is used by one thread at a time, so records can be sealed in parallel. */
    CryptoCipher cipher() {
        return ciphers.get();
    }

    private CryptoCipher newCipher() {
        try {
            return CryptoCipherFactory.getCryptoCipher(TRANSFORMATION, properties);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new RdmaFluxException(ErrorCode.CODEC, "aes-256-gcm: no AES-GCM implementation available ("
                    + rootMessage(e) + ")", e);
        }
    }

    /** The process's choice, made when first asked for. */
    private static final class Loaded {
        static final AesGcmProvider INSTANCE = load();

        private static AesGcmProvider load() {
            String version = "Apache Commons Crypto " + Crypto.getComponentVersion();
            if (!Boolean.parseBoolean(System.getProperty(USE_OPENSSL, "true"))) {
                return jdkBecause(version, "-D" + USE_OPENSSL + "=false");
            }
            OpenSslShim.Result<String> tried = OpenSslShim.around(Loaded::openSslFailure);
            if (tried.value() != null) {
                return jdkBecause(version, tried.value() + (tried.notUsed() != null ? "; " + tried.notUsed() : ""));
            }
            return new AesGcmProvider(OPENSSL_CIPHER, true, "AES-256-GCM: " + openSslVersion() + " through " + version
                    + " OpenSslCipher" + (tried.notUsed() == null ? " and librdflux-openssl3.so" : ""));
        }

        private static AesGcmProvider jdkBecause(String version, String reason) {
            String jce;
            try {
                jce = Cipher.getInstance(TRANSFORMATION).getProvider().getName();
            } catch (GeneralSecurityException e) {
                jce = "unknown";
            }
            return new AesGcmProvider(JCE_CIPHER, false, "AES-256-GCM: JDK cipher (" + jce + ") through " + version
                    + " JceCipher; OpenSSL binding not used: " + reason);
        }

        /** Loads Commons Crypto's OpenSSL binding; null when it works, else why not. */
        private static String openSslFailure() {
            if (!Crypto.isNativeCodeLoaded()) {
                Throwable t = Crypto.getLoadingError();
                return "native code did not load" + (t != null ? " (" + rootMessage(t) + ")" : "");
            }
            Properties p = new Properties();
            p.setProperty(CryptoCipherFactory.CLASSES_KEY, OPENSSL_CIPHER);
            try (CryptoCipher c = CryptoCipherFactory.getCryptoCipher(TRANSFORMATION, p)) {
                return null;
            } catch (Exception | LinkageError e) {
                String m = rootMessage(e);
                // Commons Crypto 1.2.0 looks up functions that OpenSSL 3 turned into macros.
                return m.matches("EVP_[A-Za-z0-9_]+") ? "libcrypto " + openSslVersion() + " lacks " + m : m;
            }
        }

        /** The OpenSSL version the binding found; the class that knows it is not public. */
        private static String openSslVersion() {
            try {
                Method m = Class.forName("org.apache.commons.crypto.OpenSslInfoNative")
                        .getDeclaredMethod("OpenSSLVersion", int.class);
                m.setAccessible(true);
                return String.valueOf(m.invoke(null, 0));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return "OpenSSL (version unknown)";
            }
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) {
            r = r.getCause();
        }
        String m = r.getMessage();
        return (m == null ? r.getClass().getSimpleName() : m).replace('\n', ' ');
    }
}
