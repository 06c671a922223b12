// SPDX-License-Identifier: MIT
// Protocol edges answered by the connection (a head over the limit is 431 before any route): on a socket.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

private func object(_ response: RawResponse) throws -> [String: Any] { try response.jsonObject() }

extension SwedbankPayPaymentOrderTests {
    @Test("Protocol edges under /psp/: GET on a transaction collection is 405 (Allow: POST); a non-JSON body is 400; a 431 is a problem; hrefs take a trusted proxy's (last) forwarded value")
    func protocolEdges_AreProblems() async throws {
        try await withSandboxInstance({ deterministic(&$0); $0.http.limits.maxHeadBytes = 2048; $0.trustedForwardedHeaders = .all }) { _, server in
            let client = SwedbankPayClient(server)
            let id = try await client.newOrder()
            let get = try await client.send("GET", "/psp/paymentorders/\(id)/captures")
            #expect(get.status == 405 && get.header("Allow") == "POST", "\(get)")
            #expect(try object(get)["type"] as? String == "https://api.payex.com/psp/errordetail/methodnotallowed")
            let patch = try await client.send("PATCH", "/psp/paymentorders/\(id)", body: #"{"paymentorder": {"operation": "Abort", "abortReason": "x"}}"#,
                                              contentType: "text/plain")
            let patchProblems = try object(patch)["problems"] as? [[String: Any]]
            #expect(patch.status == 400 && patchProblems?.first?["name"] as? String == "Content-Type", "\(patch)")
            let huge = try await client.send("GET", "/psp/paymentorders/\(id)", headers: [("X-Padding", String(repeating: "a", count: 4096))])
            #expect(huge.status == 431)
            #expect(try object(huge)["type"] as? String == "https://api.payex.com/psp/errordetail/inputerror", "\(huge.bodyText)")
            let forwarded = try await client.send("GET", "/psp/paymentorders/\(id)",
                                                  headers: [("X-Forwarded-Proto", "http, https"), ("X-Forwarded-Host", "client.example, pay.example:8443")])
            let hrefs = try #require(try object(forwarded)["operations"] as? [[String: Any]]).compactMap { $0["href"] as? String }
            #expect(!hrefs.isEmpty && hrefs.allSatisfy { $0.hasPrefix("https://pay.example:8443/") }, "\(hrefs)")
        }
    }
}
