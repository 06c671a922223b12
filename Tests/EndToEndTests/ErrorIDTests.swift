// SPDX-License-Identifier: MIT
import Foundation
import PaymentSandbox
import SandboxTestSupport
import Testing

/// Error bodies take their ids from the injected `SandboxConfiguration.ids` (its `errorID()` stream): with a
/// `SequentialIDGenerator` they are predictable, whichever way the error is rendered (thrown before the scenario player, thrown inside it (Klarna's
/// unknown session), or a route error drawn by the path's renderer).
@Suite("Error ids from the injected generator")
struct ErrorIDTests {
    @Test("Klarna: each envelope's correlation_id is the generator's next id")
    func klarnaCorrelationIDs() async throws {
        try await withSandbox(deterministic) { server in
            let client = KlarnaClient(server, namespace: "error-ids")
            var anonymous = client
            anonymous.authorization = ""
            let answers = [
                try await anonymous.get("/payments/v1/sessions/unknown"),
                try await client.get("/payments/v1/sessions/unknown"),
                try await client.get("/payments/v1/no-such-route"),
            ]
            #expect(answers.map(\.status) == [401, 404, 404], "\(answers)")
            let ids = try answers.map { try #require(try $0.jsonObject()["correlation_id"] as? String, "\($0)") }
            #expect(ids == [errorID(1), errorID(2), errorID(3)])
            // Errors count on their own: the first object still gets the first id.
            let session = try await client.createSession()
            #expect(try session.jsonObject()["session_id"] as? String == sequentialID(1), "\(session)")
        }
    }

    @Test("Swedbank Pay: each problem's instance is made of the generator's next two ids")
    func swedbankPayProblemInstances() async throws {
        try await withSandbox(deterministic) { server in
            func get(_ path: String, authorized: Bool) async throws -> RawResponse {
                let headers = authorized ? [("Authorization", "Bearer error-ids")] : []
                return try await RawClient.exchange(port: server.port, klarnaRequest("GET", path, port: server.port, headers: headers))
            }
            let answers = [
                try await get("/psp/paymentorders/unknown", authorized: false),
                try await get("/psp/paymentorders/unknown", authorized: true),
                try await get("/psp/no-such-route", authorized: true),
            ]
            #expect(answers.map(\.status) == [401, 404, 404], "\(answers)")
            func instance(_ n: Int) -> String {
                let hex = { (id: String) in id.replacingOccurrences(of: "-", with: "") }
                return "https://api.payex.com/psp/probleminstance/00-\(hex(errorID(2 * n - 1)))-\(hex(errorID(2 * n)).prefix(16))-01"
            }
            let instances = try answers.map { try #require(try $0.jsonObject()["instance"] as? String, "\($0)") }
            #expect(instances == [instance(1), instance(2), instance(3)])
        }
    }
}

/// The n-th error id a `SequentialIDGenerator` hands out.
private func errorID(_ n: Int) -> String {
    let digits = String(n, radix: 16)
    return "00000000-0000-4000-9000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
}
