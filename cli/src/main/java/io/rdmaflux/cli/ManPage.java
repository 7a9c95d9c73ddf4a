package io.rdmaflux.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * A tool's manual page, in roff (man(7)), rendered from the same picocli model as its
 * {@code --help}, so the two cannot drift apart. picocli's own ManPageGenerator writes AsciiDoc,
 * which would need Asciidoctor (a Ruby tool chain) at build time to become a man page.
 */
final class ManPage {

    private static final Pattern CONTROL_LINE = Pattern.compile("^[.']", Pattern.MULTILINE);

    private ManPage() {
    }

    /** The page of the tool whose command line this is, for the version given. */
    static String render(CommandLine cl, String version) {
        CommandSpec spec = cl.getCommandSpec();
        Help help = new Help(spec, Help.defaultColorScheme(Ansi.OFF));
        String name = spec.qualifiedName(" ");
        String[] description = spec.usageMessage().description();
        // The NAME line (what apropos and whatis show): the description's first sentence.
        String summary = description.length > 0 ? String.format(description[0]).split("(?<=\\.)\\s", 2)[0].strip() : "";
        StringBuilder out = new StringBuilder();
        out.append(".TH ").append(quoted(name.toUpperCase(java.util.Locale.ROOT).replace(' ', '-'))).append(" 1 \"\" ")
                .append(quoted(version)).append(" \"User Commands\"\n");
        out.append(".SH NAME\n").append(text(name)).append(" \\- ").append(text(summary)).append('\n');
        out.append(".SH SYNOPSIS\n");
        // One synopsis a line, at the margin (picocli indents the second under the first's name).
        preformatted(out, help.synopsis(0).lines().map(String::strip).collect(java.util.stream.Collectors.joining("\n")));
        if (description.length > 0) {
            out.append(".SH DESCRIPTION\n");
            preformatted(out, help.description());
        }
        List<PositionalParamSpec> positionals = spec.positionalParameters().stream().filter(p -> !p.hidden()).toList();
        if (!positionals.isEmpty()) {
            out.append(".SH ARGUMENTS\n");
            positionals.forEach(p -> item(out, "\\fI" + text(p.paramLabel()) + "\\fR", p.renderedDescription()));
        }
        List<OptionSpec> options = spec.options().stream().filter(o -> !o.hidden()).toList();
        if (!options.isEmpty()) {
            out.append(".SH OPTIONS\n");
            options.forEach(o -> item(out, optionNames(o), o.renderedDescription()));
        }
        if (!cl.getSubcommands().isEmpty()) {
            out.append(".SH COMMANDS\n");
            preformatted(out, help.commandList());
        }
        if (spec.usageMessage().footer().length > 0) {
            out.append(".SH ").append(heading(help.footerHeading(), "NOTES")).append('\n');
            preformatted(out, help.footer());
        }
        out.append(".SH EXIT STATUS\n");
        preformatted(out, help.exitCodeList());
        out.append(".SH SEE ALSO\n");
        out.append("rdsend(1), rdrecv(1), rdcp(1), rdpipe(1), rdflux(1); docs/user-guide.md of the source tree.\n");
        return out.toString();
    }

    private static String optionNames(OptionSpec o) {
        List<String> names = new ArrayList<>();
        for (String n : o.names()) {
            names.add("\\fB" + text(n) + "\\fR");
        }
        String label = o.typeInfo().isBoolean() ? "" : "=\\fI" + text(o.paramLabel()) + "\\fR";
        return String.join(", ", names) + label;
    }

    private static void item(StringBuilder out, String tag, String[] description) {
        out.append(".TP\n").append(tag).append('\n');
        for (String line : description) {
            out.append(text(String.format(line.replace("%n", "\n")).strip())).append('\n');
        }
    }

    /** A block shown as picocli laid it out (columns, examples), not refilled. */
    private static void preformatted(StringBuilder out, String block) {
        out.append(".nf\n").append(text(block.stripTrailing())).append("\n.fi\n");
    }

    /** The footer's heading, as picocli prints it ("Examples:"), as a section name. */
    private static String heading(String rendered, String fallback) {
        String h = rendered.strip().replaceAll(":$", "").toUpperCase(java.util.Locale.ROOT);
        return h.isEmpty() ? fallback : h;
    }

    private static String quoted(String s) {
        return "\"" + text(s).replace("\"", "\\(dq") + "\"";
    }

    /** Text roff prints as it is: backslashes escaped, no line read as a request, dashes kept. */
    static String text(String s) {
        String escaped = s.replace("\\", "\\e").replace("-", "\\-");
        return CONTROL_LINE.matcher(escaped).replaceAll("\\\\&$0");
    }
}
