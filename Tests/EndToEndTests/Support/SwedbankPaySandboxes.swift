// SPDX-License-Identifier: MIT
// A Swedbank Pay sandbox for the tests that stay on sockets (or on this target's in-process transport); the SDK
// walker and its driver are in SandboxTestSupport and reach it through `RunningServer.client()`.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxCore
import SandboxTestSupport
import Testing

/// The bundled scenarios directory (<repo>/scenarios), from this file's path.
let swedbankPayScenariosDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scenarios")

/// A sandbox with a manual clock and the bundled scenarios, with `swedbankpay-testdata` as a content-rule scenario;
/// `extraScenarios` (file name → text) are loaded after them.
func withSwedbankPaySandbox<T>(extraScenarios: [String: String] = [:], transport: RequestTransport = .socket,
                               _ body: (PaymentSandbox, RunningServer) async throws -> T)
async throws -> T {
    try await withScenarioDirectory { directory in
        for (name, text) in extraScenarios { try directory.write(name, text) }
        return try await withSandboxInstance(transport: transport, { configuration in
            configuration.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            configuration.scenarioDirectories = [swedbankPayScenariosDirectory] + (extraScenarios.isEmpty ? [] : [directory.url])
        }, body)
    }
}

extension RunningServer {
    /// A SandboxClient of this server, for the shared drivers (SandboxTestSupport): live on its port, or in-process
    /// when the server answers in-process.
    func client() throws -> SandboxClient {
        if let inProcess { return try SandboxClient(sandbox: inProcess) }
        return SandboxClient(baseURL: baseURL)
    }
}
