package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.codec.CodecStage;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import java.util.List;

/** A codec stage that no stage plugin describes: a stage without options. */
final class CodecStagePlugin implements StagePlugin {

    private final CodecStage stage;

    CodecStagePlugin(CodecStage stage) {
        this.stage = stage;
    }

    /** The codec stage this plugin stands for. */
    CodecStage stage() {
        return stage;
    }

    @Override
    public String name() {
        return stage.name();
    }

    @Override
    public String description() {
        return "Codec stage " + stage.name() + ":" + stage.version() + " (no options)"
                + (stage.requiresKey() ? "; needs a channel session key (a send sink)" : "") + ".";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of();
    }

    @Override
    public CodecSpec spec(OptionValues values) {
        return CodecSpec.of(stage.name(), stage.version());
    }
}
