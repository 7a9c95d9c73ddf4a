package io.rdmaflux.connector;

import java.io.IOException;
import java.nio.ByteBuffer;

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
     * @return what became of the output, for the error message ("partial file removed")
     */
    String abort();

    /** The output, for messages. */
    String describe();
}
