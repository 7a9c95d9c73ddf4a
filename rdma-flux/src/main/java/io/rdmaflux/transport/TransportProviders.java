package io.rdmaflux.transport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The {@link TransportProvider}s of this process, found once with {@link ServiceLoader} through
 * this library's class loader, in name order. A provider that cannot be loaded, or whose name is
 * malformed or taken, is left out with a warning.
 */
public final class TransportProviders {

    private static final Logger log = Loggers.getLogger(TransportProviders.class);
    static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");

    private static volatile List<TransportProvider> all;

    private TransportProviders() {
    }

    /** Every provider found, in name order. */
    public static List<TransportProvider> all() {
        List<TransportProvider> found = all;
        if (found == null) {
            synchronized (TransportProviders.class) {
                if (all == null) {
                    all = load();
                }
                found = all;
            }
        }
        return found;
    }

    /** The provider named {@code name}, if there is one. */
    public static Optional<TransportProvider> find(String name) {
        return all().stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** What {@code --transport} takes: {@code auto}, then each provider's name. */
    public static List<String> choices() {
        List<String> out = new ArrayList<>();
        out.add("auto");
        all().forEach(p -> out.add(p.name()));
        return out;
    }

    /** {@link #choices()} as a sentence's end: "auto, rdma or tcp". */
    public static String choicesText() {
        List<String> c = choices();
        return c.size() == 1 ? c.get(0)
                : String.join(", ", c.subList(0, c.size() - 1)) + " or " + c.get(c.size() - 1);
    }

    /** A transport's name as messages print it ("RDMA", "TCP"). */
    public static String display(String name) {
        return name.toUpperCase(Locale.ROOT);
    }

    private static List<TransportProvider> load() {
        Map<String, TransportProvider> byName = new LinkedHashMap<>();
        Iterator<TransportProvider> it = ServiceLoader.load(TransportProvider.class,
                TransportProvider.class.getClassLoader()).iterator();
        while (true) {
            TransportProvider p;
            try {
                if (!it.hasNext()) {
                    break;
                }
                p = it.next();
            } catch (ServiceConfigurationError | LinkageError e) {
                log.warn("transport provider left out: {}", e.toString());
                continue;
            }
            String name = p.name();
            if (name == null || !NAME.matcher(name).matches() || name.equals("auto")) {
                log.warn("transport provider {} left out: its name '{}' is not lower-case letters, digits and '-' "
                        + "(or is 'auto')", p.getClass().getName(), name);
            } else if (byName.putIfAbsent(name, p) != null) {
                log.warn("transport provider {} left out: {} has the name '{}' already", p.getClass().getName(),
                        byName.get(name).getClass().getName(), name);
            }
        }
        List<TransportProvider> out = new ArrayList<>(byName.values());
        out.sort(Comparator.comparing(TransportProvider::name));
        return List.copyOf(out);
    }
}
