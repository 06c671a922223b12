// SPDX-License-Identifier: MIT
// SandboxControl.verify, verifyCallbacks and waitForRequest, typed, in both modes.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import Testing

private let verifyAuth = (user: "PK12345_0123456789ab", password: "secret")
private let verifyCart = """
    {"purchase_country":"SE","purchase_currency":"SEK","locale":"sv-SE","order_amount":10000,"order_tax_amount":0,
     "order_lines":[{"name":"Socks","quantity":2,"unit_price":5000,"total_amount":10000}]}
    """

@Test(arguments: SandboxMode.allCases)
func verifyExplainsAMissTyped(mode: SandboxMode) async throws {
    try await SandboxTest.run(mode, namespace: "verify-typed-\(mode)") { client in
        #expect(try await client.send(.post, "/payments/v1/sessions", json: verifyCart, basicAuth: verifyAuth).status == .ok)
        let sessions = SandboxRequestPattern(method: .post, path: "/payments/v1/sessions")
        let held = try await client.control.verify(sessions, count: .exactly(1))
        #expect(held.held && held.count == 1 && held.matches.first?.path == "/payments/v1/sessions")
        #expect(held.expected.atLeast == 1 && held.expected.atMost == 1)

        var one = sessions
        one.body = [.equals("order_lines[0].quantity", 1)]
        let miss = try await client.control.verify(one)
        #expect(!miss.held)
        #expect(miss.nearMisses.first?.summary == "method and path matched, body field `order_lines[0].quantity` was 2, wanted 1")
        #expect(miss.nearMisses.first?.entry.path == "/payments/v1/sessions")

        var two = sessions
        two.body = [.equals("order_lines[0].quantity", 2)]
        let entry = try await client.control.waitForRequest(two, timeout: .seconds(5))
        #expect(entry.path == "/payments/v1/sessions")
        let timedOut = await #expect(throws: SandboxControlError.self) {
            try await client.control.waitForRequest(SandboxRequestPattern(path: "/never"), timeout: .milliseconds(100))
        }
        #expect(timedOut?.status == 408)

        let callbacks = try await client.control.verifyCallbacks(SandboxCallbackPattern(object: "none"), count: .exactly(0))
        #expect(callbacks.held && callbacks.matches.isEmpty)
    }
}
