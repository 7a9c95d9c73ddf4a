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
        return expand(text, env, null);
    }

    /**
     * Shell text (a command plugin's {@code command}) with each reference left for the shell
     * to expand at run time, never pasted in: a value is data, whatever quotes or {@code ;} it
     * holds. {@code ${NAME}} and {@code ${NAME:-default}} become {@code ${NAME}}; the value
     * (the default applied) is put in {@code values}, for the command's environment. Outside
     * quotes the shell splits the value into words, as it would have split the pasted text;
     * inside double quotes it stays one word; inside single quotes, where a shell expands
     * nothing, the reference is spliced in as {@code '"${NAME}"'}, so that the value still
     * arrives as written there. {@code $$} is a literal {@code $}, as in {@link #expand}.
     *
     * @param values receives NAME and value for each reference
     * @throws IllegalArgumentException as {@link #expand} does, and when one name is given two
     *                                  different defaults that both apply
     */
    static String expandForShell(String text, Map<String, String> env, Map<String, String> values) {
        return expand(text, env, values);
    }

    /** Quoting state of shell text, as far as a reference's place in it matters. */
    private enum Quote { NONE, SINGLE, DOUBLE }

    private static String expand(String text, Map<String, String> env, Map<String, String> shellValues) {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        Quote quote = Quote.NONE;
        boolean escaped = false;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != '$' || i + 1 >= text.length()) {
                out.append(c);
                i++;
                // Track the quotes of what goes to the shell (only used for shell text).
                if (escaped) {
                    escaped = false;
                } else if (c == '\\' && quote != Quote.SINGLE) {
                    escaped = true;
                } else if (c == '\'' && quote != Quote.DOUBLE) {
                    quote = quote == Quote.SINGLE ? Quote.NONE : Quote.SINGLE;
                } else if (c == '"' && quote != Quote.SINGLE) {
                    quote = quote == Quote.DOUBLE ? Quote.NONE : Quote.DOUBLE;
                }
                continue;
            }
            escaped = false;
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
                value = value == null || value.isEmpty() ? body.substring(sep + 2) : value;
            } else if (value == null) {
                throw new IllegalArgumentException("environment variable " + name + " is not set (write ${" + name
                        + ":-default} to give a default)");
            }
            if (shellValues == null) {
                out.append(value);
            } else {
                String before = shellValues.putIfAbsent(name, value);
                if (before != null && !before.equals(value)) {
                    throw new IllegalArgumentException("${" + name + "} is given two different defaults; give one");
                }
                out.append(quote == Quote.SINGLE ? "'\"${" + name + "}\"'" : "${" + name + "}");
            }
            i = end + 1;
        }
        return out.toString();
    }
}
