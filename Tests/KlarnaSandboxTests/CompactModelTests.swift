// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox

/// The compact Klarna models (PaymentsModels.swift): an address keeps only its set fields, an order line its seldom
/// members in a box; both compare as the plain fields they replace.
@Suite struct CompactModelTests {
    @Test func address_SetInAnyOrder_IsTheSameValue_AndNilRemovesAField() {
        var a = KlarnaAddress(), b = KlarnaAddress()
        a.postalCode = "W1S 3BE"; a.city = "London"; a.givenName = "Ann"
        b.givenName = "Ann"; b.city = "London"; b.postalCode = "W1S 3BE"
        #expect(a == b && a.city == "London" && a.country == nil)
        b.city = "Leeds"
        #expect(a != b && b.city == "Leeds")
        b.city = nil
        a.city = nil
        #expect(a == b && a.city == nil)
        a.postalCode = nil; a.givenName = nil
        #expect(a == KlarnaAddress())
        a.title = ""
        #expect(a != KlarnaAddress() && a.title == "", "an empty string is a value, not an absent field")
    }

    @Test func orderLine_SeldomMembers_ReadAndWriteLikeFields() {
        var line = KlarnaOrderLine()
        line.name = "Battery"
        let plain = line
        line.productUrl = "https://example.com/p"
        line.subscription = KlarnaSubscription(name: "Monthly", interval: "MONTH", intervalCount: 1)
        #expect(line.productUrl == "https://example.com/p" && line.subscription?.intervalCount == 1 && line.imageUrl == nil)
        #expect(line != plain)
        line.productUrl = nil
        line.subscription = nil
        #expect(line == plain, "without seldom members the line is the plain line again")
    }

    @Test func idempotentAnswer_KeepsA201AsItsIdAndOrigin_AndReplaysItByteForByte() {
        let origins = OrderManagementLedger.Origins()
        let created = HTTPResponse(status: .created, headers: HTTPHeaders([
            ("Capture-Id", "c-1"), ("Location", "https://a.example:8443/ordermanagement/v1/orders/o-1/captures/c-1")]))
        let first = IdempotentAnswer(operation: .capture, key: "k", response: created, orderID: "o-1", origins: origins)
        guard case .created(_, _, let origin) = first.kept else { Issue.record("not kept compactly: \(first.kept)"); return }
        #expect(origin == "https://a.example:8443")
        #expect(first.response(orderID: "o-1").headers == created.headers && first.response(orderID: "o-1").status == .created)
        // A second answer at the same origin reuses its string; one that cannot be made again is kept as it was.
        let refund = HTTPResponse(status: .created, headers: HTTPHeaders([
            ("Refund-Id", "r-1"), ("Location", "https://a.example:8443/ordermanagement/v1/orders/o-1/refunds/r-1")]))
        _ = IdempotentAnswer(operation: .refund, key: "k", response: refund, orderID: "o-1", origins: origins)
        #expect(origins.strings == ["https://a.example:8443"])
        let odd = HTTPResponse(status: .created, headers: HTTPHeaders([("Capture-Id", "c-2"), ("Location", "/elsewhere/c-2")]))
        let kept = IdempotentAnswer(operation: .capture, key: "k2", response: odd, orderID: "o-1", origins: origins)
        guard case .response = kept.kept else { Issue.record("kept compactly: \(kept.kept)"); return }
        #expect(kept.response(orderID: "o-1").headers == odd.headers)
    }
}
