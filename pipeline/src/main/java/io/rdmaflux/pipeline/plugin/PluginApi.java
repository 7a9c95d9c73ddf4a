package io.rdmaflux.pipeline.plugin;

/**
 * The version of the plugin API (this package's interfaces, the connectors' and codecs' SPIs
 * that plugins implement), and the rule by which a plugin jar built for one version is used by
 * an rdflux of another.
 *
 * <p>A plugin jar declares the version it was built for in its manifest's main section:
 * {@value #ATTRIBUTE}{@code : MAJOR.MINOR} (with Maven, a {@code manifestEntries} entry of
 * maven-jar-plugin). This rdflux uses a jar whose major version is its own and whose minor
 * version is at most its own: a minor version adds to the API, a major version changes or
 * removes. A jar without the attribute was built before versioning began and is taken as 1.0.
 * Any other jar is left out, before any of its classes is loaded, with one line naming it, its
 * plugins, its version and this one (see {@link PluginRegistry#skipped()}).
 */
public final class PluginApi {

    /** The manifest attribute a plugin jar declares its API version in. */
    public static final String ATTRIBUTE = "Rdflux-Plugin-Api";

    /** Raised when the API changes incompatibly: plugins built for another major version are refused. */
    public static final int MAJOR = 1;

    /** Raised when the API grows: plugins built for a higher minor version are refused. */
    public static final int MINOR = 0;

    /** What a jar without {@link #ATTRIBUTE} is taken to declare. */
    static final String UNDECLARED = "1.0";

    private PluginApi() {
    }

    /** This rdflux's plugin API version, {@code MAJOR.MINOR}. */
    public static String version() {
        return MAJOR + "." + MINOR;
    }

    /**
     * Why a plugin built for {@code declared} cannot be used here, as the end of a sentence
     * whose subject is the plugin ("was built for plugin API 2.0; this rdflux has 1.0"), or null
     * when it can. Null {@code declared} (no attribute) is {@link #UNDECLARED}.
     */
    static String incompatibility(String declared) {
        String v = declared == null ? UNDECLARED : declared.strip();
        int dot = v.indexOf('.');
        int major = dot < 0 ? -1 : number(v.substring(0, dot));
        int minor = dot < 0 ? -1 : number(v.substring(dot + 1));
        if (major < 0 || minor < 0) {
            return "declares plugin API '" + declared.strip() + "' (" + ATTRIBUTE + " in its manifest), which is not "
                    + "MAJOR.MINOR; this rdflux has plugin API " + version();
        }
        if (major == MAJOR && minor <= MINOR) {
            return null;
        }
        String built = "was built for plugin API " + major + "." + minor + "; this rdflux has plugin API " + version();
        return major < MAJOR ? built + " and no longer runs it" : built + ": use a newer rdflux";
    }

    /** A version part: ASCII digits only (no sign, no other script's digits), at most 4 of them; -1 otherwise. */
    private static int number(String s) {
        if (s.isEmpty() || s.length() > 4) {
            return -1;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        return Integer.parseInt(s);
    }
}
