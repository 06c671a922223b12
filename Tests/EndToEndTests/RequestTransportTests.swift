// SPDX-License-Identifier: MIT
// The two transports of RunningServer.exchange answer alike, so provider tests can run in-process with the
// assertions they had on sockets.
import Foundation
import PaymentSandbox
import SandboxHTTP
import SandboxTestSupport
import Testing

@Suite("Request transports: socket and in-process answer alike")
struct RequestTransportTests {
    static let dropScenario = ("e2e-transport-drop.json", scenarioFile("e2e-transport-drop", rules: [
        #"{"operation": "klarna.payments.create_order", "outcome": "drop_connection"}"#,
    ]))

    /// A deterministic sandbox (manual clock, sequential ids) with ``dropScenario``, over `transport`.
    static func withTransport<T>(_ transport: RequestTransport, _ body: (RunningServer) async throws -> T) async throws -> T {
        try await withScenarioDirectory { directory in
            try directory.write(dropScenario.0, dropScenario.1)
            return try await withScenarioSandbox(bundled: false, extra: [directory.url], transport: transport) { _, server in
                try await body(server)
            }
        }
    }

    /// The Klarna flow a provider test runs, and what each step answered: head lines but `Date` and `Content-Length`, and the body.
    static func flow(_ server: RunningServer) async throws -> [String] {
        let client = KlarnaClient(server, namespace: "transport-parity")
        var seen: [RawResponse] = []
        seen.append(try await client.createSession())
        seen.append(try await client.readSession(sequentialID(1)))
        seen.append(try await client.authorize(sequentialID(1)))
        seen.append(try await client.createOrder(sequentialID(2)))
        seen.append(try await client.get("/payments/v1/sessions/unknown"))
        seen.append(try await client.get("/__sandbox/clock"))
        return seen.map { response in
            expectWellFramed(response)
            // Content-Length follows the hrefs' port, which differs between the two; well-framed is checked above.
            let head = response.rawHead.components(separatedBy: "\r\n")
                .filter { !$0.lowercased().hasPrefix("date:") && !$0.lowercased().hasPrefix("content-length:") }
            return head.joined(separator: "\n") + response.bodyText
        }
    }

    @Test("the same requests get the same status lines, headers (but Date and Content-Length) and bodies over both transports, well framed")
    func sameAnswers() async throws {
        let overSocket = try await Self.withTransport(.socket) { try await Self.flow($0) }
        let inProcess = try await Self.withTransport(.inProcess) { try await Self.flow($0) }
        #expect(overSocket.count == 6)
        for (socket, local) in zip(overSocket, inProcess) {
            // Hrefs carry the port the request's Host names, which differs between the two.
            #expect(socket.replacingOccurrences(of: "127.0.0.1:\(socketPort(socket))", with: "127.0.0.1:PORT")
                    == local.replacingOccurrences(of: "127.0.0.1:\(inProcessPlaceholderPort)", with: "127.0.0.1:PORT"))
        }
    }

    @Test("drop_connection: exchange throws closedBeforeResponse with nothing received", arguments: [RequestTransport.socket, .inProcess])
    func droppedConnection(transport: RequestTransport) async throws {
        try await Self.withTransport(transport) { server in
            let client = KlarnaClient(server, namespace: "transport-drop")
            let (_, token) = try await client.authorizedSession()
            let request = klarnaRequest("POST", "/payments/v1/authorizations/\(token)/order", port: server.port,
                                        headers: client.headers([("Sandbox-Scenario", "e2e-transport-drop"), ("Content-Type", "application/json")]),
                                        body: KlarnaExamples.gbOrder)
            await #expect(throws: RawClientError.closedBeforeResponse(partial: "")) { try await server.exchange(request) }
        }
    }

    /// The port in the first `127.0.0.1:<port>` of `text`, or "" when there is none.
    private func socketPort(_ text: String) -> String {
        guard let range = text.range(of: "127.0.0.1:") else { return "" }
        return String(text[range.upperBound...].prefix { $0.isNumber })
    }
}
