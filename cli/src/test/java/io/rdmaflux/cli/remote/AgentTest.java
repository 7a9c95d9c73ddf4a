package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.ExitCode;
import io.rdmaflux.connector.ConnectorException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The agent's side of the protocol in-process, over pipes, with small job runners written
 * here (the runner is the agent's plug-in point; the real one is tested over ssh).
 */
class AgentTest {

    private static final Map<String, String> ENV = Map.of("SSH_CONNECTION", "10.0.0.1 50000 10.0.0.2 22");
    private static final String JOB = new AgentMessage.Job(Map.of("source", Map.of("type", "x")), 0, false, false).toLine();

    private final PipedOutputStream toAgent = new PipedOutputStream();
    private final BlockingQueue<String> fromAgent = new LinkedBlockingQueue<>();
    private CompletableFuture<Integer> status;
    private Agent agent;

    @AfterEach
    void close() throws IOException {
        toAgent.close();
    }

    private void start(Agent.JobRunner runner) throws IOException {
        PipedInputStream in = new PipedInputStream(toAgent, 1 << 20);
        PipedInputStream outPipe = new PipedInputStream(1 << 20);
        PrintStream out = new PrintStream(new PipedOutputStream(outPipe), true, StandardCharsets.UTF_8);
        agent = new Agent(runner, ExitCode::of, Throwable::getMessage);
        status = CompletableFuture.supplyAsync(() -> {
            try {
                return agent.serve(in, out, ENV, "rdma-flux test");
            } finally {
                out.close();
            }
        });
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(outPipe, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    fromAgent.add(line);
                }
            } catch (IOException e) {
                // The agent closed its side.
            }
        });
        reader.setDaemon(true);
        reader.start();
    }

    private void send(String line) throws IOException {
        OutputStream o = toAgent;
        o.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        o.flush();
    }

    private AgentMessage next() throws InterruptedException {
        String line = fromAgent.poll(30, TimeUnit.SECONDS);
        assertThat(line).as("a line from the agent").isNotNull();
        return AgentMessage.parse(line);
    }

    private int exit() throws Exception {
        return status.get(30, TimeUnit.SECONDS);
    }

    @Test
    void saysHelloRunsTheJobAndReports() throws Exception {
        start((job, control) -> Mono.fromRunnable(() -> {
            assertThat(job.pipeline()).containsKey("source");
            control.listening(4242, List.of("tcp"));
            control.started();
            control.count().moved(1000);
            control.count().moved(24);
        }));
        assertThat(next()).isEqualTo(new AgentMessage.Hello(AgentMessage.PROTOCOL, "rdma-flux test", "10.0.0.1", "10.0.0.2"));
        send(JOB);
        assertThat(next()).isEqualTo(new AgentMessage.Listening(4242, List.of("tcp")));
        assertThat(next()).isEqualTo(new AgentMessage.Started());
        assertThat(next()).isEqualTo(new AgentMessage.Done(0, 1024, null));
        assertThat(exit()).isZero();
    }

    @Test
    void theDownstreamAddressArrivesWhileTheJobRuns() throws Exception {
        start((job, control) -> {
            control.listening(1, List.of());
            return control.downstream().doOnNext(c -> control.count().moved(c.port())).then();
        });
        next();
        send(JOB);
        assertThat(next()).isInstanceOf(AgentMessage.Listening.class);
        send("{\"type\":\"a-message-from-the-future\",\"x\":1}");
        send(new AgentMessage.Connect("10.0.0.3", 777).toLine());
        assertThat(next()).isEqualTo(new AgentMessage.Done(0, 777, null));
        assertThat(exit()).isZero();
    }

    @Test
    void aFailedJobReportsItsExitCodeAndMessage() throws Exception {
        start((job, control) -> Mono.error(ConnectorException.sink(ConnectorException.Reason.NO_SPACE,
                "cannot write /x: disk full", null)));
        next();
        send(JOB);
        assertThat(next()).isEqualTo(new AgentMessage.Done(74, 0, "cannot write /x: disk full"));
        assertThat(exit()).isEqualTo(74);
    }

    @Test
    void stdinEndingBeforeTheJobEndsTheAgent() throws Exception {
        start((job, control) -> Mono.error(new AssertionError("no job was sent")));
        next();
        toAgent.close();
        AgentMessage.Done done = (AgentMessage.Done) next();
        assertThat(done.status()).isEqualTo(75);
        assertThat(done.message()).contains("before sending a job");
        assertThat(exit()).isEqualTo(75);
    }

    @Test
    void stdinEndingMidJobFailsItsStreams() throws Exception {
        AtomicBoolean cleanedUp = new AtomicBoolean();
        start((job, control) -> {
            control.started();
            return Mono.never().then().mergeWith(control.aborted().then(Mono.error(control.abortError())))
                    .then().doOnError(e -> cleanedUp.set(true));
        });
        next();
        send(JOB);
        assertThat(next()).isInstanceOf(AgentMessage.Started.class);
        toAgent.close();
        AgentMessage.Done done = (AgentMessage.Done) next();
        assertThat(done.status()).isEqualTo(75);
        assertThat(done.message()).contains("coordinator");
        assertThat(cleanedUp).isTrue();
        assertThat(exit()).isEqualTo(75);
    }

    @Test
    void aJobThatIgnoresTheAbortIsCancelledAfterTheGrace() throws Exception {
        AtomicBoolean cancelled = new AtomicBoolean();
        start((job, control) -> Mono.<Void>never().doOnSubscribe(s -> control.started())
                .doOnCancel(() -> cancelled.set(true)));
        next();
        send(JOB);
        assertThat(next()).isInstanceOf(AgentMessage.Started.class);
        agent.abort();
        AgentMessage.Done done = (AgentMessage.Done) next();
        assertThat(done.status()).isEqualTo(75);
        assertThat(cancelled).isTrue();
        assertThat(agent.awaitFinished(java.time.Duration.ofSeconds(30))).isTrue();
    }

    @Test
    void aMalformedMessageFromTheCoordinatorIsAProtocolError() throws Exception {
        start((job, control) -> Mono.empty());
        next();
        send("{\"type\":\"job\"}");
        AgentMessage.Done done = (AgentMessage.Done) next();
        assertThat(done.status()).isEqualTo(70);
        assertThat(done.message()).contains("bad message from the coordinator").contains("pipeline");
        assertThat(exit()).isEqualTo(70);
    }

    @Test
    void progressIsReportedWhenAsked() throws Exception {
        start((job, control) -> control.aborted().then(Mono.fromRunnable(() -> control.count().moved(0)))
                .doOnSubscribe(s -> control.count().moved(5)).then());
        next();
        send(new AgentMessage.Job(Map.of(), 10, false, false).toLine());
        // The 10 ms tick may report before the job has counted anything: skip those reports.
        AgentMessage m;
        do {
            m = next();
        } while (m instanceof AgentMessage.Progress p && p.bytes() == 0);
        assertThat(m).isEqualTo(new AgentMessage.Progress(5));
        toAgent.close();
        do {
            m = next();
        } while (m instanceof AgentMessage.Progress);
        assertThat(m).isEqualTo(new AgentMessage.Done(0, 5, null));
    }
}
