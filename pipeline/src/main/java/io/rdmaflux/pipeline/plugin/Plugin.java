package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import java.util.List;

/**
 * What every source, filter, stage and sink plugin says about itself: the {@code type} that selects it
 * in a pipeline file, one line of docs, and its options. Validation, {@code rdflux plugins} and
 * the reference in docs/user-guide.md are all made from this description.
 *
 * <p>Plugins are found with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/} under the interface's name: {@link SourcePlugin},
 * {@link FilterPlugin}, {@link SinkPlugin} or {@link StagePlugin}); they need a public no-argument constructor and
 * are stateless.
 */
public interface Plugin {

    /** The {@code type} in a pipeline file: lower case, digits and '-' ({@code file}, {@code send}). */
    String name();

    /** One line saying what the plugin does. */
    String description();

    /** The options, in the order they are documented. */
    List<OptionSpec<?>> options();

    /**
     * Checks that concern several options or the world (two options that exclude each other,
     * a key file that cannot be read), after each option was parsed on its own. Throw
     * {@link OptionValues#invalid} to refuse; it is reported with the option's line. Runs
     * before anything starts (and for {@code rdflux run --check}); must not start anything.
     */
    default void validate(OptionValues values) {
    }
}
