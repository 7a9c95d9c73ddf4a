package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.pipeline.config.ConfigError;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.Parser;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Reads a pipeline file into its raw parts, with the line of every value. It composes the YAML
 * into nodes and never constructs objects from them (so no tag can make it build anything),
 * under the YAML 1.2 core schema (so {@code no} is the string "no", not false). Values keep
 * their text; the option types parse them later. Environment variables are expanded here.
 */
final class YamlReader {

    /** The option, and the plugin type, whose value is shell text ({@link #shellCommand}). */
    private static final String COMMAND = "command";
    /** The command plugins' environment option. */
    private static final String ENV = "env";

    /** Pipeline files are small; a limit keeps a hostile one from costing much. */
    private static final int MAX_CODE_POINTS = PipelineConfig.MAX_FILE_BYTES;

    /**
     * Collections inside collections, at most: a pipeline needs four (its mapping, the stages'
     * list, a stage's mapping, an option's list). The composer recurses per level, so without
     * a limit 20,000 brackets overflow the stack.
     */
    private static final int MAX_DEPTH = 64;

    private final String file;
    private final Map<String, String> env;
    private final List<ConfigError> errors;

    private YamlReader(String file, Map<String, String> env, List<ConfigError> errors) {
        this.file = file;
        this.env = env;
        this.errors = errors;
    }

    /** The raw pipeline in {@code text}, or null when its structure is broken; errors go to {@code errors}. */
    static RawPipeline read(String text, String file, Map<String, String> env, List<ConfigError> errors) {
        return new YamlReader(file, env, errors).read(text);
    }

    private RawPipeline read(String text) {
        LoadSettings settings = LoadSettings.builder()
                .setLabel(file)
                .setSchema(new CoreSchema())
                .setUseMarks(true)
                .setAllowRecursiveKeys(false)
                .setMaxAliasesForCollections(50)
                .setCodePointLimit(MAX_CODE_POINTS)
                .build();
        Optional<Node> root;
        try {
            Parser parser = new DepthLimit(new ParserImpl(settings, new StreamReader(settings, new StringReader(text))));
            root = new Composer(settings, parser).getSingleNode();
        } catch (TooDeep e) {
            error(e.line, null, "nested more than " + MAX_DEPTH + " levels deep (a pipeline needs 4)");
            return null;
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().or(e::getContextMark).map(m -> m.getLine() + 1).orElse(0);
            String problem = e.getProblem() != null ? e.getProblem() : e.getContext();
            error(line, null, "not valid YAML: " + oneLine(problem) + quoteHint(text, line));
            return null;
        } catch (YamlEngineException e) {
            error(0, null, "not valid YAML: " + oneLine(e.getMessage()));
            return null;
        } catch (StackOverflowError e) {
            // The depth limit should prevent it; a file must never cost more than an error line.
            error(0, null, "too complex to read (nested too deeply)");
            return null;
        }
        if (root.isEmpty() || isNull(root.get())) {
            error(1, null, "empty pipeline (expected source, filters, stages and sink)");
            return null;
        }
        if (!(root.get() instanceof MappingNode top)) {
            error(line(root.get()), null, "expected a mapping with source, filters, stages and sink, got "
                    + shape(root.get()));
            return null;
        }
        RawPlugin source = null;
        RawPlugin sink = null;
        List<RawPlugin> filters = new ArrayList<>();
        List<RawPlugin> stages = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (NodeTuple t : top.getValue()) {
            String key = keyText(t.getKeyNode(), "", seen);
            if (key == null) {
                continue;
            }
            Node value = t.getValueNode();
            int keyLine = line(t.getKeyNode());
            switch (key) {
                case "source" -> source = plugin("source", keyLine, value);
                case "sink" -> sink = plugin("sink", keyLine, value);
                case "filters" -> filters = list("filters", "filter", value);
                case "stages" -> stages = list("stages", "stage", value);
                default -> error(keyLine, key, "unknown key (a pipeline has source, filters, stages and sink)");
            }
        }
        int line = line(top);
        if (!seen.containsKey("source")) {
            error(line, "source", "missing (a pipeline needs a source and a sink)");
        }
        if (!seen.containsKey("sink")) {
            error(line, "sink", "missing (a pipeline needs a source and a sink)");
        }
        return new RawPipeline(line, source, filters, stages, sink);
    }

    /** The list under {@code key} (filters, stages): each a plugin. */
    private List<RawPlugin> list(String key, String kind, Node node) {
        List<RawPlugin> out = new ArrayList<>();
        if (isNull(node)) {
            return out;
        }
        if (!(node instanceof SequenceNode seq)) {
            error(line(node), key, "expected a list of " + kind + "s, got " + shape(node));
            return out;
        }
        List<Node> items = seq.getValue();
        for (int i = 0; i < items.size(); i++) {
            RawPlugin p = plugin(key + "[" + i + "]", line(items.get(i)), items.get(i));
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    /** A plugin's mapping, or a bare type name (the shorthand {@code sink: stdout}). */
    private RawPlugin plugin(String path, int line, Node node) {
        if (node instanceof ScalarNode s && !isNull(s)) {
            return new RawPlugin(path, line, scalar(path + ".type", s), Map.of());
        }
        if (!(node instanceof MappingNode map)) {
            error(line, path, "expected a mapping with a type (or just the type's name), got " + shape(node));
            return null;
        }
        RawValue type = null;
        Map<String, RawValue> options = new LinkedHashMap<>();
        Map<String, Integer> seen = new HashMap<>();
        ScalarNode command = null;
        for (NodeTuple t : map.getValue()) {
            String key = keyText(t.getKeyNode(), path + ".", seen);
            if (key == null) {
                continue;
            }
            if (key.equals(COMMAND) && t.getValueNode() instanceof ScalarNode text && !isNull(text)) {
                // Expanded below, once the type is known; the place keeps the options' order.
                command = text;
                options.put(key, null);
                continue;
            }
            RawValue v = value(path + "." + key, t.getValueNode());
            if (key.equals("type")) {
                type = v;
            } else {
                options.put(key, v);
            }
        }
        if (command != null) {
            if (type != null && COMMAND.equals(type.text())) {
                shellCommand(path, command, options);
            } else {
                options.put(COMMAND, scalar(path + "." + COMMAND, command));
            }
        }
        return new RawPlugin(path, line, type, options);
    }

    /**
     * The {@code command} of a command plugin, which a shell runs: a {@code ${VAR}} in it is
     * left for the shell to expand, its value passed in the command's environment (an
     * {@code env} item), so that a value is never run as shell text ({@link Env#expandForShell}).
     */
    private void shellCommand(String path, ScalarNode node, Map<String, RawValue> options) {
        String key = path + "." + COMMAND;
        Map<String, String> values = new LinkedHashMap<>();
        try {
            options.put(COMMAND, RawValue.scalar(key, line(node), Env.expandForShell(node.getValue(), env, values)));
        } catch (IllegalArgumentException e) {
            error(line(node), key, e.getMessage());
            options.put(COMMAND, RawValue.scalar(key, line(node), node.getValue()));
            return;
        }
        if (values.isEmpty()) {
            return;
        }
        RawValue given = options.get(ENV);
        List<RawValue> items = new ArrayList<>();
        if (given != null) {
            if (given.items() == null) {
                return;     // not a list: validation says so
            }
            items.addAll(given.items());
            for (RawValue item : given.items()) {
                String text = item.text();
                int eq = text == null ? -1 : text.indexOf('=');
                if (eq > 0 && values.containsKey(text.substring(0, eq))) {
                    String name = text.substring(0, eq);
                    error(item.line(), item.key(), name + " is set here and used as ${" + name + "} in command, "
                            + "which passes its value from the environment in " + name + ": rename one");
                    return;
                }
            }
        }
        int line = given != null ? given.line() : line(node);
        values.forEach((name, value) -> items.add(RawValue.scalar(path + "." + ENV + "[" + items.size() + "]", line,
                name + "=" + value)));
        options.put(ENV, RawValue.list(path + "." + ENV, line, items));
    }

    private RawValue value(String key, Node node) {
        if (node instanceof ScalarNode s) {
            return scalar(key, s);
        }
        if (node instanceof SequenceNode seq) {
            List<RawValue> items = new ArrayList<>();
            List<Node> nodes = seq.getValue();
            for (int i = 0; i < nodes.size(); i++) {
                Node n = nodes.get(i);
                String itemKey = key + "[" + i + "]";
                items.add(n instanceof ScalarNode s ? scalar(itemKey, s) : RawValue.other(itemKey, line(n), shape(n)));
            }
            return RawValue.list(key, line(node), items);
        }
        return RawValue.other(key, line(node), shape(node));
    }

    private RawValue scalar(String key, ScalarNode s) {
        if (isNull(s)) {
            return RawValue.scalar(key, line(s), null);
        }
        try {
            return RawValue.scalar(key, line(s), Env.expand(s.getValue(), env));
        } catch (IllegalArgumentException e) {
            error(line(s), key, e.getMessage());
            // Reported; the value stands as written so that no second error follows from it.
            return RawValue.scalar(key, line(s), s.getValue());
        }
    }

    /** A mapping key's text; null (after reporting) for a key that is not text or is repeated. */
    private String keyText(Node node, String prefix, Map<String, Integer> seen) {
        if (!(node instanceof ScalarNode s) || isNull(s)) {
            error(line(node), prefix.isEmpty() ? null : prefix.substring(0, prefix.length() - 1),
                    "keys are words such as type or port, got " + shape(node));
            return null;
        }
        String key = s.getValue();
        Integer first = seen.putIfAbsent(key, line(node));
        if (first != null) {
            error(line(node), prefix + key, "given twice (first on line " + first + ")");
            return null;
        }
        return key;
    }

    private static boolean isNull(Node node) {
        return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
    }

    private static String shape(Node node) {
        if (node instanceof MappingNode) {
            return "a mapping";
        }
        if (node instanceof SequenceNode) {
            return "a list";
        }
        if (isNull(node)) {
            return "nothing";
        }
        return "'" + ((ScalarNode) node).getValue() + "'";
    }

    private static int line(Node node) {
        return node.getStartMark().map(Mark::getLine).map(l -> l + 1).orElse(0);
    }

    /**
     * A hint for {@code ${VAR}} in a flow collection ({@code {port: ${PORT}}}), where YAML reads
     * its brace as the start of a mapping; quoted, it is a string that expands as usual.
     */
    private static String quoteHint(String text, int line) {
        String l = text.lines().skip(Math.max(0, line - 1)).findFirst().orElse("");
        int var = l.indexOf("${");
        if (var < 0 || l.substring(0, var).chars().noneMatch(c -> c == '{' || c == '[')) {
            return "";
        }
        int end = l.indexOf('}', var);
        String ref = end < 0 ? "${...}" : l.substring(var, end + 1);
        return " (a ${VAR} inside {...} or [...] must be quoted: \"" + ref + "\")";
    }

    private static String oneLine(String s) {
        return s == null ? "syntax error" : s.replace('\n', ' ').strip();
    }

    private void error(int line, String key, String message) {
        errors.add(new ConfigError(file, line, key, message));
    }

    /** Thrown when collections nest deeper than {@link #MAX_DEPTH}, before the composer recurses further. */
    private static final class TooDeep extends RuntimeException {

        private static final long serialVersionUID = 1L;

        final int line;

        TooDeep(int line) {
            super(null, null, false, false);
            this.line = line;
        }
    }

    /** The parser's events, counting how deeply collections nest. */
    private static final class DepthLimit implements Parser {

        private final Parser parser;
        private int depth;

        DepthLimit(Parser parser) {
            this.parser = parser;
        }

        @Override
        public boolean checkEvent(Event.ID id) {
            return parser.checkEvent(id);
        }

        @Override
        public Event peekEvent() {
            return parser.peekEvent();
        }

        @Override
        public boolean hasNext() {
            return parser.hasNext();
        }

        @Override
        public Event next() {
            Event e = parser.next();
            switch (e.getEventId()) {
                case MappingStart, SequenceStart -> {
                    if (++depth > MAX_DEPTH) {
                        throw new TooDeep(e.getStartMark().map(m -> m.getLine() + 1).orElse(0));
                    }
                }
                case MappingEnd, SequenceEnd -> depth--;
                default -> {
                }
            }
            return e;
        }
    }
}
