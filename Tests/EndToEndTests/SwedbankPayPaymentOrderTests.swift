// SPDX-License-Identifier: MIT
// The Swedbank Pay Payment Order API's callbacks to a merchant listening on 127.0.0.1 port 0 (swedbankpay-api.md
// §1.8): the v3.1 payload retried on the manual clock, the v3.0 payloads. Orders reach Paid through the store's
// attemptPaid (the session API's interface). Manual clock and sequential ids. The API's behaviour in-process:
// SwedbankPaySandboxTests (SwedbankPayPaymentOrderTests).
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

/// A Bearer-authenticated Swedbank Pay merchant client; the namespace is the token unless given.
struct SwedbankPayClient: Sendable {
    var server: RunningServer
    var port: Int { server.port }
    var token: String
    var namespace: String?
    /// Replaces the Authorization header when set ("" sends none).
    var authorization: String?

    init(_ server: RunningServer, token: String = "token-\(UUID().uuidString.prefix(8).lowercased())", namespace: String? = nil) {
        self.server = server
        self.token = token
        self.namespace = namespace
    }

    /// The merchant's credentials and namespace, as every request sends them.
    var credentials: [(String, String)] {
        var headers: [(String, String)] = []
        let auth = authorization ?? "Bearer \(token)"
        if !auth.isEmpty { headers.append(("Authorization", auth)) }
        if let namespace { headers.append(("Sandbox-Namespace", namespace)) }
        return headers
    }

    func send(_ method: String, _ path: String, body: String? = nil, contentType: String = "application/json;version=3.1",
              headers extra: [(String, String)] = []) async throws -> RawResponse {
        var headers = credentials
        if body != nil { headers.append(("Content-Type", contentType)) }
        return try await server.exchange(klarnaRequest(method, path, port: port, headers: headers + extra, body: body))
    }

    func create(_ body: String = SwedbankPayExamples.order(), contentType: String = "application/json;version=3.1",
                headers: [(String, String)] = []) async throws -> RawResponse {
        try await send("POST", "/psp/paymentorders", body: body, contentType: contentType, headers: headers)
    }

    /// Creates an order and returns its bare uuid.
    func newOrder(_ body: String = SwedbankPayExamples.order(), contentType: String = "application/json;version=3.1",
                  headers: [(String, String)] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await create(body, contentType: contentType, headers: headers)
        try #require(response.status == 200, "\(response)", sourceLocation: sourceLocation)
        let id = try #require((try response.jsonObject()["paymentOrder"] as? [String: Any])?["id"] as? String, sourceLocation: sourceLocation)
        return String(id.dropFirst("/psp/paymentorders/".count))
    }

    func journal(_ query: String) async throws -> [[String: Any]] {
        let response = try await send("GET", "/__sandbox/journal?" + query)
        return try #require(try response.jsonObject()["entries"] as? [[String: Any]], "\(response)")
    }

    /// The entries `query` selects once there are at least `count` (``waitForJournalEntries(_:headers:_:count:sourceLocation:)``).
    func waitForJournal(_ query: String, count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        _ = try await waitForJournalEntries(server, headers: credentials, query, count: count, sourceLocation: sourceLocation)
        return try await journal(query)
    }

    func advanceClock(seconds: Double) async throws {
        let response = try await send("POST", "/__sandbox/clock", body: #"{"advance_seconds": \#(seconds)}"#, contentType: "application/json")
        try #require(response.status == 200, "\(response)")
    }

    var namespaceName: String { namespace ?? token }
}

enum SwedbankPayExamples {
    /// The reference's v3.1 create example (swedbankpay-api.md §1.2), with `extra` members added to `paymentorder`
    /// and `urls` replaced when given.
    static func order(amount: Int = 1500, vatAmount: Int = 375, currency: String = "SEK", callbackUrl: String? = nil,
                      extra: String = "") -> String {
        let callback = callbackUrl.map { #", "callbackUrl": "\#($0)""# } ?? ""
        return """
        {"paymentorder": {"operation": "Purchase", "currency": "\(currency)", "amount": \(amount), "vatAmount": \(vatAmount),
          "description": "Test Purchase", "userAgent": "Mozilla/5.0", "language": "sv-SE",
          "urls": {"hostUrls": ["https://example.com", "https://example.net"], "paymentUrl": "https://example.com/perform-payment",
                   "completeUrl": "https://example.com/payment-completed", "cancelUrl": "https://example.com/payment-cancelled"\(callback)},
          "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "AB832", "payeeName": "Merchant1",
                        "orderReference": "or-123456"}\(extra)}}
        """
    }

    static func capture(amount: Int, vatAmount: Int, payeeReference: String) -> String {
        #"{"transaction": {"description": "Capturing the authorized payment", "amount": \#(amount), "vatAmount": \#(vatAmount), "payeeReference": "\#(payeeReference)", "receiptReference": "AB831"}}"#
    }
}

private func object(_ response: RawResponse) throws -> [String: Any] { try response.jsonObject() }
private func order(_ response: RawResponse) throws -> [String: Any] { try #require(try response.jsonObject()["paymentOrder"] as? [String: Any]) }
private func rels(_ response: RawResponse) throws -> [String] {
    try #require(try response.jsonObject()["operations"] as? [[String: Any]]).compactMap { $0["rel"] as? String }
}

@Suite("Swedbank Pay payment orders: callbacks, end to end")
struct SwedbankPayPaymentOrderTests {
    static let cardDetails = JSONText.object([("cardBrand", .string("Visa")), ("maskedPan", .string("492500******0004"))])

    @Test("Callbacks: v3.1 payload to callbackUrl; a failing listener is retried at 30 and 60 s on the sandbox clock; journaled")
    func callbacks_V31_RetriedOnSandboxClock() async throws {
        let listener = CallbackListener(failuresFirst: 2)
        try await withServer(listener.router) { _, hooks in
            try await withSandboxInstance(transport: .inProcess, { deterministic(&$0) }) { sandbox, server in
                let client = SwedbankPayClient(server)
                let namespace = Namespace(client.namespaceName)
                let marker = try await SwedbankPayCallbackMarker.start(sandbox, server)
                let target = "http://127.0.0.1:\(hooks.port)/hooks/swedbankpay"
                let id = try await client.newOrder(SwedbankPayExamples.order(callbackUrl: target))
                let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
                sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization, details: Self.cardDetails)
                var received = try await listener.wait(for: 1)
                _ = try await client.waitForJournal("method=CALLBACK", count: 1)
                try await client.advanceClock(seconds: 29)
                try await marker.fire()   // the callback timer has looked at this namespace's clock at 29 s
                #expect(listener.received.count == 1, "no retry before 30 s")
                try await client.advanceClock(seconds: 1)
                received = try await listener.wait(for: 2)
                _ = try await client.waitForJournal("method=CALLBACK", count: 2)
                try await client.advanceClock(seconds: 30)  // 60 s after the first call
                received = try await listener.wait(for: 3)
                #expect(received.allSatisfy { $0.contentType == "application/json" })
                let bodies = try received.map { try #require(try JSONSerialization.jsonObject(with: $0.body) as? [String: Any]) }
                let expected: [String: Any] = ["orderReference": "or-123456",
                                               "paymentOrder": ["id": "/psp/paymentorders/\(id)", "instrument": "CreditCard", "number": attempt.number]]
                #expect(bodies.allSatisfy { NSDictionary(dictionary: $0).isEqual(to: expected) }, "\(bodies)")
                let entries = try await client.waitForJournal("method=CALLBACK", count: 3)
                #expect(entries.map { $0["status"] as? Int } == [500, 500, 200])
                #expect(entries.allSatisfy { $0["path"] as? String == target })
                #expect((entries[0]["note"] as? String)?.hasSuffix("call 1/7: answered 500; retry 30 s after the first call (sandbox clock)") == true,
                        "\(entries)")
            }
        }
    }

    @Test("Callbacks: v3.0 payload with payment and transaction on capture")
    func callbacks_V30() async throws {
        let listener = CallbackListener(failuresFirst: 0)
        try await withServer(listener.router) { _, hooks in
            try await withSandboxInstance(transport: .inProcess, { deterministic(&$0) }) { sandbox, server in
                let client = SwedbankPayClient(server)
                let namespace = Namespace(client.namespaceName)
                let body = SwedbankPayExamples.order(callbackUrl: "http://127.0.0.1:\(hooks.port)/hooks/v30", extra: #", "productName": "Checkout3""#)
                let id = try await client.newOrder(body, contentType: "application/json")
                let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
                sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization, details: Self.cardDetails)
                _ = try await listener.wait(for: 1)
                _ = try await client.send("POST", "/psp/paymentorders/\(id)/captures",
                                          body: SwedbankPayExamples.capture(amount: 1500, vatAmount: 375, payeeReference: "C1"),
                                          contentType: "application/json")
                let received = try await listener.wait(for: 2)
                let callback = try #require(try JSONSerialization.jsonObject(with: received[1].body) as? [String: Any])
                #expect((callback["paymentOrder"] as? [String: String]) == ["id": "/psp/paymentorders/\(id)", "instrument": "CreditCard"])
                let payment = try #require(callback["payment"] as? [String: Any])
                #expect((payment["id"] as? String)?.hasPrefix("/psp/creditcard/payments/") == true && payment["number"] as? Int == attempt.number)
                let transaction = try #require(callback["transaction"] as? [String: Any])
                #expect((transaction["id"] as? String)?.contains("/captures/") == true && transaction["number"] is Int, "\(callback)")
            }
        }
    }

    @Test("Callbacks v3.0: the transaction of a Swish sale is the Sale in financialTransactions (same id and number)")
    func callbacks_V30_SaleIsTheStoredTransaction() async throws {
        let listener = CallbackListener(failuresFirst: 0)
        try await withServer(listener.router) { _, hooks in
            try await withSandboxInstance(transport: .inProcess, { deterministic(&$0) }) { sandbox, server in
                let client = SwedbankPayClient(server)
                let namespace = Namespace(client.namespaceName)
                let body = SwedbankPayExamples.order(callbackUrl: "http://127.0.0.1:\(hooks.port)/hooks/v30", extra: #", "productName": "Checkout3""#)
                let id = try await client.newOrder(body, contentType: "application/json")
                let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "Swish", prefill: false)
                sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .sale,
                                                      details: .object([("msisdn", .string("+46739000001"))]))
                let received = try await listener.wait(for: 1)
                let callback = try #require(try JSONSerialization.jsonObject(with: received[0].body) as? [String: Any])
                let transaction = try #require(callback["transaction"] as? [String: Any])
                let read = try await client.send("GET", "/psp/paymentorders/\(id)?$expand=financialtransactions")
                let list = try #require((order(read)["financialTransactions"] as? [String: Any])?["financialTransactionsList"] as? [[String: Any]])
                let sale = try #require(list.first { $0["type"] as? String == "Sale" })
                let saleID = try #require((sale["id"] as? String)?.split(separator: "/").last.map(String.init))
                #expect(transaction["number"] as? Int == sale["number"] as? Int, "\(callback) \(sale)")
                let transactionID = try #require(transaction["id"] as? String)
                #expect(transactionID.hasPrefix("/psp/swish/payments/") && transactionID.hasSuffix("/sales/\(saleID)"), "\(callback)")
            }
        }
    }

}
