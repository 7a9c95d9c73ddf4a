package io.rdmaflux.pipeline.config;

import java.util.ArrayList;
import java.util.List;

/**
 * A list of values, written as a YAML sequence ({@code [a, b]} or one {@code - item} per line).
 * Each item is parsed by the element type.
 *
 * @param <E> the type of one item
 */
public final class ListType<E> implements ValueType<List<E>> {

    private final ValueType<E> element;

    ListType(ValueType<E> element) {
        this.element = element;
    }

    /** The type of each item. */
    public ValueType<E> element() {
        return element;
    }

    @Override
    public String name() {
        return "list of " + element.name();
    }

    @Override
    public String description() {
        return "a list (each item " + element.description() + ")";
    }

    /** A list given as one text: not accepted (a list is a sequence); always throws. */
    @Override
    public List<E> parse(String text) {
        throw new IllegalArgumentException("a list is written as a sequence");
    }

    @Override
    public String format(List<E> value) {
        List<String> parts = new ArrayList<>();
        for (E e : value) {
            parts.add(element.format(e));
        }
        return "[" + String.join(", ", parts) + "]";
    }
}
