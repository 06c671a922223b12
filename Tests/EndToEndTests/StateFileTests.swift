// SPDX-License-Identifier: MIT
// The state file (`--state-file`, SandboxConfiguration.stateFile): every kind of object, the clocks, default
// scenarios and counters survive a snapshot and a new sandbox made from it; files it cannot load stop the start and
// stay as they were.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

/// A fresh directory for a state file, removed afterwards.
func withStateDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

@Suite("State file")
struct StateFileTests {
    static let namespace = "state-file"

    /// A sandbox answering in-process with `stateFile`, the shared `clock` and ids of its own.
    static func sandbox(_ stateFile: URL, clock: ManualClock) throws -> (PaymentSandbox, RunningServer) {
        var configuration = SandboxConfiguration(port: 0)
        configuration.stateFile = stateFile
        configuration.clock = clock
        configuration.ids = SequentialIDGenerator()
        let sandbox = PaymentSandbox(configuration: configuration)
        try sandbox.loadStateFile()
        return (sandbox, RunningServer(port: 0, inProcess: sandbox))
    }

    static func send(_ server: RunningServer, _ method: String, _ path: String, namespace: String = StateFileTests.namespace,
                     bearer: Bool = false, body: String? = nil, headers: [(String, String)] = []) async throws -> RawResponse {
        var all = [("Sandbox-Namespace", namespace)] + headers
        all.append(("Authorization", bearer ? "Bearer \(namespace)" : "Basic " + Data("PK12345_0123456789ab:secret".utf8).base64EncodedString()))
        if body != nil { all.append(("Content-Type", bearer ? "application/json;version=3.1" : "application/json")) }
        return try await server.exchange(klarnaRequest(method, path, port: server.port, headers: all, body: body))
    }

    /// What the objects of every kind answer, as text: compared before the snapshot and after the restart.
    struct Reads: Equatable {
        var answers: [String: String] = [:]
    }

    /// JSON text with its keys sorted and its arrays in a fixed order: `/__sandbox/state` lists objects created at the
    /// same instant (a manual clock) in no particular order.
    static func canonical(_ text: String) -> String {
        func canonical(_ value: Any) -> String {
            switch value {
            case let object as [String: Any]:
                return "{" + object.keys.sorted().map { "\($0):\(canonical(object[$0]!))" }.joined(separator: ",") + "}"
            case let array as [Any]:
                return "[" + array.map(canonical).sorted().joined(separator: ",") + "]"
            default:
                return "\(value)"
            }
        }
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return text }
        return canonical(value)
    }

    @Test func roundTrip_EveryKindOfObjectAnswersTheSame_AndTheFlowsGoOn() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("sandbox-state.json")
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let (before, server) = try Self.sandbox(file, clock: clock)
            let klarna = KlarnaClient(server, namespace: Self.namespace, password: "secret")

            // Klarna Payments: a session left open, one authorized and ordered (an Order Management order, captured
            // with an idempotency key), a customer token; an HPP session.
            let openSession = try await klarna.newSession()
            let (_, orderedToken) = try await klarna.authorizedSession()
            let orderID = try await klarna.newOrder(orderedToken)
            let captureBody = #"{"captured_amount": 1000, "description": "Part"}"#
            let capture = try await Self.send(server, "POST", "/ordermanagement/v1/orders/\(orderID)/captures", body: captureBody,
                                              headers: [("Klarna-Idempotency-Key", "capture-1")])
            try #require(capture.status == 201, "\(capture)")
            let tokenize = try await klarna.newSession(KlarnaExamples.edit(KlarnaExamples.gbSession) { $0["intent"] = "tokenize" })
            let tokenized = try await klarna.createCustomerToken(try await klarna.newAuthorization(tokenize))
            try #require(tokenized.status == 200, "\(tokenized)")
            let customerToken = try #require(try tokenized.jsonObject()["token_id"] as? String)
            let hpp = try await klarna.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(try await klarna.newSession()))
            try #require(hpp.status == 201, "\(hpp)")
            let hppSession = try #require(try hpp.jsonObject()["session_id"] as? String)

            // Swedbank Pay: an order left to pay after the restart (its payment session opened), one paid now.
            let unpaidToken = try await SwedbankPayTestOrder.create(try server.client(), namespace: Self.namespace)
            let opened = try await server.exchange("GET /psp/paymentsessions/\(unpaidToken) HTTP/1.1\r\nHost: 127.0.0.1:0\r\n\r\n")
            try #require(opened.status == 200, "\(opened)")
            let paidToken = try await SwedbankPayTestOrder.create(try server.client(), namespace: Self.namespace)
            let paid = try await CheckoutPageClient(try server.client()).post("/checkout/\(paidToken)/web/Invoice-PayExFinancingSe",
                                                                       [("ssn", "199710202392")])
            try #require(paid.status == 303, "\(paid)")
            let (_, unpaidOrder) = try #require(before.swedbankPayOrders.lookup(token: unpaidToken))
            let (_, paidOrder) = try #require(before.swedbankPayOrders.lookup(token: paidToken))

            // Another namespace with a default scenario and a clock of its own.
            let other = "state-file-other"
            #expect(try await Self.send(server, "PUT", "/__sandbox/scenario", namespace: other, body: #"{"name": "reject"}"#).status == 200)
            #expect(try await Self.send(server, "POST", "/__sandbox/clock", namespace: other, body: #"{"advance_seconds": 3600}"#).status == 200)

            func reads(_ server: RunningServer) async throws -> Reads {
                var reads = Reads()
                for path in ["/payments/v1/sessions/\(openSession)", "/ordermanagement/v1/orders/\(orderID)",
                             "/customer-token/v1/tokens/\(customerToken)", "/hpp/v1/sessions/\(hppSession)", "/__sandbox/state"] {
                    let text = try await Self.send(server, "GET", path).bodyText
                    reads.answers[path] = path == "/__sandbox/state" ? Self.canonical(text) : text
                }
                for orderID in [unpaidOrder, paidOrder] {
                    let path = "/psp/paymentorders/\(orderID)?$expand=paid,history"
                    reads.answers[path] = try await Self.send(server, "GET", path, bearer: true).bodyText
                }
                for path in ["/__sandbox/clock", "/__sandbox/scenarios"] {
                    reads.answers[other + path] = try await Self.send(server, "GET", path, namespace: other).bodyText
                }
                return reads
            }
            let answersBefore = try await reads(server)

            let snapshot = try await Self.send(server, "POST", "/__sandbox/snapshot")
            #expect(snapshot.status == 200, "\(snapshot)")
            let written = try snapshot.jsonObject()
            #expect(written["path"] as? String == file.path)
            #expect(written["bytes"] as? Int == (try Data(contentsOf: file)).count)
            #expect(written["namespaces"] as? Int == 2)
            // 4 KP sessions, 2 tokens, 1 KP order, 1 customer token; 1 HPP session; 1 OM order; 2 payment orders and their 2
            // payment sessions (one the app opened, one the checkout page paid through).
            #expect(written["objects"] as? Int == 14, "\(written)")

            let (after, restarted) = try Self.sandbox(file, clock: clock)
            let answersAfter = try await reads(restarted)
            for (path, answer) in answersBefore.answers {
                #expect(answersAfter.answers[path] == answer, "\(path)")
            }
            #expect(answersAfter.answers[other + "/__sandbox/scenarios"]?.contains(#""default_scenario":"reject""#) == true)

            // The flows go on: the open session is authorized and ordered; the capture's key answers as before.
            let client = KlarnaClient(restarted, namespace: Self.namespace, password: "secret")
            let laterToken = try await client.newAuthorization(openSession)
            let laterOrder = try await client.newOrder(laterToken)
            let again = try await Self.send(restarted, "POST", "/ordermanagement/v1/orders/\(orderID)/captures", body: captureBody,
                                            headers: [("Klarna-Idempotency-Key", "capture-1")])
            #expect(again.status == capture.status && again.bodyText == capture.bodyText && again.header("Location") == capture.header("Location"))
            // Ids go on after the restored ones instead of repeating them.
            let earlier = Set([openSession, orderedToken, orderID, customerToken, hppSession, unpaidOrder, paidOrder])
            #expect(!earlier.contains(laterToken) && !earlier.contains(laterOrder), "\(laterToken) \(laterOrder)")
            // The Swedbank Pay order created before is paid through its page and captured.
            let pay = try await CheckoutPageClient(try restarted.client()).post("/checkout/\(unpaidToken)/web/Invoice-PayExFinancingSe",
                                                                          [("ssn", "199710202392")])
            #expect(pay.status == 303 && pay.header("Location") == SwedbankPayTestOrder.completeUrl, "\(pay)")
            let captured = try await Self.send(restarted, "POST", "/psp/paymentorders/\(unpaidOrder)/captures", bearer: true,
                                               body: #"{"transaction":{"description":"Capture","amount":1500,"vatAmount":0,"payeeReference":"cap1"}}"#)
            #expect(captured.status == 200, "\(captured)")
            #expect(SwedbankPayTestOrder.status(after, token: unpaidToken) == .paid)
            _ = before
        }
    }

    @Test func restoredObjects_CountTowardMaxObjects_OldestOfTheWholeServerEvictedFirst() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let (sandbox, server) = try Self.sandbox(file, clock: clock)
            // The oldest is a Swedbank Pay order; its store's section comes after Klarna's in the file.
            let orderToken = try await SwedbankPayTestOrder.create(try server.client(), namespace: Self.namespace)
            let (_, orderID) = try #require(sandbox.swedbankPayOrders.lookup(token: orderToken))
            clock.advance(by: 1)
            let klarna = KlarnaClient(server, namespace: Self.namespace, password: "secret")
            var sessions: [String] = []
            for _ in 0..<2 {
                sessions.append(try await klarna.newSession())
                clock.advance(by: 1)
            }
            try #require(try await Self.send(server, "POST", "/__sandbox/snapshot").status == 200)

            var configuration = SandboxConfiguration(port: 0)
            configuration.stateFile = file
            configuration.clock = clock
            configuration.maxObjects = 2
            let restarted = PaymentSandbox(configuration: configuration)
            try restarted.loadStateFile()
            let after = RunningServer(port: 0, inProcess: restarted)
            let objects = try #require(try await Self.send(after, "GET", "/__sandbox/health").jsonObject()["objects"] as? [String: Any])
            #expect(objects["held"] as? Int == 2 && objects["max"] as? Int == 2 && objects["evicted"] as? Int == 1, "\(objects)")
            #expect(try await Self.send(after, "GET", "/psp/paymentorders/\(orderID)", bearer: true).status == 404)
            for id in sessions { #expect(try await Self.send(after, "GET", "/payments/v1/sessions/\(id)").status == 200) }
        }
    }

    @Test func snapshotWithoutAStateFile_Is409InTheControlAPIsFormat() async throws {
        let server = RunningServer(port: 0, inProcess: PaymentSandbox())
        let response = try await Self.send(server, "POST", "/__sandbox/snapshot")
        #expect(response.status == 409, "\(response)")
        let body = try response.jsonObject()
        #expect(body["error"] as? String == "Conflict" && body["status"] as? Int == 409)
        #expect(body["message"] as? String == "no state file is configured: start the sandbox with --state-file PATH (PAYMENT_SANDBOX_STATE_FILE)")
    }

    @Test func snapshot_NeedsTheControlToken() async throws {
        try await withStateDirectory { directory in
            var configuration = SandboxConfiguration(port: 0)
            configuration.stateFile = directory.appendingPathComponent("state.json")
            configuration.controlToken = "s3cret"
            let sandbox = PaymentSandbox(configuration: configuration)
            try sandbox.loadStateFile()
            let server = RunningServer(port: 0, inProcess: sandbox)
            #expect(try await Self.send(server, "POST", "/__sandbox/snapshot").status == 401)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("state.json").path))
            let allowed = try await Self.send(server, "POST", "/__sandbox/snapshot", headers: [("Sandbox-Control-Token", "s3cret")])
            #expect(allowed.status == 200, "\(allowed)")
            #expect(try allowed.jsonObject()["objects"] as? Int == 0)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("state.json").path))
        }
    }

    @Test(arguments: [
        ("not JSON", Data("{\"format\": \"payment-sandbox-state\", ".utf8), "cannot be read: not a JSON object"),
        ("not ours", Data(#"{"sessions": []}"#.utf8), "is not a payment-sandbox state file"),
        ("another version", Data(#"{"format": "payment-sandbox-state", "format_version": 2, "stores": {}}"#.utf8),
         "has format_version 2; this payment-sandbox"),
        ("a store this sandbox lacks", Data(#"{"format": "payment-sandbox-state", "format_version": 1, "clocks": {}, "scenarios": {"defaults": {}, "counters": []}, "ids": null, "stores": {"paypal_orders": {"sequence": 0, "namespaces": []}}}"#.utf8),
         "cannot be read: a section for \"paypal_orders\""),
    ])
    func unloadableFile_StopsTheStart_AndStaysAsItWas(label: String, contents: Data, reason: String) async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            try contents.write(to: file)
            var configuration = SandboxConfiguration(port: 0)
            configuration.stateFile = file
            let sandbox = PaymentSandbox(configuration: configuration)
            #expect(throws: StateFileError.self, "\(label)") { try sandbox.start() }
            do { try sandbox.start() } catch {
                #expect("\(error)".hasPrefix("state file \(file.path): \(reason)"), "\(label): \(error)")
            }
            await sandbox.stop()
            #expect(try Data(contentsOf: file) == contents, "\(label)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["state.json"])
        }
    }
}
