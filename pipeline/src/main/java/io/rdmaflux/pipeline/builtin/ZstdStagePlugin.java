package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.codec.ZstdStage;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.StagePlugin;
import java.util.List;

/** Stage {@code zstd}: the options of the built-in parallel zstd codec. */
public final class ZstdStagePlugin implements StagePlugin {

    static final OptionSpec<Integer> LEVEL = OptionSpec.optional("level",
            ValueType.integer(ZstdStage.MIN_LEVEL, ZstdStage.MAX_LEVEL), ZstdStage.DEFAULT_LEVEL,
            "Compression level; negative levels are zstd's fast modes (1 is the fastest end to end on fast links).");

    @Override
    public String name() {
        return ZstdStage.NAME;
    }

    @Override
    public String description() {
        return "Compresses with zstd on all cores, block by block (a receive source decompresses by itself).";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(LEVEL);
    }

    @Override
    public void validate(OptionValues values) {
        if (values.get(LEVEL) == 0) {
            throw OptionValues.invalid(LEVEL, "0 is not a zstd level (-7 to -1 are the fast modes, 1 to 22 the others)");
        }
    }

    @Override
    public CodecSpec spec(OptionValues values) {
        return ZstdStage.spec(values.get(LEVEL));
    }
}
