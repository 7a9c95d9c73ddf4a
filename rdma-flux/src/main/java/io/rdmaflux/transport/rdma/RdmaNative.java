package io.rdmaflux.transport.rdma;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Gets the project's native half of DiSNI ({@code libdisni.so}, built from
 * {@code src/main/native}) loaded before DiSNI's {@code NativeDispatcher} initialises, and says
 * whether RDMA can be used here, with a one-line reason when it cannot.
 *
 * <p>DiSNI's {@code NativeDispatcher} calls {@code System.loadLibrary("disni")} in its static
 * initialiser, which only searches {@code java.library.path} as it was when the JVM started.
 * Where the library is found, in order:
 * <ol>
 *   <li>the file named by the system property {@code rdmaflux.native.lib};</li>
 *   <li>{@code libdisni.so} in a directory of {@code java.library.path} (launchers may pass
 *       {@code -Djava.library.path=<dir>});</li>
 *   <li>the copy packaged in the jar at {@code native/linux-x86_64/libdisni.so}, copied to a
 *       private temporary directory (mode 700, deleted at exit).</li>
 * </ol>
 * <p>A JVM killed with SIGKILL cannot delete its copy at exit, so each extraction first removes
 * the copies of dead JVMs. The directory is {@code rdma-flux-native-PID-RANDOM}, and its JVM
 * holds a lock on the {@code lock} file inside for as long as it lives (the kernel releases it
 * when the process dies, however it dies). A copy is removed only when its directory belongs
 * to this user, no process has its PID, and its lock can be taken: a PID seen alive (even a
 * reused one) or a lock held (even by a process in another PID namespace that shares
 * {@code /tmp}) keeps it. Copies of older versions, named without a PID, are left alone.
 * The file is loaded with {@code System.load} and then made visible in the process's global
 * symbol scope, where its {@code JNI_OnLoad_disni} marks it, in the JNI specification's terms,
 * as a library linked into the VM: DiSNI's {@code loadLibrary("disni")} then binds to it and
 * searches no directory ({@code rdmaflux_load.c}). No JDK internals are touched and no system
 * property is changed.
 *
 * <p>Every method is safe to call from any thread; the work happens once.
 */
final class RdmaNative {

    /** Where Maven's native-rdma profile puts the library inside the jar. */
    public static final String RESOURCE = "/native/linux-x86_64/libdisni.so";

    /** System property naming an explicit libdisni.so to load. */
    public static final String LIB_PROPERTY = "rdmaflux.native.lib";

    private static final String DISPATCHER = "com.ibm.disni.verbs.impl.NativeDispatcher";
    private static final String LIB_FILE = "libdisni.so";

    private static volatile String reason;
    private static volatile boolean probed;
    private static volatile String loadedFrom;
    /** The lock on this JVM's extracted copy, held until it exits (see the class comment). */
    private static FileChannel copyLock;

    private static final String COPY_PREFIX = "rdma-flux-native-";
    private static final String LOCK_FILE = "lock";

    private RdmaNative() {
    }

    /** Null when RDMA is usable here, otherwise one line saying what is missing. */
    public static String unavailableReason() {
        probe();
        return reason;
    }

    /** Where the native library was loaded from, or null when it was not. */
    public static String loadedFrom() {
        probe();
        return loadedFrom;
    }

    /**
     * Makes sure the native library is loaded and a device present.
     *
     * @throws RdmaFluxException of code {@link ErrorCode#TRANSPORT_UNAVAILABLE} with the reason
     */
    public static void ensureAvailable() {
        String r = unavailableReason();
        if (r != null) {
            throw new RdmaFluxException(ErrorCode.TRANSPORT_UNAVAILABLE, "RDMA unavailable: " + r);
        }
    }

    private static void probe() {
        if (probed) {
            return;
        }
        synchronized (RdmaNative.class) {
            if (!probed) {
                try {
                    reason = load();
                    if (reason == null) {
                        reason = deviceProblem();
                    }
                } catch (Throwable t) {
                    // Whatever was thrown (an Error that load's catches let pass, such as a
                    // BlockHound report), the answer is kept: a probe that failed once is not
                    // retried on every stream.
                    reason = "the RDMA probe failed: " + t;
                }
                probed = true;
            }
        }
    }

    /** Loads the library and initialises DiSNI's dispatcher; returns a reason or null. */
    private static String load() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return "RDMA needs Linux on x86-64 (this is " + os + " " + arch + ")";
        }
        try {
            Path p;
            String explicit = System.getProperty(LIB_PROPERTY);
            if (explicit != null && !explicit.isBlank()) {
                p = Path.of(explicit).toAbsolutePath();
                if (!Files.isRegularFile(p)) {
                    return "native library missing: " + LIB_PROPERTY + " names " + p + ", which does not exist";
                }
            } else {
                p = findOnLibraryPath();
                if (p == null) {
                    p = extract();
                }
                if (p == null) {
                    return "native library missing (this build has no libdisni.so; build on a machine "
                            + "with libibverbs-dev and librdmacm-dev installed)";
                }
            }
            String r = loadFile(p);
            if (r != null) {
                return r;
            }
            try {
                makeGlobal0();
            } catch (UnsatisfiedLinkError e) {
                return "native library out of date: " + p + " was built from older sources; rebuild it";
            }
            // Runs DiSNI's System.loadLibrary("disni"), which now binds to the loaded file.
            Class.forName(DISPATCHER, true, RdmaNative.class.getClassLoader());
            return null;
        } catch (NoClassDefFoundError e) {
            return "DiSNI cannot initialise: " + e.getMessage().replace('/', '.') + " is missing from the class path";
        } catch (UnsatisfiedLinkError | ExceptionInInitializerError e) {
            String msg = String.valueOf(e.getMessage());
            return "native library missing: DiSNI could not load libdisni (" + firstLine(msg)
                    + "); pass -Djava.library.path=<directory holding libdisni.so>";
        } catch (ClassNotFoundException e) {
            return "DiSNI is not on the class path";
        } catch (IOException | RuntimeException e) {
            return "native library missing: " + firstLine(String.valueOf(e.getMessage()));
        }
    }

    private static String loadFile(Path p) {
        try {
            System.load(p.toString());
            loadedFrom = p.toString();
            return null;
        } catch (UnsatisfiedLinkError e) {
            String msg = String.valueOf(e.getMessage());
            if (msg.contains("libibverbs")) {
                return "libibverbs not installed (Debian: apt-get install ibverbs-providers libibverbs1)";
            }
            if (msg.contains("librdmacm")) {
                return "librdmacm not installed (Debian: apt-get install librdmacm1)";
            }
            return "native library unusable: " + firstLine(msg);
        }
    }

    private static Path findOnLibraryPath() {
        String lp = System.getProperty("java.library.path", "");
        for (String dir : lp.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, LIB_FILE);
                if (Files.isRegularFile(p)) {
                    return p.toAbsolutePath();
                }
            }
        }
        return null;
    }

    private static Path extract() throws IOException {
        try (InputStream in = RdmaNative.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return null;
            }
            Path dir = Files.createTempDirectory(COPY_PREFIX + ProcessHandle.current().pid() + "-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path lock = dir.resolve(LOCK_FILE);
            // deleteOnExit deletes in reverse order of registration: the directory last.
            dir.toFile().deleteOnExit();
            lock.toFile().deleteOnExit();
            FileChannel held = FileChannel.open(lock, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            held.lock();
            copyLock = held;
            removeStaleCopies(dir.getParent(), dir);
            Path lib = dir.resolve(LIB_FILE);
            lib.toFile().deleteOnExit();
            // The mapping stays valid after unlink; delete at exit keeps /tmp clean.
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            return lib;
        }
    }

    /**
     * Removes the extracted copies in {@code tmp} that dead JVMs left (see the class comment),
     * and nothing else: only the library and lock file inside, then the empty directory. Best
     * effort: a copy that cannot be checked or removed is left.
     *
     * @param own this JVM's copy, whose owner stands for this user
     * @return the directories removed
     */
    static List<Path> removeStaleCopies(Path tmp, Path own) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(tmp, COPY_PREFIX + "*")) {
            UserPrincipal user = Files.getOwner(own, LinkOption.NOFOLLOW_LINKS);
            for (Path dir : copies) {
                if (!dir.equals(own) && ownerDead(dir) && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                        && user.equals(Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS)) && removeIfUnlocked(dir)) {
                    removed.add(dir);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Cleaning up after others must never stop this JVM from loading its own copy.
        }
        return removed;
    }

    /** Whether the PID in a copy's name ({@code rdma-flux-native-PID-RANDOM}) is not a live process. */
    private static boolean ownerDead(Path dir) {
        String rest = dir.getFileName().toString().substring(COPY_PREFIX.length());
        int dash = rest.indexOf('-');
        if (dash <= 0 || !rest.substring(0, dash).chars().allMatch(Character::isDigit) || dash > 18) {
            return false;
        }
        return ProcessHandle.of(Long.parseLong(rest.substring(0, dash))).map(p -> !p.isAlive()).orElse(true);
    }

    /** Removes a copy while holding its lock; false when its lock is held, or it is not as we make them. */
    private static boolean removeIfUnlocked(Path dir) {
        try (FileChannel lock = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            if (lock.tryLock() == null) {
                return false;
            }
            Files.deleteIfExists(dir.resolve(LIB_FILE));
            Files.delete(dir.resolve(LOCK_FILE));
            Files.delete(dir);
            return true;
        } catch (IOException | OverlappingFileLockException e) {
            // No lock file (not ours, or its JVM died before taking it), a lock this JVM
            // holds, or something else inside: leave it.
            return false;
        }
    }

    /** Adds the loaded libdisni to the global symbol scope (see the class comment). */
    private static native void makeGlobal0() throws IOException;

    /** Checks for an RDMA device and the connection manager's device file. */
    private static String deviceProblem() {
        File ib = new File("/sys/class/infiniband");
        String[] devices = ib.list();
        if (devices == null || devices.length == 0) {
            return "no RDMA device (/sys/class/infiniband is empty; for Soft-RoCE: "
                    + "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev <interface>)";
        }
        if (!new File("/dev/infiniband/rdma_cm").exists()) {
            return "RDMA connection manager unavailable (/dev/infiniband/rdma_cm missing: modprobe rdma_ucm)";
        }
        return null;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Prints the verdict; for {@code rdflux doctor} and quick checks. */
    public static void main(String[] args) {
        String r = unavailableReason();
        System.out.println(r == null ? "rdma: usable (libdisni from " + loadedFrom() + ")" : "rdma: unavailable: " + r);
    }
}
