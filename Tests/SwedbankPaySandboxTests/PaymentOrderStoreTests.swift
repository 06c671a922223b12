// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SwedbankPaySandbox

/// The store's interface for the payment-session API and the router's Payment Order routes, in process.
@Suite struct PaymentOrderStoreTests {
    static let body = #"""
    {"paymentorder": {"operation": "Purchase", "currency": "SEK", "amount": 1500, "vatAmount": 375, "description": "Test Purchase",
      "userAgent": "Mozilla/5.0", "language": "sv-SE", "payer": {"payerReference": "AB1234", "msisdn": "+46787654321"},
      "urls": {"hostUrls": ["https://example.com"], "completeUrl": "https://example.com/c", "cancelUrl": "https://example.com/x"},
      "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "AB832"}}}
    """#

    struct Fixture {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let registry: NamespaceRegistry
        let store: SwedbankPayOrderStore
        let router: Router
        init() {
            registry = NamespaceRegistry(clock: clock)
            store = SwedbankPayOrderStore(registry: registry, ids: SequentialIDGenerator())
            var router = Router()
            let engine = ScenarioEngine(library: ScenarioLibrary(scenarios: []), directories: [])
            SwedbankPayPaymentOrderRoutes(store: store, scenarios: engine, journal: Journal(capacity: 10, registry: registry)).add(to: &router)
            self.router = router
        }

        func send(_ method: HTTPMethod, _ target: String, body: String? = nil, token: String = "t") async throws -> HTTPResponse {
            var headers: HTTPHeaders = ["Authorization": "Bearer \(token)", "Host": "sandbox.test"]
            if body != nil { headers.set(name: "Content-Type", value: "application/json;version=3.1") }
            let request = try HTTPRequest(method: method, target: target, headers: headers, body: Data((body ?? "").utf8))
            return try #require(await router.respond(to: request).response)
        }
    }

    @Test func create_ReturnsOK_AndTheTokenIndexFindsTheOrder() async throws {
        let fixture = Fixture()
        let response = try await fixture.send(.post, "/psp/paymentorders", body: Self.body)
        #expect(response.status == .ok)
        let id = "00000000-0000-4000-8000-000000000001"
        let token = "000000000000400080000000000000020000000000004000800000000000" + "0003"
        let found = try #require(fixture.store.lookup(token: token))
        #expect(found.namespace == Namespace("t") && found.orderID == id)
        let view = try #require(fixture.store.snapshot(Namespace("t"), orderID: id))
        #expect(view.payerReference == "AB1234" && view.urls.cancelUrl == "https://example.com/x" && view.version == .v3_1)
        #expect(view.availableInstruments.contains("Swish") && view.status == .initialized && view.language == "sv-SE")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains(#""href":"http://sandbox.test/psp/paymentsessions/\#(token)""#), "\(text)")
        #expect(text.contains(#""guestMode":false"#))
    }

    @Test func attempts_FailedThenPaid_ShowInFailedAttemptsAndPaid() async throws {
        let fixture = Fixture()
        _ = try await fixture.send(.post, "/psp/paymentorders", body: Self.body)
        let namespace = Namespace("t"), id = "00000000-0000-4000-8000-000000000001"
        let store = fixture.store
        let first = try store.beginAttempt(namespace, orderID: id, instrument: "Swish", prefill: false)
        #expect(first.number == 40_129_782_830)
        let declined = SwedbankPayProblem("swishdeclined", status: .forbidden, title: "Swish Declined", detail: "Transaction declined.",
                                          problems: [.init(name: "ExternalResponse", description: "RF07")])
        #expect(store.attemptFailed(namespace, orderID: id, first, status: .failed, problem: declined))
        #expect(!store.attemptFailed(namespace, orderID: id, first, status: .failed, problem: declined), "an attempt ends once")
        #expect(store.snapshot(namespace, orderID: id)?.status == .initialized)
        let second = try store.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: true)
        store.setIntegration(namespace, orderID: id, "App")
        #expect(store.attemptPaid(namespace, orderID: id, second, transactionType: .authorization, details: .object([])))
        let view = try #require(store.snapshot(namespace, orderID: id))
        #expect(view.status == .paid && view.paidInstrument == "CreditCard" && view.integration == "App")
        #expect(throws: SwedbankPayProblem.self) { try store.beginAttempt(namespace, orderID: id, instrument: "Swish", prefill: false) }
        #expect(throws: SwedbankPayProblem.self) { try store.abortByPayer(namespace, orderID: id) }

        let read = try await fixture.send(.get, "/psp/paymentorders/\(id)?$expand=failedAttempts,paid,history")
        let text = String(decoding: read.body, as: UTF8.self)
        #expect(text.contains(#""failedAttemptList":[{"created":"2027-01-15T08:00:00.0000000Z","instrument":"Swish","number":40129782830,"status":"Failed","problem":{"type":"https://api.payex.com/psp/errordetail/swishdeclined""#), "\(text)")
        #expect(text.contains(#""transactionType":"Authorization""#) && text.contains(#""name":"PaymentAttemptStarted","instrument":"CreditCard","number":"#))
    }

    @Test func abortByPayer_AndFailOrder_AreFinal() async throws {
        let fixture = Fixture()
        _ = try await fixture.send(.post, "/psp/paymentorders", body: Self.body)
        _ = try await fixture.send(.post, "/psp/paymentorders", body: Self.body)
        let namespace = Namespace("t"), store = fixture.store
        let a = "00000000-0000-4000-8000-000000000001", b = "00000000-0000-4000-8000-000000000004"
        try store.abortByPayer(namespace, orderID: a)
        let aborted = try await fixture.send(.get, "/psp/paymentorders/\(a)/aborted")
        #expect(String(decoding: aborted.body, as: UTF8.self).contains(#""abortReason":"Payment aborted by payer""#))
        #expect(store.failOrder(namespace, orderID: b, problem: .systemError))
        #expect(store.snapshot(namespace, orderID: b)?.status == .failed)
        #expect(!store.failOrder(namespace, orderID: b, problem: .systemError))
    }

    @Test func orders_AreDropped48HoursAfterTheirLastChange_AndReset() async throws {
        let fixture = Fixture()
        _ = try await fixture.send(.post, "/psp/paymentorders", body: Self.body)
        let token = try #require(fixture.store.lookup(token: "000000000000400080000000000000020000000000004000800000000000" + "0003"))
        fixture.clock.advance(by: 48 * 3600 + 61)
        _ = try await fixture.send(.post, "/psp/paymentorders", body: Self.body)
        #expect(fixture.store.snapshot(token.namespace, orderID: token.orderID) == nil)
        #expect(fixture.store.lookup(token: "000000000000400080000000000000020000000000004000800000000000" + "0003") == nil)
        fixture.store.reset(Namespace("t"))
        #expect(fixture.store.lookup(token: "000000000000400080000000000000050000000000004000800000000000" + "0006") == nil)
        #expect(fixture.store.snapshot(Namespace("t")) == .object([("payment_orders", .array([]))]))
    }

    @Test func timestamps_HaveSevenFractionDigits() {
        #expect(SwedbankPayTimestamp.string(Date(timeIntervalSince1970: 1_592_823_416.25)) == "2020-06-22T10:56:56.2500000Z")
    }

    @Test func versionParameter_IsReadTolerantly() {
        #expect(SwedbankPayOrderValidation.versionParameter("application/json;version=3.1") == "3.1")
        #expect(SwedbankPayOrderValidation.versionParameter("application/json; charset=utf-8; Version=3.0") == "3.0")
        #expect(SwedbankPayOrderValidation.versionParameter("application/json") == nil)
    }
}
