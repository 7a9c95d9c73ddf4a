package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecStage;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The jars of a plugin directory that can be used, and why each other one cannot. Each jar's
 * providers (its {@code META-INF/services} entries) are loaded, constructed and asked to
 * describe themselves before the registry uses them, so that one broken jar is left out, named,
 * instead of failing every pipeline. A jar built for a plugin API this rdflux does not run
 * ({@link PluginApi}) is left out the same way, before its classes are loaded. The usable jars
 * share one class loader, so a plugin may use a library jar beside it.
 *
 * <p>A jar's check has a time limit ({@link #LIMIT}): a provider whose class initializer or
 * constructor blocks (a sleep, a network call) would otherwise hang every tool that reads the
 * plugin directory, even for a pipeline that does not use it. The check runs on a daemon
 * thread of its own; a jar that does not finish in time is left out like a broken one, and the
 * thread, which Java cannot stop, is left to end or not without holding the tool up.
 */
final class PluginJars {

    /** What a plugin jar may provide. */
    private static final List<Class<?>> SERVICES = List.of(SourcePlugin.class, FilterPlugin.class, SinkPlugin.class,
            StagePlugin.class, CodecStage.class);

    /** How long one jar's providers may take to load, construct and describe themselves. */
    static final Duration LIMIT = Duration.ofSeconds(10);

    /** A jar left out, and why (one line). */
    record Skipped(Path jar, String reason) {
    }

    private final ClassLoader loader;
    private final List<Skipped> skipped;

    private PluginJars(ClassLoader loader, List<Skipped> skipped) {
        this.loader = loader;
        this.skipped = skipped;
    }

    /** The usable ones of {@code jars}, under one class loader whose parent is {@code parent}. */
    static PluginJars check(List<Path> jars, ClassLoader parent) {
        List<Skipped> skipped = new ArrayList<>();
        Map<Path, Map<Class<?>, List<String>>> usable = new LinkedHashMap<>();
        for (Path jar : jars) {
            try {
                Map<Class<?>, List<String>> providers = providers(jar);
                // Before any class of it loads: a jar of another API may not even link.
                String incompatible = PluginApi.incompatibility(declaredApi(jar));
                if (incompatible != null) {
                    skipped.add(new Skipped(jar, subject(providers) + " " + incompatible));
                    continue;
                }
                usable.put(jar, providers);
            } catch (IOException e) {
                skipped.add(new Skipped(jar, "not a readable jar (" + e.getMessage() + ")"));
            }
        }
        // Leaving a jar out may break one that used its classes: check the rest again until all pass.
        while (true) {
            URLClassLoader loader = new URLClassLoader("rdflux-plugins", urls(usable.keySet()), parent);
            List<Skipped> broken = new ArrayList<>();
            usable.forEach((jar, providers) -> {
                String reason = firstProblemWithin(providers, loader);
                if (reason != null) {
                    broken.add(new Skipped(jar, reason));
                }
            });
            if (broken.isEmpty()) {
                return new PluginJars(loader, List.copyOf(skipped));
            }
            close(loader);
            broken.forEach(b -> usable.remove(b.jar()));
            skipped.addAll(broken);
        }
    }

    /** The class loader of the usable jars. */
    ClassLoader loader() {
        return loader;
    }

    /** The jars left out, in the order found. */
    List<Skipped> skipped() {
        return skipped;
    }

    /** The provider class names each service file of {@code jar} lists (ServiceLoader's format). */
    private static Map<Class<?>, List<String>> providers(Path jar) throws IOException {
        Map<Class<?>, List<String>> out = new LinkedHashMap<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (Class<?> service : SERVICES) {
                JarEntry entry = file.getJarEntry("META-INF/services/" + service.getName());
                if (entry == null) {
                    continue;
                }
                List<String> names = new ArrayList<>();
                try (InputStream in = file.getInputStream(entry)) {
                    for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                        int comment = line.indexOf('#');
                        String name = (comment < 0 ? line : line.substring(0, comment)).strip();
                        if (!name.isEmpty()) {
                            names.add(name);
                        }
                    }
                }
                out.put(service, names);
            }
        }
        return out;
    }

    /** The plugin API version {@code jar}'s manifest declares ({@link PluginApi#ATTRIBUTE}), or null. */
    private static String declaredApi(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            return manifest == null ? null : manifest.getMainAttributes().getValue(PluginApi.ATTRIBUTE);
        }
    }

    /** The plugins of a jar as the subject of a sentence: "plugin com.example.S3Source (and 2 more)". */
    private static String subject(Map<Class<?>, List<String>> providers) {
        List<String> names = providers.values().stream().flatMap(List::stream).toList();
        if (names.isEmpty()) {
            return "the jar";
        }
        return "plugin " + names.get(0) + (names.size() > 1 ? " (and " + (names.size() - 1) + " more)" : "");
    }

    /** {@link #firstProblem}, given {@link #LIMIT}: a provider that takes longer is the problem. */
    private static String firstProblemWithin(Map<Class<?>, List<String>> providers, ClassLoader loader) {
        CompletableFuture<String> result = new CompletableFuture<>();
        AtomicReference<String> current = new AtomicReference<>();
        Thread check = new Thread(() -> {
            try {
                result.complete(firstProblem(providers, loader, current));
            } catch (Throwable e) {
                result.complete("cannot load " + current.get() + ": " + describe(e));
            }
        }, "rdflux-plugin-check");
        check.setDaemon(true);
        check.start();
        try {
            return result.get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            check.interrupt();
            return current.get() + " did not load within " + LIMIT.toSeconds() + " s (a constructor or class "
                    + "initializer that blocks?)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while loading " + current.get();
        } catch (ExecutionException e) {
            return "cannot load " + current.get() + ": " + describe(e.getCause());
        }
    }

    /** Why one of the providers cannot be used, or null when all can; {@code current} names the one being tried. */
    private static String firstProblem(Map<Class<?>, List<String>> providers, ClassLoader loader,
                                       AtomicReference<String> current) {
        for (Map.Entry<Class<?>, List<String>> e : providers.entrySet()) {
            for (String name : e.getValue()) {
                current.set(name);
                String problem = problem(e.getKey(), name, loader);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    private static String problem(Class<?> service, String name, ClassLoader loader) {
        Object provider;
        try {
            Class<?> c = Class.forName(name, true, loader);
            if (!service.isAssignableFrom(c)) {
                return name + " is not a " + service.getSimpleName() + " (META-INF/services/" + service.getName() + ")";
            }
            provider = c.getConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            return "class " + name + " not found (META-INF/services/" + service.getName() + " names it)";
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return name + " has no public constructor without arguments";
        } catch (InvocationTargetException e) {
            return name + "() threw " + describe(e.getCause());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return "cannot load " + name + ": " + describe(e);
        }
        try {
            if (provider instanceof Plugin p) {
                return p.name() == null ? name + ".name() returned null"
                        : p.description() == null ? name + ".description() returned null"
                        : p.options() == null || p.options().stream().anyMatch(Objects::isNull)
                        ? name + ".options() returned null or a list holding null" : null;
            }
            return ((CodecStage) provider).name() == null ? name + ".name() returned null" : null;
        } catch (RuntimeException | LinkageError e) {
            return name + " threw " + describe(e) + " describing itself";
        }
    }

    private static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    private static URL[] urls(Iterable<Path> jars) {
        List<URL> urls = new ArrayList<>();
        for (Path jar : jars) {
            try {
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalStateException("a file path is always a URL: " + jar, e);
            }
        }
        return urls.toArray(URL[]::new);
    }

    private static void close(URLClassLoader loader) {
        try {
            loader.close();
        } catch (IOException e) {
            // Only open jar files to release; nothing of it is used any more.
        }
    }
}
