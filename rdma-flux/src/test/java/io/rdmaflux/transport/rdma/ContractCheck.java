package io.rdmaflux.transport.rdma;

import java.io.PrintWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * Runs {@link RdmaTransportContractTest} inside the Soft-RoCE guest, where there is no Maven:
 * the JUnit launcher on the module's test class path. Prints a summary and
 * "contract check: PASS" or "FAIL"; exits 0 only when every test ran and passed (a test that
 * was skipped, because RDMA did not work, is a failure here).
 */
public final class ContractCheck {

    private ContractCheck() {
    }

    public static void main(String[] args) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(RdmaTransportContractTest.class)).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        summary.printTo(out);
        summary.printFailuresTo(out, 30);
        boolean pass = summary.getTotalFailureCount() == 0 && summary.getTestsSucceededCount() > 0
                && summary.getTestsSkippedCount() == 0 && summary.getContainersFailedCount() == 0;
        out.println("contract check: " + (pass ? "PASS" : "FAIL"));
        System.exit(pass ? 0 : 1);
    }
}
