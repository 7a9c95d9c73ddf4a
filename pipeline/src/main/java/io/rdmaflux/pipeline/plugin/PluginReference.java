package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.pipeline.config.OptionSpec;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The reference of every source, filter, stage and sink, made from the plugins' own descriptions:
 * as text for {@code rdflux plugins}, and as Markdown for docs/user-guide.md (a test compares
 * the guide's section with it, so the two cannot drift).
 */
public final class PluginReference {

    private static final int WIDTH = 80;

    private PluginReference() {
    }

    /** Plain text: one block per plugin, one line per option. */
    public static String text(PluginRegistry registry) {
        StringBuilder b = new StringBuilder();
        section(b, "Sources", registry.sources(), registry, false);
        section(b, "Filters", registry.filters(), registry, false);
        section(b, "Stages", registry.stages(), registry, false);
        section(b, "Sinks", registry.sinks(), registry, false);
        return b.toString();
    }

    /** Markdown: a heading per kind and per plugin, a table of options. */
    public static String markdown(PluginRegistry registry) {
        StringBuilder b = new StringBuilder();
        section(b, "Sources", registry.sources(), registry, true);
        section(b, "Filters", registry.filters(), registry, true);
        section(b, "Stages", registry.stages(), registry, true);
        section(b, "Sinks", registry.sinks(), registry, true);
        return b.toString();
    }

    private static void section(StringBuilder b, String title, Collection<? extends Plugin> plugins,
                                PluginRegistry registry, boolean markdown) {
        if (markdown) {
            b.append("#### ").append(title).append("\n\n");
        } else {
            if (b.length() > 0) {
                b.append('\n');
            }
            b.append(title.toLowerCase(Locale.ROOT)).append(":\n");
        }
        for (Plugin p : plugins) {
            String origin = registry.origin(p);
            String from = origin == null ? "" : " (from " + origin + ")";
            if (markdown) {
                b.append("`").append(p.name()).append("`").append(from).append(": ").append(p.description()).append("\n\n");
                table(b, p.options());
            } else {
                wrap(b, "  ", p.name() + from + ": " + p.description(), "      ");
                for (OptionSpec<?> o : p.options()) {
                    String r = requirement(o);
                    b.append("    ").append(o.name()).append(": ").append(o.type().name())
                            .append(o.isRequired() ? ", required" : r.equals("-") ? "" : ", default " + r).append('\n');
                    wrap(b, "        ", o.doc(), "        ");
                }
            }
        }
    }

    /** Appends {@code text} in lines of at most 80 columns. */
    private static void wrap(StringBuilder b, String first, String text, String rest) {
        String indent = first;
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && indent.length() + line.length() + 1 + word.length() > WIDTH) {
                b.append(indent).append(line).append('\n');
                indent = rest;
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        b.append(indent).append(line).append('\n');
    }

    private static void table(StringBuilder b, List<OptionSpec<?>> options) {
        if (options.isEmpty()) {
            b.append("No options.\n\n");
            return;
        }
        b.append("| key | type | default | meaning |\n|---|---|---|---|\n");
        for (OptionSpec<?> o : options) {
            b.append("| `").append(o.name()).append("` | ").append(o.type().name().replace("|", "\\|"))
                    .append(" | ").append(requirement(o)).append(" | ").append(o.doc().replace("|", "\\|"))
                    .append(" |\n");
        }
        b.append('\n');
    }

    /** "required", the default as written in a file, or "-" for an optional option without one. */
    private static String requirement(OptionSpec<?> o) {
        if (o.isRequired()) {
            return "required";
        }
        String d = o.formattedDefault();
        return d.isEmpty() ? "-" : d;
    }
}
