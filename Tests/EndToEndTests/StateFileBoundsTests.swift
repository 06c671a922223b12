// SPDX-License-Identifier: MIT
// A state file holding a value the control API would refuse (a clock offset of 1e300, a date of 1e300, a counter at
// its type's maximum) is refused on load, naming the value's key path: in-process and through the executable (exit
// 1). Each of these loaded before and then trapped (on the page, on the next creation, at start).
import Foundation
import SandboxScenarios
import SandboxHTTP
@testable import PaymentSandbox
import Testing

@Suite("State file: values out of bounds")
struct StateFileBoundsTests {
    static let maxCount = "9007199254740992"
    static let dateRange = "0001-01-01T00:00:00Z to 10000-01-01T00:00:00Z"

    /// A state file of `clocks`, scenario `counters`, `ids` and `stores` (JSON texts).
    static func document(clocks: String = "{}", counters: String = "[]", ids: String = "null", stores: String = "{}") -> String {
        #"{"format": "payment-sandbox-state", "format_version": 1, "clocks": \#(clocks), "scenarios": {"defaults": {}, "counters": \#(counters)}, "ids": \#(ids), "stores": \#(stores)}"#
    }

    /// A state file as a sandbox writes it, with one Klarna Payments session (in the first and only namespace); the session's id.
    static func writtenWithASession(_ file: URL) async throws -> (text: String, session: String) {
        let (_, server) = try StateFileTests.sandbox(file, clock: ManualClock())
        let session = try await KlarnaClient(server, namespace: nil, password: "secret").newSession()
        try #require(try await StateFileTests.send(server, "POST", "/__sandbox/snapshot").status == 200)
        return (try String(contentsOf: file, encoding: .utf8), session)
    }

    enum Case: String, CaseIterable, Sendable {
        case clockFarAhead, clockFarBehind, sessionExpiresAt, sweepCount, storeSequence, outboxSequence, idPosition, scenarioCalls

        /// The file's text, from one a sandbox wrote (`written`, with `session`).
        func text(written: String, session: String) -> String {
            func replacing(_ pattern: String, _ replacement: String) -> String {
                written.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
            }
            switch self {
            case .clockFarAhead: return StateFileBoundsTests.document(clocks: #"{"suite-a": 1e300}"#)
            case .clockFarBehind: return StateFileBoundsTests.document(clocks: #"{"suite-a": -1e300}"#)
            case .sessionExpiresAt: return replacing(#""expiresAt":[^,}]+"#, #""expiresAt":1e300"#)
            case .sweepCount: return replacing(#""creationsSinceSweep":[0-9]+"#, #""creationsSinceSweep":9223372036854775807"#)
            case .storeSequence:
                return StateFileBoundsTests.document(stores: #"{"klarna_payments": {"sequence": 18446744073709551615, "namespaces": []}}"#)
            case .outboxSequence:
                return StateFileBoundsTests.document(stores: #"{"callback_outbox": {"sequence": 9223372036854775807, "namespaces": []}}"#)
            case .idPosition: return StateFileBoundsTests.document(ids: #"{"ids": 9223372036854775807, "error_ids": 0}"#)
            case .scenarioCalls:
                return StateFileBoundsTests.document(counters: #"[{"namespace": "a", "object": "o", "operation": "klarna.payments.create_order", "scenario": "reject", "rule": 0, "calls": 9223372036854775807}]"#)
            }
        }

        /// The reason after `state file PATH: `.
        func reason(session: String) -> String {
            let clockRange = "puts the namespace's clock outside the range it can show, 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z "
                + "(what POST /__sandbox/clock allows)"
            let count = "is not a count from 0 to \(StateFileBoundsTests.maxCount)"
            switch self {
            case .clockFarAhead: return "clocks.suite-a: an offset of 1e+300 seconds " + clockRange
            case .clockFarBehind: return "clocks.suite-a: an offset of -1e+300 seconds " + clockRange
            case .sessionExpiresAt:
                return "stores.klarna_payments.namespaces[0].objects.sessions.\(session).expiresAt: 1e+300 is not a date from "
                    + "\(StateFileBoundsTests.dateRange) (seconds since 2001-01-01)"
            case .sweepCount: return "stores.klarna_payments.namespaces[0].objects.sweep.creationsSinceSweep: 9223372036854775807 \(count)"
            case .storeSequence: return "stores.klarna_payments.sequence: 18446744073709551615 \(count)"
            case .outboxSequence: return "stores.callback_outbox.sequence: 9223372036854775807 \(count)"
            case .idPosition: return "ids.ids: 9223372036854775807 \(count)"
            case .scenarioCalls: return "scenarios.counters[0].calls: 9223372036854775807 \(count)"
            }
        }
    }

    @Test("loadStateFile() refuses the value, naming its key path; the file stays as it was and nothing is restored",
          arguments: Case.allCases)
    func refusedInProcess(_ value: Case) async throws {
        try await withStateDirectory { directory in
            let (written, session) = try await Self.writtenWithASession(directory.appendingPathComponent("written.json"))
            let file = directory.appendingPathComponent("state.json")
            let text = value.text(written: written, session: session)
            try #require(text != written, "the pattern did not match: \(written)")
            try Data(text.utf8).write(to: file)

            var configuration = SandboxConfiguration(port: 0)
            configuration.stateFile = file
            let sandbox = PaymentSandbox(configuration: configuration)
            do {
                try sandbox.loadStateFile()
                Issue.record("\(value): loaded")
            } catch {
                #expect("\(error)" == "state file \(file.path): \(value.reason(session: session))")
            }
            #expect(sandbox.retention.counts.held == 0)
            await sandbox.stop()
            #expect(try String(contentsOf: file, encoding: .utf8) == text, "a refused file was overwritten")
        }
    }

    @Test("the executable refuses to start with the value, naming its key path: exit 1", arguments: Case.allCases)
    func refusedByTheExecutable(_ value: Case) async throws {
        try await withStateDirectory { directory in
            let (written, session) = try await Self.writtenWithASession(directory.appendingPathComponent("written.json"))
            let file = directory.appendingPathComponent("state.json")
            try Data(value.text(written: written, session: session).utf8).write(to: file)
            let (status, stdout, stderr) = try await CLITests.run(["--port", "0", "--quiet", "--state-file", file.path])
            #expect(status == 1, "exit status \(String(describing: status)); stdout: \(stdout); stderr: \(stderr)")
            #expect(stderr == "payment-sandbox: not starting: state file \(file.path): \(value.reason(session: session))\n")
            #expect(!stdout.contains("listening"))
        }
    }

    /// A clock moved past what an `Int` holds (only the unchecked `advance` can, as a restored offset could before)
    /// made the page's `Int(Double)` trap: now the page shows the offset.
    @Test("the page shows a clock moved by 1e300 seconds instead of trapping")
    func pageWithAHugeOffset() async throws {
        let sandbox = PaymentSandbox(configuration: SandboxConfiguration(port: 0))
        sandbox.registry.advance(Namespace("far"), by: 1e300)
        let page = try await RunningServer(port: 0, inProcess: sandbox).exchange(rawRequest("GET", "/__sandbox/ui"))
        #expect(page.status == 200, "\(page)")
        #expect(page.bodyText.contains("clock +1e+300 s"), "\(page.bodyText)")
        #expect(SandboxUIPages.duration(.infinity) == "inf s" && SandboxUIPages.duration(-.infinity) == "-inf s")
        #expect(SandboxUIPages.duration(.nan) == "nan s")
    }
}
