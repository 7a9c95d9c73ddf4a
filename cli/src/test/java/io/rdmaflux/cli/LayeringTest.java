package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project's layering, checked from the sources of every module: no package cycle, and
 * each module refers only to the modules below it (docs/architecture.md). Comments are
 * ignored, as jdeps would; every other mention of a project class counts, imports and fully
 * qualified names alike.
 */
class LayeringTest {

    /** Module → the modules it may use (besides itself). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "rdma-flux", Set.of(),
            "codecs", Set.of("rdma-flux"),
            "connectors", Set.of("rdma-flux"),
            "pipeline", Set.of("rdma-flux", "codecs", "connectors"),
            "cli", Set.of("rdma-flux", "codecs", "connectors", "pipeline"),
            "samples", Set.of("rdma-flux", "codecs", "connectors", "pipeline"));

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern PACKAGE = Pattern.compile("^package (io\\.rdmaflux[\\w.]*);", Pattern.MULTILINE);
    /** A project package followed by a class name: {@code io.rdmaflux.codec.ZstdStage}. */
    private static final Pattern REFERENCE = Pattern.compile("\\b(io\\.rdmaflux(?:\\.[a-z_][a-z0-9_]*)*)\\.[A-Z]");
    private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    @Test
    void packagesFormNoCycleAndModulesPointDown() {
        Map<String, String> moduleOf = new HashMap<>();
        Map<String, Set<String>> uses = new TreeMap<>();
        for (String module : ALLOWED.keySet()) {
            Path src = ROOT.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            for (Path file : javaFiles(src)) {
                String text = COMMENTS.matcher(read(file)).replaceAll(" ");
                Matcher p = PACKAGE.matcher(text);
                assertThat(p.find()).as("package declaration in %s", file).isTrue();
                String pkg = p.group(1);
                moduleOf.put(pkg, module);
                Set<String> targets = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher r = REFERENCE.matcher(text.substring(p.end()));
                while (r.find()) {
                    if (!r.group(1).equals(pkg)) {
                        targets.add(r.group(1));
                    }
                }
            }
        }
        assertThat(moduleOf).as("sources found under %s", ROOT).containsKeys("io.rdmaflux.channel", "io.rdmaflux.cli");

        List<String> wrongWay = new ArrayList<>();
        uses.forEach((from, targets) -> targets.forEach(to -> {
            String a = moduleOf.get(from);
            String b = moduleOf.get(to);
            if (b != null && !a.equals(b) && !ALLOWED.get(a).contains(b)) {
                wrongWay.add(from + " (" + a + ") -> " + to + " (" + b + ")");
            }
        }));
        assertThat(wrongWay).as("references from a module to one it must not use").isEmpty();
        assertThat(cycles(uses)).as("package cycles").isEmpty();
    }

    /** Strongly connected components of more than one package (Tarjan). */
    private static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                strongConnect(v, graph, index, low, stack, onStack, out, counter);
            }
        }
        return out;
    }

    private static void strongConnect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
                                      Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                      List<Set<String>> out, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]);
        counter[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!graph.containsKey(w)) {
                continue;
            }
            if (!index.containsKey(w)) {
                strongConnect(w, graph, index, low, stack, onStack, out, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                out.add(component);
            }
        }
    }

    private static List<Path> javaFiles(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(f -> f.toString().endsWith(".java")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
