// SPDX-License-Identifier: MIT
// The CLI's --trust-proxy, against the sandbox binary; the header tests run in-process.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

extension ForwardedHeaderTests {
    @Test("CLI: --trust-proxy / PAYMENT_SANDBOX_TRUST_PROXY turn trust on, for Forwarded unless only x-forwarded is named")
    func commandLine() async throws {
        let binary = try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)")
        for (arguments, environment, expected) in [([String](), [String: String?](), "http"), (["--trust-proxy"], [:], "https"),
                                                   (["--trust-proxy=forwarded"], [:], "https"),
                                                   (["--trust-proxy=x-forwarded"], [:], "http"),
                                                   ([], ["PAYMENT_SANDBOX_TRUST_PROXY": "1"], "https"),
                                                   ([], ["PAYMENT_SANDBOX_TRUST_PROXY": "x-forwarded"], "http")] {
            try await alone {
                let child = try ChildProcess(binary, ["--port", "0", "--quiet"] + arguments, environment: environment)
                defer { child.kill() }
                let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
                let server = RunningServer(port: try #require(CLITests.listeningPort(line), "\(line)"))
                let hrefs = try await Self.swedbankPayHrefs(server, [Self.phpSDKForwarded])
                #expect(hrefs.allSatisfy { $0.hasPrefix("\(expected)://127.0.0.1:\(server.port)/") }, "\(arguments) \(environment): \(hrefs)")
                child.terminate()
                try await CLITests.expectStopsCleanly(child)
            }
        }
    }

    @Test("CLI: an unknown --trust-proxy value is a usage error", arguments: [
        (["--trust-proxy=maybe"], [String: String]()), ([], ["PAYMENT_SANDBOX_TRUST_PROXY": "x-forwarded-for"]),
    ])
    func commandLine_BadTrust(arguments: [String], environment: [String: String]) async throws {
        let result = try await runCLI(arguments, workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                                      environment: environment)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first?.contains("must be all, x-forwarded, forwarded or 0") == true, "\(result.stderr)")
    }
}
