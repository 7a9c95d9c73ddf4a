package io.rdmaflux.pipeline.plugin;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code ${NAME}} and {@code ${NAME:-default}} in configuration values, from the environment,
 * as a shell expands them ({@code :-} also applies when the variable is empty); {@code $$} is a
 * literal {@code $}. Any other {@code $} stays as it is.
 */
final class Env {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private Env() {
    }

    /** The expanded text; IllegalArgumentException with a one-line reason when it cannot be. */
    static String expand(String text, Map<String, String> env) {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != '$' || i + 1 >= text.length()) {
                out.append(c);
                i++;
                continue;
            }
            char next = text.charAt(i + 1);
            if (next == '$') {
                out.append('$');
                i += 2;
                continue;
            }
            if (next != '{') {
                out.append(c);
                i++;
                continue;
            }
            int end = text.indexOf('}', i + 2);
            if (end < 0) {
                throw new IllegalArgumentException("unterminated ${ in '" + text + "' (write $$ for a literal $)");
            }
            String body = text.substring(i + 2, end);
            int sep = body.indexOf(":-");
            String name = sep < 0 ? body : body.substring(0, sep);
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("'${" + body + "}' is not a variable reference (expected ${NAME} or "
                        + "${NAME:-default}; write $$ for a literal $)");
            }
            String value = env.get(name);
            if (sep >= 0) {
                out.append(value == null || value.isEmpty() ? body.substring(sep + 2) : value);
            } else if (value == null) {
                throw new IllegalArgumentException("environment variable " + name + " is not set (write ${" + name
                        + ":-default} to give a default)");
            } else {
                out.append(value);
            }
            i = end + 1;
        }
        return out.toString();
    }
}
