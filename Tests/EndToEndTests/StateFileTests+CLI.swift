// SPDX-License-Identifier: MIT
// The state file through the executable: real processes stopped with SIGTERM, killed with SIGKILL mid-write, and
// refused files that stop the start.
import Foundation
import PaymentSandbox
import SandboxHTTP
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("State file (command line)")
struct StateFileCLITests {
    /// Starts the executable with `--state-file`; returns it with the port it listens on.
    static func start(_ file: URL, environment: [String: String?] = [:]) async throws -> (ChildProcess, RunningServer) {
        let child = try ChildProcess(try CLITests.binary(), ["--port", "0", "--quiet", "--state-file", file.path], environment: environment)
        let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
        let port = try #require(CLITests.listeningPort(line), "unexpected startup line: \(line)")
        return (child, RunningServer(port: port, inProcess: nil))
    }

    static func stop(_ child: ChildProcess) async throws {
        child.terminate()
        try await CLITests.expectStopsCleanly(child, within: .seconds(5))
    }

    @Test func sigtermKeepsTheState_AKlarnaSessionIsOrdered_AndASwedbankPayOrderPaidAndCaptured_AfterTheRestart() async throws {
        try await alone {
            try await withStateDirectory { directory in
                let file = directory.appendingPathComponent("state.json")
                let (first, server) = try await Self.start(file)
                defer { first.kill() }
                let klarna = KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret")
                let session = try await klarna.newSession()
                let token = try await SwedbankPayTestOrder.create(try server.client(), namespace: StateFileTests.namespace)
                #expect(try await StateFileTests.send(server, "PUT", "/__sandbox/scenario", namespace: "cli-other",
                                                      body: #"{"name": "reject"}"#).status == 200)
                try await Self.stop(first)
                #expect(FileManager.default.fileExists(atPath: file.path), "no state file after SIGTERM; stderr: \(first.stderr)")

                let (second, restarted) = try await Self.start(file)
                defer { second.kill() }
                let client = KlarnaClient(restarted, namespace: StateFileTests.namespace, password: "secret")
                let authorization = try await client.newAuthorization(session)
                _ = try await client.newOrder(authorization)
                let scenarios = try await StateFileTests.send(restarted, "GET", "/__sandbox/scenarios", namespace: "cli-other")
                #expect(try scenarios.jsonObject()["default_scenario"] as? String == "reject")
                // The order created before the restart: its page pays it, the merchant reads and captures it.
                let pay = try await CheckoutPageClient(try restarted.client()).post("/checkout/\(token)/web/Invoice-PayExFinancingSe",
                                                                              [("ssn", "199710202392")])
                #expect(pay.status == 303 && pay.header("Location") == SwedbankPayTestOrder.completeUrl, "\(pay)")
                let state = try await StateFileTests.send(restarted, "GET", "/__sandbox/state")
                let orders = try #require((try state.jsonObject()["swedbankpay_paymentorders"] as? [String: Any])?["payment_orders"]
                                          as? [[String: Any]], "\(state.bodyText)")
                let order = try #require(orders.first { $0["token"] as? String == token }, "\(orders)")
                #expect(order["status"] as? String == "Paid")
                let resource = try #require(order["id"] as? String)
                let capture = try await StateFileTests.send(restarted, "POST", "\(resource)/captures", bearer: true,
                    body: #"{"transaction":{"description":"Capture","amount":1500,"vatAmount":0,"payeeReference":"cap1"}}"#)
                #expect(capture.status == 200, "\(capture)")
                try await Self.stop(second)
            }
        }
    }

    @Test func killedMidWrite_StartsAgainFromTheLastGoodFile() async throws {
        try await alone {
            try await withStateDirectory { directory in
                let file = directory.appendingPathComponent("state.json")
                let (first, server) = try await Self.start(file)
                defer { first.kill() }
                let kept = try await KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret").newSession()
                try await Self.stop(first)
                let good = try Data(contentsOf: file)

                // Test-only knob: the write pauses between the temporary file and the rename; it is killed there.
                let (second, again) = try await Self.start(file, environment: ["PAYMENT_SANDBOX_TEST_STATE_FILE_PAUSE": "30"])
                defer { second.kill() }
                let lost = try await KlarnaClient(again, namespace: StateFileTests.namespace, password: "secret").newSession()
                let snapshot = Task { try? await StateFileTests.send(again, "POST", "/__sandbox/snapshot") }
                let deadline = ContinuousClock.now + .seconds(60)
                while !second.stderr.contains("test pause:"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                try #require(second.stderr.contains("test pause:"), "the write never paused; stderr: \(second.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).contains { $0.hasPrefix("state.json.tmp-") })
                second.kill()
                _ = try await second.waitForExit(timeout: .seconds(30))
                _ = await snapshot.value
                #expect(try Data(contentsOf: file) == good, "the last good file changed")

                let (third, restarted) = try await Self.start(file)
                defer { third.kill() }
                let client = KlarnaClient(restarted, namespace: StateFileTests.namespace, password: "secret")
                #expect(try await client.readSession(kept).status == 200)
                #expect(try await client.readSession(lost).status == 404)
                try await Self.stop(third)
            }
        }
    }

    @Test(arguments: [
        ("unreadable", Data([0xFF, 0xFE, 0x00, 0x7B]), "cannot be read"),
        ("incompatible", Data(#"{"format": "payment-sandbox-state", "format_version": 99}"#.utf8), "has format_version 99"),
    ])
    func refusedFile_StopsTheStart_AndStaysByteIdentical(label: String, contents: Data, reason: String) async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            try contents.write(to: file)
            let (status, stdout, stderr) = try await CLITests.run(["--port", "0", "--quiet", "--state-file", file.path])
            #expect(status == 1, "\(label): exit status \(String(describing: status)); stdout: \(stdout)")
            #expect(stderr.contains("payment-sandbox: not starting: state file \(file.path): \(reason)"), "\(label): \(stderr)")
            #expect(!stdout.contains("listening"), "\(label)")
            #expect(try Data(contentsOf: file) == contents, "\(label)")
        }
    }

    @Test func environmentVariables_TheStateFileIsWrittenEveryInterval() async throws {
        try await alone {
            try await withStateDirectory { directory in
                let file = directory.appendingPathComponent("state.json")
                let child = try ChildProcess(try CLITests.binary(), ["--port", "0", "--quiet"],
                                             environment: ["PAYMENT_SANDBOX_STATE_FILE": file.path, "PAYMENT_SANDBOX_SNAPSHOT_INTERVAL": "0.2"])
                defer { child.kill() }
                let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
                let server = RunningServer(port: try #require(CLITests.listeningPort(line)), inProcess: nil)
                let session = try await KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret").newSession()
                // Written by the interval, without a signal or a request.
                let deadline = ContinuousClock.now + .seconds(60)
                var written = ""
                while !written.contains(session), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                    written = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                }
                #expect(written.contains(session), "the session never reached the state file")
                try await Self.stop(child)
            }
        }
    }

    @Test func aFinalWriteThatFails_ExitsNonZeroNamingTheFile() async throws {
        try await alone {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("state.json")
            let (child, _) = try await Self.start(file)
            defer { child.kill() }
            try FileManager.default.removeItem(at: directory)       // nowhere to write any more
            child.terminate()
            let status = try await child.waitForExit(timeout: .seconds(30))
            #expect(status == 1, "exit status \(String(describing: status)); stderr: \(child.stderr)")
            #expect(child.stderr.contains("payment-sandbox: state file \(file.path): cannot be written: open \(file.path).tmp"), "\(child.stderr)")
        }
    }
}
