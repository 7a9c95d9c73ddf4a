package io.rdmaflux.connector;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.OptionalInt;

/** Blocking writes to one output; used only by {@link WriteLoop}, one call at a time. */
interface WriteTarget {

    /** Creates or opens the output. */
    void open() throws IOException;

    /** Writes all of {@code src}. */
    void write(ByteBuffer src) throws IOException;

    /** Makes the output final (close, rename, flush); returns where the bytes are. */
    String commit() throws IOException;

    /**
     * Gives up: closes and removes partial output where that is possible. Never throws.
     *
     * @return what became of the output, for the error message ("partial file removed"), or
     *         an empty string when there is nothing to add
     */
    String abort();

    /**
     * Makes a {@link #write} or {@link #commit} that may wait indefinitely (a pipe whose reader
     * stopped reading) return, from another thread, because the stream failed or was
     * cancelled; {@link #abort} follows. Outputs that never wait for long need nothing.
     */
    default void interrupt() {
    }

    /** After {@link #commit}: the exit status of the command written to, if the output is one. */
    default OptionalInt exitStatus() {
        return OptionalInt.empty();
    }

    /** The output, for messages. */
    String describe();
}
