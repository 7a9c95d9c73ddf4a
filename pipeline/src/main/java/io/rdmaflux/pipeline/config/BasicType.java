package io.rdmaflux.pipeline.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The value types without parameters: string, duration, boolean, path. */
final class BasicType<T> implements ValueType<T> {

    /** A user name as ~USER may give it (POSIX portable characters; Samba's machine accounts end in $). */
    private static final Pattern USER = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,31}\\$?");

    private static final Pattern DURATION_FORM = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)?");

    static final BasicType<String> STRING = new BasicType<>("string", "a string", text -> {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("empty");
        }
        return text;
    }, String::valueOf);

    static final BasicType<Duration> DURATION = new BasicType<>("duration", "a duration such as 500ms, 10s, 5m or 1h",
            BasicType::duration, ValueType::formatDuration);

    static final BasicType<Boolean> BOOLEAN = new BasicType<>("boolean", "true or false", text ->
            switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                default -> throw new IllegalArgumentException("not a boolean");
            }, String::valueOf);

    static final BasicType<Path> PATH = new BasicType<>("path", "a path", BasicType::path, Path::toString);

    private final String name;
    private final String description;
    private final Function<String, T> parser;
    private final Function<T, String> formatter;

    private BasicType(String name, String description, Function<String, T> parser, Function<T, String> formatter) {
        this.name = name;
        this.description = description;
        this.parser = parser;
        this.formatter = formatter;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public T parse(String text) {
        return parser.apply(text);
    }

    @Override
    public String format(T value) {
        return formatter.apply(value);
    }

    @Override
    public String toString() {
        return name;
    }

    private static Duration duration(String text) {
        Matcher m = DURATION_FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }

    /**
     * A path, with a leading ~ or ~/ replaced by the home directory and ~USER or ~USER/ by
     * that user's, as a shell does (scp and rsync users write host:~USER/dir); a ~USER that
     * names no user stays as it is, as in a shell.
     */
    private static Path path(String text) {
        if (text.isEmpty() || text.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a path");
        }
        if (!text.startsWith("~")) {
            return Path.of(text);
        }
        int slash = text.indexOf('/');
        String user = text.substring(1, slash < 0 ? text.length() : slash);
        String rest = slash < 0 ? "" : text.substring(slash + 1);
        String home = user.isEmpty() ? System.getProperty("user.home") : homeOf(user);
        return home == null ? Path.of(text) : Path.of(home, rest);
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
