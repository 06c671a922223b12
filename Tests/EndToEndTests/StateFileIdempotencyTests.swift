// SPDX-License-Identifier: MIT
// Order Management's idempotent answers in the state file: the forms earlier versions wrote (a 201 kept as its id and
// origin, any other answer as the HTTP response itself) load and replay the same bytes, and so do the answers this
// version keeps (the result, or the error with its correlation id), after a restart too.
import Foundation
@testable import PaymentSandbox
import SandboxHTTP
import Testing

@Suite("State file: Order Management's idempotent answers")
struct StateFileIdempotencyTests {
    typealias Fixture = StateFileCompatibilityTests

    /// The error a capture with key "too-much" answered, as an earlier version kept it (JSONEncoder's HTTPResponse).
    static let keptError = #"{"code":403,"reasonPhrase":"Forbidden"}"#
    static let keptErrorBody = #"{"error_code":"CAPTURE_NOT_ALLOWED","error_messages":["Capture not allowed"],"#
        + #""correlation_id":"00000000-0000-4000-9000-000000000007"}"#
    /// A refund's 201 as versions before answers kept their ids kept it: the response, its Location at another origin.
    static let keptRefundLocation = "http://127.0.0.1:35489/ordermanagement/v1/orders/\(Fixture.order)/refunds/r-old"

    /// The 0.1.0 fixture, its order's answers (the capture's `created`) and three kept as `response`: the capture's
    /// error, an acknowledge's 204 and a refund's 201.
    static var written: String {
        let answers = #"{"created":{"id_header":"Capture-Id","id":"62efdf9f-6ac8-4302-968e-95ac19b2ab7f","origin":"http:\/\/127.0.0.1:35489"},"key":"capture-1","operation":"capture"}"#
        let error = #"{"response":{"status":\#(keptError),"headers":{"fields":[{"name":"Content-Type","value":"application\/json"}]},"#
            + #""body":"\#(Data(keptErrorBody.utf8).base64EncodedString().replacingOccurrences(of: "/", with: #"\/"#))"},"#
            + #""key":"too-much","operation":"capture"}"#
        let changed = #"{"response":{"status":{"code":204,"reasonPhrase":"No Content"},"headers":{"fields":[]},"body":""},"#
            + #""key":"ack-1","operation":"acknowledge"}"#
        let refund = #"{"response":{"status":{"code":201,"reasonPhrase":"Created"},"headers":{"fields":[{"name":"Refund-Id","value":"r-old"},"#
            + #"{"name":"Location","value":"\#(keptRefundLocation.replacingOccurrences(of: "/", with: #"\/"#))"}]},"body":""},"#
            + #""key":"refund-1","operation":"refund"}"#
        let text = Fixture.written.replacingOccurrences(of: #""answers":[\#(answers)]"#,
                                                        with: #""answers":[\#(answers),\#(error),\#(changed),\#(refund)]"#)
        precondition(text != Fixture.written, "the fixture's answers moved")
        return text
    }

    static func capture(_ server: RunningServer, key: String, amount: Int = 1) async throws -> RawResponse {
        try await Fixture.send(server, "POST", "/ordermanagement/v1/orders/\(Fixture.order)/captures",
                               body: #"{"captured_amount": \#(amount)}"#, headers: [("Klarna-Idempotency-Key", key)])
    }

    /// The answers every kept key replays, as received (status, Content-Type, the id headers, Location, body).
    static func replays(_ server: RunningServer) async throws -> [String] {
        let keyed = [("captures", "capture-1"), ("captures", "too-much"), ("acknowledge", "ack-1"), ("refunds", "refund-1"),
                     ("captures", "new-error")]
        var answers: [String] = []
        for (path, key) in keyed {
            let body = path == "acknowledge" ? nil : (path == "captures" ? #"{"captured_amount": 99999}"# : #"{"refunded_amount": 1}"#)
            let answer = try await Fixture.send(server, "POST", "/ordermanagement/v1/orders/\(Fixture.order)/\(path)", body: body,
                                                headers: [("Klarna-Idempotency-Key", key)])
            let fields = ["Content-Type", "Capture-Id", "Refund-Id", "Location"].map { "\($0)=\(answer.header($0) ?? "-")" }
            answers.append("\(answer.status) \(fields.joined(separator: " ")) \(answer.bodyText)")
        }
        return answers
    }

    @Test func keptResponsesAndCreated_LoadAndReplayTheSameBytes_AndSoAfterAWriteAndARestart() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            try Data(Self.written.utf8).write(to: file)
            let clock = ManualClock(Fixture.writtenAt)
            let (_, server) = try StateFileTests.sandbox(file, clock: clock)

            // A key this version answers first: an error, kept with its correlation id.
            let first = try await Self.capture(server, key: "new-error", amount: 99999)
            #expect(first.status == 403, "\(first)")

            let answers = try await Self.replays(server)
            #expect(answers[0] == "201 Content-Type=- Capture-Id=62efdf9f-6ac8-4302-968e-95ac19b2ab7f Refund-Id=- "
                + "Location=http://127.0.0.1:35489/ordermanagement/v1/orders/\(Fixture.order)/captures/62efdf9f-6ac8-4302-968e-95ac19b2ab7f ",
                "the capture's 201 names the origin its first request reached")
            #expect(answers[1] == "403 Content-Type=application/json Capture-Id=- Refund-Id=- Location=- \(Self.keptErrorBody)",
                    "the kept error, byte for byte")
            #expect(answers[2] == "204 Content-Type=- Capture-Id=- Refund-Id=- Location=- ")
            #expect(answers[3] == "201 Content-Type=- Capture-Id=- Refund-Id=r-old Location=\(Self.keptRefundLocation) ")
            #expect(answers[4] == "403 Content-Type=application/json Capture-Id=- Refund-Id=- Location=- \(first.bodyText)")
            // Nothing changed: the one capture of 1000, no refund.
            let order = try await Fixture.send(server, "GET", "/ordermanagement/v1/orders/\(Fixture.order)")
            #expect(try order.jsonObject()["captured_amount"] as? Int == 1000 && order.jsonObject()["refunded_amount"] as? Int == 0)

            // Written now (the change and the errors in this version's forms) and loaded again: the same answers.
            #expect(try await Fixture.send(server, "POST", "/__sandbox/snapshot").status == 200)
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""changed":true"#) && text.contains(#""correlation_id":"00000000-0000-4000-9000-000000000007""#))
            #expect(text.contains(#""id_header":"Capture-Id""#) && text.contains(#""response":"#))
            let (_, reloaded) = try StateFileTests.sandbox(file, clock: clock)
            #expect(try await Self.replays(reloaded) == answers)
        }
    }
}
