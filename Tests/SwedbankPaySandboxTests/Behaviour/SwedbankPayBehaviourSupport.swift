// SPDX-License-Identifier: MIT
// Swedbank Pay behaviour tests on the testing product (PaymentSandboxTesting): a Bearer-authenticated merchant on a
// SandboxClient, the reference's example bodies, and an order paid by card with every kind of token.
// What the wire does (framing, keep-alive, limits) stays in EndToEndTests, on sockets.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

/// A Bearer-authenticated Swedbank Pay merchant; its namespace is its token.
struct SwedbankPayMerchant: Sendable {
    var client: SandboxClient
    var token: String
    /// Replaces the Authorization header when set ("" sends none).
    var authorization: String?

    init(_ client: SandboxClient, token: String = "token-\(UUID().uuidString.prefix(8).lowercased())") {
        self.client = client.namespace(token)
        self.token = token
    }

    var namespaceName: String { token }

    func send(_ method: SandboxClient.Method, _ path: String, body: String? = nil, contentType: String = "application/json;version=3.1",
              headers: [String: String] = [:]) async throws -> SandboxResponse {
        var all = headers
        let authorization = authorization ?? "Bearer \(token)"
        if !authorization.isEmpty { all["Authorization"] = authorization }
        if body != nil { all["Content-Type"] = contentType }
        return try await client.send(method, path, headers: all, body: body.map { Data($0.utf8) })
    }

    func create(_ body: String = SwedbankPayExamples.order(), contentType: String = "application/json;version=3.1",
                headers: [String: String] = [:]) async throws -> SandboxResponse {
        try await send(.post, "/psp/paymentorders", body: body, contentType: contentType, headers: headers)
    }

    /// Creates an order and returns its bare uuid.
    func newOrder(_ body: String = SwedbankPayExamples.order(), contentType: String = "application/json;version=3.1",
                  headers: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await create(body, contentType: contentType, headers: headers)
        try #require(response.status == .ok, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        return String(try response.decode(PaymentOrderDocument.self).paymentOrder.id.dropFirst("/psp/paymentorders/".count))
    }

    /// The namespace's journal entries of `method`, once there are at least `count` (callbacks are journaled when
    /// their answer comes). Nothing polls: each entry is one held wait (`waitForRequest`, `after` the last found). A
    /// wait that times out (408: nothing within 25 s, as when parallel tests keep the callback's task from running)
    /// is asked again, four times at most; then its 408, with the nearest misses, fails the test.
    func waitForJournal(method: SandboxClient.Method, count: Int) async throws -> [SandboxJournalEntry] {
        var after = 0, found = 0, timeouts = 0
        while found < count {
            do {
                after = try await client.control.waitForRequest(SandboxRequestPattern(method: method), after: after, timeout: .seconds(25)).sequence
                found += 1
            } catch let error as SandboxControlError where error.status == 408 && timeouts < 4 {
                timeouts += 1
            }
        }
        return try await client.control.journal(method: method)
    }
}

/// A sandbox of ``deterministicConfiguration(scenarioDirectories:)`` changed by `configure`, in-process.
func withOrderSandbox(_ configure: (inout SandboxConfiguration) -> Void = { _ in },
                      _ body: (PaymentSandbox, SandboxClient) async throws -> Void) async throws {
    var configuration = deterministicConfiguration()
    configure(&configuration)
    try await SandboxTest.run(.inProcess, configuration: configuration) { client, sandbox in try await body(sandbox, client) }
}

struct PaymentOrderDocument: Decodable {
    var paymentOrder: PaymentOrder
    struct PaymentOrder: Decodable { var id: String }
}

enum SwedbankPayExamples {
    /// The reference's v3.1 create example (swedbankpay-api.md §1.2), with `extra` members added to `paymentorder`
    /// and `callbackUrl` added to `urls` when given.
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

    /// A server-to-server order: `urls` with callbackUrl only, as the Recur page's request.
    static func merchantInitiated(_ operation: String, tokenField: String, token: String, amount: Int = 1000, payeeReference: String = "CD1234",
                                  callbackUrl: String = "https://example.com/payment-callback") -> String {
        """
        {"paymentorder": {"operation": "\(operation)", "\(tokenField)": "\(token)", "currency": "SEK", "amount": \(amount), "vatAmount": 0,
          "description": "Test Recurrence", "userAgent": "Mozilla/5.0", "language": "sv-SE",
          "urls": {"callbackUrl": "\(callbackUrl)"},
          "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "\(payeeReference)", "payeeName": "Merchant1"},
          "payer": {"payerReference": "AB1234"}}}
        """
    }

    static func capture(amount: Int, vatAmount: Int, payeeReference: String) -> String {
        #"{"transaction": {"description": "Capturing the authorized payment", "amount": \#(amount), "vatAmount": \#(vatAmount), "payeeReference": "\#(payeeReference)", "receiptReference": "AB831"}}"#
    }

    static let generateAll = #", "generatePaymentToken": true, "generateRecurrenceToken": true, "generateUnscheduledToken": true, "payer": {"payerReference": "AB1234"}"#

    static let cardDetails = JSONText.object([("cardBrand", .string("Visa")), ("maskedPan", .string("492500******0004"))])
}

private struct PaidDocument: Decodable {
    var paymentOrder: Order
    struct Order: Decodable { var paid: Paid }
    struct Paid: Decodable { var paymentTokenGenerated: Bool; var tokens: [Token] }
    struct Token: Decodable { var type: String; var token: String; var name: String; var expiryDate: String }
}

/// A Purchase paid by card that generated every kind of token; returns `type → token` from `$expand=paid`.
func paidWithTokens(_ sandbox: PaymentSandbox, _ merchant: SwedbankPayMerchant) async throws -> [String: String] {
    let id = try await merchant.newOrder(SwedbankPayExamples.order(extra: SwedbankPayExamples.generateAll))
    let namespace = Namespace(merchant.namespaceName)
    let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: true)
    #expect(sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization,
                                                   details: SwedbankPayExamples.cardDetails))
    let paid = try await merchant.send(.get, "/psp/paymentorders/\(id)?$expand=paid").decode(PaidDocument.self).paymentOrder.paid
    #expect(paid.paymentTokenGenerated)
    #expect(paid.tokens.map(\.type) == ["payment", "recurrence", "unscheduled"])
    #expect(paid.tokens.allSatisfy { $0.name == "492500******0004" && $0.expiryDate == "12/2033" })
    return Dictionary(uniqueKeysWithValues: paid.tokens.map { ($0.type, $0.token) })
}

/// What an expectation prints for an answer: its status and body.
extension SandboxResponse: CustomStringConvertible {
    public var description: String { "\(status) \(text)" }
}

/// A scenario file with `rules` (each a JSON object text).
func scenarioFile(_ name: String, rules: [String]) -> String {
    #"{"name": "\#(name)", "description": "Written by a behaviour test.", "rules": [\#(rules.joined(separator: ",\n"))]}"#
}

/// A sandbox with a manual clock from 2027-01-15T08:00:00Z and the bundled scenarios (`swedbankpay-testdata` among them,
/// a content-rule scenario); `extraScenarios` (file name → text) are loaded after them. The body gets the sandbox and an
/// in-process client of it.
func withSwedbankPaySandbox<T>(extraScenarios: [String: String] = [:], _ body: (PaymentSandbox, SandboxClient) async throws -> T)
async throws -> T {
    try await withScenarioDirectory { directory in
        for (name, text) in extraScenarios { try directory.write(name, text) }
        let configuration = manualClockConfiguration(scenarioDirectories: extraScenarios.isEmpty ? [] : [directory.url])
        return try await SandboxTest.run(.inProcess, configuration: configuration) { client, sandbox in try await body(sandbox, client) }
    }
}
