package io.rdmaflux.cli;

import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --zstd[=LEVEL]}, the same in every tool that compresses: rdsend, rdcp, rdpipe. */
final class ZstdOption {

    @Option(names = "--zstd", arity = "0..1", paramLabel = "LEVEL", fallbackValue = "1", preprocessor = AttachedLevel.class,
            description = "Compress with zstd on all cores (level -7 to 22, attached: --zstd=3; default 1, the fastest "
                + "end to end on fast links). The receiving end decompresses on its own; it needs no flag.")
    Integer level;

    /**
     * {@code --zstd} takes its level only attached ({@code --zstd=3}): a separate word after it
     * is the next argument (the host, a path, a segment), not a level.
     */
    static final class AttachedLevel implements IParameterPreprocessor {
        @Override
        public boolean preprocess(Stack<String> args, CommandSpec spec, ArgSpec arg, Map<String, Object> info) {
            if (!"=".equals(String.valueOf(info.get("separator")))) {
                // "--zstd 3": the 3 would become an argument; say how to write it instead.
                if (!args.isEmpty() && args.peek().matches("-?[0-9]+")) {
                    String first = spec.positionalParameters().get(0).paramLabel().split("[ .]")[0];
                    throw new ParameterException(spec.commandLine(), "--zstd takes its level attached: write --zstd="
                            + args.peek() + " (a separate " + args.peek() + " would be " + first + ")");
                }
                arg.setValue(1);
                return true;
            }
            return false;
        }
    }
}
