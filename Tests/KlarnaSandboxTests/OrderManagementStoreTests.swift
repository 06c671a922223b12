// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox

/// The Order Management store on an injected clock and id generator, without sockets.
@Suite struct OrderManagementStoreTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))  // 2027-01-15T08:00:00Z
    let namespace = Namespace("om-store-tests")
    let store: KlarnaOrderManagementStore

    init() {
        store = KlarnaOrderManagementStore(registry: NamespaceRegistry(clock: clock), ids: SequentialIDGenerator())
    }

    static let cart = #"""
        {"purchase_country":"GB","purchase_currency":"GBP","locale":"en-GB","order_amount":62400,"order_tax_amount":10400,
         "order_lines":[{"type":"physical","name":"Battery Power Pack","quantity":1,"unit_price":59500,"tax_rate":2000,
                         "total_amount":59500,"total_tax_amount":9917},
                        {"type":"shipping_fee","name":"Shipping","quantity":1,"unit_price":2900,"tax_rate":2000,
                         "total_amount":2900,"total_tax_amount":483}]}
        """#

    func place(_ id: String = "order-1", captured: Bool = false) throws {
        let request = try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: Data(Self.cart.utf8))
        store.place(namespace, orderID: id, request: request, fraudStatus: "ACCEPTED", scenario: nil, captured: captured)
    }

    /// A write's answer as the routes render it, its `Location` made by `location`; an error with the store's ids.
    func answer(_ write: () throws(KlarnaError) -> OrderManagementWriteResult, location: (String) -> String = { $0 }) throws -> HTTPResponse {
        do {
            let result = try write()
            guard case .created(let created) = result else { return result.response(orderID: "") }
            return HTTPResponse(status: .created, headers: [created.kind.idHeader: created.id, "Location": location(created.id)])
        } catch {
            return error.response(for: try HTTPRequest(method: .post, target: "/ordermanagement/v1/orders"), ids: store.ids)
        }
    }

    func capture(_ amount: Int, order: String = "order-1", key: String? = nil) throws -> HTTPResponse {
        try answer({ () throws(KlarnaError) in
            try store.capture(namespace, orderID: order, .success(KlarnaCaptureRequest(capturedAmount: amount)), idempotencyKey: key, origin: "")
        }, location: { "/c/\($0)" })
    }

    func refund(_ amount: Int, order: String = "order-1") throws -> HTTPResponse {
        try answer({ () throws(KlarnaError) in
            try store.refund(namespace, orderID: order, .success(KlarnaRefundRequest(refundedAmount: amount)), idempotencyKey: nil, origin: "")
        }, location: { "/r/\($0)" })
    }

    func change(_ operation: OrderManagementWrite, order: String = "order-1") throws -> HTTPResponse {
        try answer { () throws(KlarnaError) in
            switch operation {
            case .cancel: try store.cancel(namespace, orderID: order, idempotencyKey: nil)
            case .acknowledge: try store.acknowledge(namespace, orderID: order, idempotencyKey: nil)
            case .release: try store.release(namespace, orderID: order, idempotencyKey: nil)
            default: try store.extend(namespace, orderID: order, idempotencyKey: nil)
            }
        }
    }

    @Test func place_IsAuthorized_WithExpiryAfter28Days() throws {
        try place()
        let order = try store.readOrder(namespace, "order-1")
        #expect(order.status == "AUTHORIZED" && order.remainingAuthorizedAmount == 62400)
        #expect(order.expiresAt == clock.now() + 28 * 86_400)
        #expect(order.klarnaReference == OrderManagementLedger.Order.shortReference("order-1"))
    }

    @Test func capture_Headers_AndStatusTransitions() throws {
        try place()
        let first = try capture(40000)
        #expect(first.status == .created && first.body.isEmpty)
        #expect(first.headers["Capture-Id"] == "00000000-0000-4000-8000-000000000001")
        #expect(first.headers["Location"] == "/c/00000000-0000-4000-8000-000000000001")
        #expect(try store.readOrder(namespace, "order-1").status == "PART_CAPTURED")
        #expect(try capture(22401).status == .forbidden)
        #expect(try capture(22400).status == .created)
        #expect(try store.readOrder(namespace, "order-1").status == "CAPTURED")
    }

    @Test func refund_IsSpreadOverCapturesOldestFirst() throws {
        try place()
        _ = try capture(10000)
        _ = try capture(20000)
        #expect(try refund(15000).status == .created)
        #expect(try store.captures(namespace, "order-1").map(\.refundedAmount) == [10000, 5000])
        #expect(try refund(15001).status == .forbidden)
        #expect(try refund(15000).status == .created)
        #expect(try store.readOrder(namespace, "order-1").refundedAmount == 30000)
    }

    @Test func extend_RefusedMoreThan180DaysAfterThePurchase() throws {
        try place()
        for _ in 0..<7 {  // 7 × 27 days = 189 days, extending each time before the order expires
            clock.advance(by: 27 * 86_400)
            let answer = try change(.extend)
            if clock.now().timeIntervalSince1970 - 1_800_000_000 <= 180 * 86_400 {
                #expect(answer.status == .noContent)
            } else {
                #expect(answer.status == .forbidden)
            }
        }
    }

    @Test func sweep_DropsOrders48HoursPastExpiry() throws {
        try place("old")
        clock.advance(by: 28 * 86_400 + 48 * 3600 - 1)
        try place("young")
        #expect(try store.readOrder(namespace, "old").status == "EXPIRED")
        clock.advance(by: 61)
        try place("newest")
        #expect(throws: KlarnaError.noSuchOrder("old")) { _ = try store.readOrder(namespace, "old") }
        #expect(try store.readOrder(namespace, "young").status == "AUTHORIZED")
    }

    @Test func idempotencyKey_IsPerOrderAndOperation() throws {
        try place("a")
        try place("b")
        let first = try capture(100, order: "a", key: "k")
        let sameOrder = try capture(200, order: "a", key: "k")
        let otherOrder = try capture(300, order: "b", key: "k")
        #expect(first.headers["Capture-Id"] == sameOrder.headers["Capture-Id"])
        #expect(first.headers["Capture-Id"] != otherOrder.headers["Capture-Id"])
        #expect(try store.readOrder(namespace, "a").capturedAmount == 100)
        #expect(try store.readOrder(namespace, "b").capturedAmount == 300)
    }

    @Test func orderJSON_NeverHasNull_AndOmitsAbsentFields() throws {
        try place(captured: true)
        let text = String(decoding: try store.readOrder(namespace, "order-1").json.bytes, as: UTF8.self)
        #expect(!text.contains("null"))
        #expect(!text.contains("billing_address") && !text.contains("customer") && !text.contains("merchant_data"))
        #expect(text.contains(#""status":"CAPTURED""#) && text.contains(#""created_at":"2027-01-15T08:00:00.000Z""#))
    }

    func updateAuthorization(_ amount: Int, order: String = "order-1", key: String? = nil) throws -> HTTPResponse {
        try answer { () throws(KlarnaError) in
            try store.updateAuthorization(namespace, orderID: order, .success(KlarnaUpdateAuthorizationRequest(orderAmount: amount)),
                                          idempotencyKey: key)
        }
    }

    @Test func updateAuthorization_GrantsUpToTheFactor_AndAnsweredOncePerKey() throws {
        try place()
        #expect(KlarnaOrderManagementConfiguration().grantableOrderAmount(original: 62400) == 93600)
        #expect(try updateAuthorization(93601).status == .forbidden)
        #expect(try updateAuthorization(70000, key: "k").status == .noContent)
        // The same key answers the first answer and changes nothing, whatever the body (§5).
        #expect(try updateAuthorization(80000, key: "k").status == .noContent)
        let order = try store.readOrder(namespace, "order-1")
        #expect(order.orderAmount == 70000 && order.originalOrderAmount == 62400 && order.remainingAuthorizedAmount == 70000)
        #expect(order.placed.orderLines == nil)
    }

    @Test func omOrderLine_SubscriptionNeedsAllThreeMembers() throws {
        func line(_ subscription: String) throws -> KlarnaOrderLine {
            try KlarnaJSON.decode(OrderManagementOrderLine.self, from: Data("""
                {"name": "Batteries", "quantity": 1, "unit_price": 100, "total_amount": 100, "subscription": \(subscription)}
                """.utf8)).line
        }
        #expect(throws: KlarnaError.badValue("subscription.interval_count")) { try line(#"{"name": "M", "interval": "MONTH"}"#) }
        #expect(throws: KlarnaError.badValue("subscription.interval")) { try line(#"{"name": "M", "interval_count": 1}"#) }
        #expect(throws: KlarnaError.badValue("subscription.interval_count")) {
            try line(#"{"name": "M", "interval": "MONTH", "interval_count": 0}"#)
        }
        #expect(try line(#"{"name": "M", "interval": "WEEK", "interval_count": 2}"#).subscription?.intervalCount == 2)
    }

    @Test func addressMerge_KeepsWhatTheUpdateLeavesOut() {
        var address = KlarnaAddress()
        address.givenName = "Test"
        address.email = "old@example.com"
        var update = KlarnaAddress()
        update.email = "new@example.com"
        let merged = address.merging(update)
        #expect(merged.givenName == "Test" && merged.email == "new@example.com")
    }
}

