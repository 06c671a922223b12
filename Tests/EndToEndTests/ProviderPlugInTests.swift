// SPDX-License-Identifier: MIT
// A new provider is its own folder plus one `ProviderPlugIn` in `PaymentSandbox.plugIns` (docs/ARCHITECTURE.md,
// "Where to add"): this test plugs a tiny provider in exactly that way, beside the real ones, and checks that the
// sandbox applies everything it declares and nothing else was needed.
import Foundation
import PaymentSandbox
import SandboxPlugIn
import Testing

/// A provider of one resource, `/tiny/things/{id}`, with one scenario operation and one browser address.
private final class TinyProvider: SandboxProvider {
    static let read = ScenarioOperation("tiny.things.read")
    static let scenarioVocabulary = ScenarioVocabulary(
        operations: [.init(read, "Tiny. Read a thing.")], outcomes: [])
    static let contentRuleScenarios: [String] = []

    let context: SandboxProviderContext
    let store = TinyStore()

    init(context: SandboxProviderContext) { self.context = context }

    var pathPrefixes: [SandboxPathPrefix] { [SandboxPathPrefix("/tiny/", errors: TinyErrorFormat())] }
    var states: [any NamespacedState] { [store] }
    var journaledSandboxPrefixes: [String] { ["/__sandbox/tiny/"] }
    var browserPrefixes: [String] { ["/__sandbox/tiny/pages/"] }

    func addRoutes(to router: inout Router) {
        let play = ScenarioPlayer(engine: context.scenarios, format: TinyErrorFormat())
        let store = self.store
        router.addImmediate("GET /tiny/things/:id") { request in
            let namespace = Namespace(for: request)
            let id = try request.parameters.require("id")
            return play(Self.read, request, namespace, object: id, sticky: nil) { _ in
                .json(Data(#"{"id":"\#(id)","reads":\#(store.read(namespace))}"#.utf8))
            }
        }
        router.addImmediate("POST /__sandbox/tiny/pages/:id/done") { _ in .json(Data(#"{"done":true}"#.utf8)) }
        // A stand-in of its own that no browser is sent to: closed under a control token like the control API.
        router.addImmediate("POST /__sandbox/tiny/things/:id/touch") { _ in .json(Data(#"{"touched":true}"#.utf8)) }
    }
}

/// Counts reads per namespace: cleared by a reset, shown in `/__sandbox/state`.
private final class TinyStore: NamespacedState {
    private let reads = Locked<[Namespace: Int]>([:])
    func read(_ namespace: Namespace) -> Int { reads.withLock { $0[namespace, default: 0] += 1; return $0[namespace]! } }

    var stateName: String { "tiny_things" }
    func reset(_ namespace: Namespace) async { reads.withLock { $0[namespace] = nil } }
    func snapshot(_ namespace: Namespace) async -> JSONText {
        .object([("reads", .int(reads.withLock { $0[namespace] ?? 0 }))])
    }
    func objects(_ namespace: Namespace) -> [SandboxObjectSummary] { [] }
    var namespacesWithState: [Namespace] { reads.withLock { Array($0.keys) } }
    func savedSection() throws -> SavedStoreSection? { nil }
    func restoreSection(from decoder: any Decoder) throws {}
}

/// Errors under `/tiny/` as `{"tiny_error": <status>}`.
private struct TinyErrorFormat: ProviderErrorFormat {
    func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse { self.error(status: error.status.code, for: request) }
    func unknownScenario(_ error: ScenarioEngine.UnknownScenario, for request: HTTPRequest) -> HTTPResponse {
        .json(Data(#"{"tiny_error":400}"#.utf8), status: .badRequest)
    }
    func error(status: Int, for request: HTTPRequest) -> HTTPResponse {
        .json(Data(#"{"tiny_error":\#(status)}"#.utf8), status: HTTPStatus(code: status))
    }
    func internalError(for request: HTTPRequest) -> HTTPResponse { error(status: 500, for: request) }
}

@Suite struct ProviderPlugInTests {
    /// The real providers plus the tiny one, as `PaymentSandbox.plugIns` would list it; a scenario of its operation.
    private static func sandbox(controlToken: String? = nil) throws -> (PaymentSandbox, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiny-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"""
        {"name": "tiny-unavailable", "description": "Tiny reads answer 503.",
         "rules": [{"operation": "tiny.things.read", "outcome": "http_error", "status": 503}]}
        """#.utf8).write(to: folder.appendingPathComponent("tiny-unavailable.json"))
        var configuration = SandboxConfiguration(port: 0)
        configuration.scenarioDirectories = [folder]
        configuration.controlToken = controlToken
        let plugIns = PaymentSandbox.plugIns + [ProviderPlugIn(TinyProvider.self) { _, context in TinyProvider(context: context) }]
        return (PaymentSandbox(configuration: configuration, plugIns: plugIns), folder)
    }

    private static func send(_ sandbox: PaymentSandbox, _ head: String, body: String = "") async throws -> RawResponse {
        let length = body.isEmpty ? "" : "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        return try await InProcessExchange.exchange(sandbox, "\(head)\r\nHost: 127.0.0.1\r\n\(length)\r\n\(body)",
                                                    toHEAD: false, timeout: .seconds(10))
    }

    @Test("its routes answer, its scenario operation plays, its error format answers under its prefix, its state resets")
    func declarationsApply() async throws {
        let (sandbox, folder) = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: folder) }

        let first = try await Self.send(sandbox, "GET /tiny/things/t1 HTTP/1.1\r\nSandbox-Namespace: tiny-a")
        #expect(first.status == 200)
        #expect(String(decoding: first.body, as: UTF8.self) == #"{"id":"t1","reads":1}"#)
        // An unknown path under its prefix answers in its format, not the control API's.
        let unknown = try await Self.send(sandbox, "GET /tiny/nothing HTTP/1.1")
        #expect(unknown.status == 404)
        #expect(String(decoding: unknown.body, as: UTF8.self) == #"{"tiny_error":404}"#)
        // A scenario naming its operation loaded (the engine knew its vocabulary) and plays.
        let played = try await Self.send(sandbox, "GET /tiny/things/t1 HTTP/1.1\r\nSandbox-Namespace: tiny-a\r\nSandbox-Scenario: tiny-unavailable")
        #expect(played.status == 503)
        #expect(String(decoding: played.body, as: UTF8.self) == #"{"tiny_error":503}"#)
        // Its state shows in /__sandbox/state and goes with a reset.
        let state = try await Self.send(sandbox, "GET /__sandbox/state HTTP/1.1\r\nSandbox-Namespace: tiny-a")
        #expect(try state.jsonObject()["tiny_things"] as? [String: Int] == ["reads": 1])
        let reset = try await Self.send(sandbox, "POST /__sandbox/reset HTTP/1.1\r\nSandbox-Namespace: tiny-a")
        #expect(reset.status == 200)
        let after = try await Self.send(sandbox, "GET /tiny/things/t1 HTTP/1.1\r\nSandbox-Namespace: tiny-a")
        #expect(String(decoding: after.body, as: UTF8.self) == #"{"id":"t1","reads":1}"#)
    }

    @Test("its browser address stays open under a control token; its other /__sandbox/ paths and the control API do not")
    func browserPrefixesOpen() async throws {
        let (sandbox, folder) = try Self.sandbox(controlToken: "s3cret")
        defer { try? FileManager.default.removeItem(at: folder) }

        let page = try await Self.send(sandbox, "POST /__sandbox/tiny/pages/p1/done HTTP/1.1")
        #expect(page.status == 200)
        let other = try await Self.send(sandbox, "POST /__sandbox/tiny/things/t1/touch HTTP/1.1")
        #expect(other.status == 401)
        let touched = try await Self.send(sandbox, "POST /__sandbox/tiny/things/t1/touch HTTP/1.1\r\nSandbox-Control-Token: s3cret")
        #expect(touched.status == 200)
        let control = try await Self.send(sandbox, "GET /__sandbox/journal HTTP/1.1")
        #expect(control.status == 401)
        // The page's call is journaled (its prefix is the provider's own), read with the token.
        let journal = try await Self.send(sandbox, "GET /__sandbox/journal?path_prefix=/__sandbox/tiny/ HTTP/1.1\r\nSandbox-Control-Token: s3cret")
        let entries = try #require(try journal.jsonObject()["entries"] as? [[String: Any]])
        #expect(entries.compactMap { $0["path"] as? String }.contains("/__sandbox/tiny/pages/p1/done"))
    }
}
