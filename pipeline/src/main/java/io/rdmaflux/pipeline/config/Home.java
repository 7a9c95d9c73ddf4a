package io.rdmaflux.pipeline.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The home directory and {@code ~} in paths, as a shell has them: {@code $HOME} when it is set
 * (a user who runs {@code HOME=/other rdflux run} means it), else the JVM's {@code user.home}
 * (the passwd entry). Every {@code ~} the pipeline expands comes here, so that all agree.
 */
public final class Home {

    /** A user name as ~USER may give it (POSIX portable characters; Samba's machine accounts end in $). */
    private static final Pattern USER = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,31}\\$?");

    private Home() {
    }

    /** The home directory: {@code HOME} from {@code env} when set and not empty, else {@code user.home}. */
    public static Path directory(Map<String, String> env) {
        String home = env.get("HOME");
        return Path.of(home == null || home.isEmpty() ? System.getProperty("user.home") : home);
    }

    /**
     * {@code path} with a leading ~ or ~/ replaced by the home directory and ~USER or ~USER/ by
     * that user's, as a shell does (scp and rsync users write host:~USER/dir); a ~USER that
     * names no user stays as it is, as in a shell.
     */
    public static Path expand(String path, Map<String, String> env) {
        if (!path.startsWith("~")) {
            return Path.of(path);
        }
        int slash = path.indexOf('/');
        String user = path.substring(1, slash < 0 ? path.length() : slash);
        String rest = slash < 0 ? "" : path.substring(slash + 1);
        String home = user.isEmpty() ? directory(env).toString() : homeOf(user);
        return home == null ? Path.of(path) : Path.of(home, rest);
    }

    /** The home directory of {@code user} (NSS, as the shell asks it: getent), or null. */
    private static String homeOf(String user) {
        if (!USER.matcher(user).matches()) {
            return null;
        }
        try {
            Process p = new ProcessBuilder("getent", "passwd", user).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            // Wait first, then read: a read would block past the timeout on a lookup that hangs
            // (a network directory), and one passwd line fits the pipe, so waiting cannot block getent.
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            String line = new String(p.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
            String[] fields = line.split(":", -1);
            return p.exitValue() == 0 && fields.length >= 7 && fields[0].equals(user) && fields[5].startsWith("/")
                    ? fields[5] : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
