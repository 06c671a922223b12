// SPDX-License-Identifier: MIT
// Helpers for the scenario end-to-end tests (reload, startup, journal, the CLI): the repository's scenarios/
// directory, sandboxes that load it (and scenario directories written by the test, SandboxTestSupport's),
// scenario-aware Klarna calls, the control API (default scenario, reload, journal) and running the CLI with a chosen
// working directory.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

// MARK: Where things are

enum ScenarioPaths {
    /// The package root: Tests/EndToEndTests/Support/KlarnaScenarioSupport.swift, four levels up.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL
    /// The bundled scenarios (always loaded by the CLI).
    static let bundled = packageRoot.appendingPathComponent("scenarios", isDirectory: true)

    /// The scenario files under `directory` as docs/scenarios.md describes them (every *.json, recursively, except
    /// scenario.schema.json and anything starting with '.'), counted independently of the sandbox's loader.
    static func countScenarioFiles(in directory: URL) -> Int {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey],
                                                              options: [.skipsHiddenFiles]) else { return 0 }
        var count = 0
        for case let url as URL in enumerator
        where url.pathExtension == "json" && url.lastPathComponent != "scenario.schema.json"
            && (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            count += 1
        }
        return count
    }
}

// MARK: Scenario files

/// A scenario file with `rules` (each a JSON object text), one rule per line from line 5.
func scenarioFile(_ name: String, _ description: String = "Written by an end-to-end test.", rules: [String]) -> String {
    """
    {
      "name": "\(name)",
      "description": "\(description)",
      "rules": [
        \(rules.joined(separator: ",\n    "))
      ]
    }

    """
}

/// 1-based line and column of the first occurrence of `needle` in `text` (columns count characters).
func position(of needle: String, in text: String) -> (line: Int, column: Int)? {
    for (index, line) in text.components(separatedBy: "\n").enumerated() {
        if let range = line.range(of: needle) {
            return (index + 1, line.distance(from: line.startIndex, to: range.lowerBound) + 1)
        }
    }
    return nil
}

// MARK: Sandboxes with scenarios

/// A sandbox that loads the repository's scenarios/ (unless `bundled` is false) and then `extra`, with a manual
/// clock and sequential ids, and no file watching unless `watch` is given.
func withScenarioSandbox<T>(
    bundled: Bool = true, extra: [URL] = [], watch: Duration? = nil, transport: RequestTransport = .socket,
    _ body: (PaymentSandbox, RunningServer) async throws -> T
) async throws -> T {
    try await withSandboxInstance(transport: transport, { configuration in
        deterministic(&configuration)
        configuration.includesBundledScenarios = false
        configuration.scenarioDirectories = (bundled ? [ScenarioPaths.bundled] : []) + extra
        configuration.scenarioWatchInterval = watch
    }, body)
}

// MARK: Scenario-aware Klarna calls and the control API

extension KlarnaClient {
    static func scenarioHeader(_ scenario: String?) -> [(String, String)] {
        scenario.map { [("Sandbox-Scenario", $0)] } ?? []
    }

    func createSession(_ body: String = KlarnaExamples.gbSession, scenario: String?) async throws -> RawResponse {
        try await send("POST", "/payments/v1/sessions", body: body, headers: Self.scenarioHeader(scenario))
    }

    /// The SDK stand-in's authorize(); `body` is e.g. `{"jsonData": {...}}`.
    func authorize(_ sessionID: String, _ body: String? = nil, scenario: String?) async throws -> RawResponse {
        try await send("POST", "/__sandbox/klarna/payments/sessions/\(sessionID)/authorize", body: body,
                       headers: Self.scenarioHeader(scenario))
    }

    func createOrder(_ token: String, _ body: String = KlarnaExamples.gbOrder, scenario: String?,
                     headers extra: [(String, String)] = []) async throws -> RawResponse {
        try await send("POST", "/payments/v1/authorizations/\(token)/order", body: body, headers: Self.scenarioHeader(scenario) + extra)
    }

    // Order Management (klarna-api.md §5), for the tests on sockets.

    func omOrder(_ orderID: String) async throws -> RawResponse { try await get("/ordermanagement/v1/orders/\(orderID)") }

    func omCapture(_ orderID: String, _ body: String, scenario: String? = nil) async throws -> RawResponse {
        try await send("POST", "/ordermanagement/v1/orders/\(orderID)/captures", body: body, headers: Self.scenarioHeader(scenario))
    }

    /// A KP session, authorization and order (ids 1, 2, 3 on a fresh deterministic sandbox); returns the order id.
    func placedOrder(_ body: String = KlarnaExamples.gbOrder, scenario: String? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let created = try await createSession(KlarnaExamples.gbSession, scenario: scenario)
        try #require(created.status == 200, "create session: \(created)", sourceLocation: sourceLocation)
        let session = try #require(try created.jsonObject()["session_id"] as? String, sourceLocation: sourceLocation)
        let token = try await newAuthorization(session, sourceLocation: sourceLocation)
        return try await newOrder(token, body, sourceLocation: sourceLocation)
    }

    /// Like ``send(_:_:body:headers:)`` but waiting up to `timeout` for the answer: for delayed answers, which
    /// a busy machine (parallel tests, ThreadSanitizer) may stretch well past the delay.
    func send(_ method: String, _ path: String, body: String? = nil, headers extra: [(String, String)] = [],
              timeout: Duration) async throws -> RawResponse {
        var all = headers(extra)
        if body != nil { all.append(("Content-Type", "application/json")) }
        return try await server.exchange(klarnaRequest(method, path, port: port, headers: all, body: body), timeout: timeout)
    }

    /// PUT /__sandbox/scenario {"name": ...} (nil sends null).
    func setDefaultScenario(_ name: String?) async throws -> RawResponse {
        try await send("PUT", "/__sandbox/scenario", body: name.map { #"{"name": "\#($0)"}"# } ?? #"{"name": null}"#)
    }

    /// GET /__sandbox/scenarios as an object (fails the test unless 200).
    func scenarioList(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let response = try await get("/__sandbox/scenarios")
        try #require(response.status == 200, "GET /__sandbox/scenarios: \(response)", sourceLocation: sourceLocation)
        return try response.jsonObject()
    }

    /// The names of the loaded scenarios, in the order GET /__sandbox/scenarios lists them.
    func scenarioNames(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let list = try await scenarioList(sourceLocation: sourceLocation)
        return (list["scenarios"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    func reloadScenarios() async throws -> RawResponse { try await post("/__sandbox/scenarios/reload") }

    /// GET /__sandbox/journal?query (fails the test unless 200); returns the entries.
    func journal(_ query: String = "", sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        let response = try await get("/__sandbox/journal" + (query.isEmpty ? "" : "?" + query))
        try #require(response.status == 200, "GET /__sandbox/journal?\(query): \(response)", sourceLocation: sourceLocation)
        return try #require(try response.jsonObject()["entries"] as? [[String: Any]], "\(response)", sourceLocation: sourceLocation)
    }

    /// "METHOD path status decision" per journal entry, oldest first, where the decision is the note up to
    /// the rule and step it names: "scenario=reject klarna.payments.authorize: reject". (The exact note,
    /// rule and step included, is checked by the journal tests.)
    func journalLines(_ query: String = "", sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        try await journal(query, sourceLocation: sourceLocation).map { journalLine($0, fullNote: false) }
    }
}

/// "METHOD path status note"; without `fullNote`, the note is cut before " (" (the rule, step and delay).
func journalLine(_ entry: [String: Any], fullNote: Bool = true) -> String {
    var note = entry["note"] as? String ?? "?"
    if !fullNote, let cut = note.range(of: " (") { note = String(note[..<cut.lowerBound]) }
    return "\(entry["method"] as? String ?? "?") \(entry["path"] as? String ?? "?") \(entry["status"] as? Int ?? -1) \(note)"
}

// MARK: The CLI

/// Runs the payment-sandbox executable in `workingDirectory` to completion (at most `timeout`), with the
/// PAYMENT_SANDBOX_* variables of this process removed and `environment` added.
func runCLI(_ arguments: [String], workingDirectory: URL, environment: [String: String] = [:],
            timeout: Duration = .seconds(30)) async throws -> (status: Int32?, stdout: String, stderr: String) {
    let binary = try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)")
    return try await ResourceGate.shared {
        try await ChildProcess.run(binary, arguments, environment: environment, workingDirectory: workingDirectory, timeout: timeout)
    }
}
