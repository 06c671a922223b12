// SPDX-License-Identifier: MIT
// The CLI's --public-url / PAYMENT_SANDBOX_PUBLIC_URL, against the sandbox binary: every link on it.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

extension PublicURLTests {
    @Test("CLI: --public-url / PAYMENT_SANDBOX_PUBLIC_URL are the base of Klarna's and Swedbank Pay's links")
    func commandLine() async throws {
        let binary = try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)")
        for (arguments, environment) in [(["--public-url", Self.publicURL + "/"], [String: String?]()),
                                         ([], ["PAYMENT_SANDBOX_PUBLIC_URL": Self.publicURL])] {
            try await alone {
                let child = try ChildProcess(binary, ["--port", "0", "--quiet"] + arguments, environment: environment)
                defer { child.kill() }
                let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
                let server = RunningServer(port: try #require(CLITests.listeningPort(line), "\(line)"))
                try await Self.expectLinks(on: server, start: Self.publicURL)
                child.terminate()
                try await CLITests.expectStopsCleanly(child)
            }
        }
    }
}
