package io.rdmaflux.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.AutoComplete;
import picocli.CommandLine;

/**
 * Writes the files a release ships beside the jar, from the tools' own picocli models: a man
 * page for each tool ({@code share/man/man1/TOOL.1}) and a bash completion script for each
 * ({@code share/bash-completion/completions/TOOL}, where bash-completion looks a command up by
 * its name). Run by the dist module's build: {@code java -cp rdma-flux.jar
 * io.rdmaflux.cli.ReleaseFiles DIR}.
 */
public final class ReleaseFiles {

    /** The tools, in the order their pages list them. */
    static final List<String> TOOLS = List.of("rdsend", "rdrecv", "rdcp", "rdpipe", "rdflux");

    private ReleaseFiles() {
    }

    /** Writes the man pages and completions under the directory given. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java -cp rdma-flux.jar io.rdmaflux.cli.ReleaseFiles DIR");
            System.exit(ExitCode.USAGE);
        }
        write(Path.of(args[0]));
    }

    static void write(Path dir) throws IOException {
        Path man = Files.createDirectories(dir.resolve("share/man/man1"));
        Path completions = Files.createDirectories(dir.resolve("share/bash-completion/completions"));
        String version = Version.text().replaceFirst(" \\(.*", "");
        for (String tool : TOOLS) {
            CommandLine cl = Main.commandLine(tool);
            Files.writeString(man.resolve(tool + ".1"), ManPage.render(cl, version), StandardCharsets.UTF_8);
            Files.writeString(completions.resolve(tool), AutoComplete.bash(tool, cl), StandardCharsets.UTF_8);
        }
    }
}
