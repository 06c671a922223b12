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

    @Test func idempotentAnswer_KeepsA201AsItsIdAndOrigin_AndReplaysItByteForByte() throws {
        let origins = OrderManagementLedger.Origins()
        let created = HTTPResponse(status: .created, headers: HTTPHeaders([
            ("Capture-Id", "c-1"), ("Location", "https://a.example:8443/ordermanagement/v1/orders/o-1/captures/c-1")]))
        let capture = OrderManagementCreated(kind: .capture, id: "c-1", origin: "https://a.example:8443")
        let first = IdempotentAnswer(operation: .capture, key: "k", kept: .success(.created(capture)), origins: origins)
        guard case .success(.created(let kept)) = first.kept else { Issue.record("not kept compactly: \(first.kept)"); return }
        #expect(kept.origin == "https://a.example:8443")
        let replay = try first.replay().response(orderID: "o-1")
        #expect(replay.headers == created.headers && replay.status == .created)
        // A second answer at the same origin reuses its string; one an earlier version kept as a response is kept as it was.
        let refund = OrderManagementCreated(kind: .refund, id: "r-1", origin: "https://a.example:8443")
        _ = IdempotentAnswer(operation: .refund, key: "k", kept: .success(.created(refund)), origins: origins)
        #expect(origins.strings == ["https://a.example:8443"])
        let odd = HTTPResponse(status: .created, headers: HTTPHeaders([("Capture-Id", "c-2"), ("Location", "/elsewhere/c-2")]))
        let earlier = IdempotentAnswer(operation: .capture, key: "k2", kept: .success(.earlier(odd)), origins: origins)
        guard case .success(.earlier) = earlier.kept else { Issue.record("kept compactly: \(earlier.kept)"); return }
        #expect(try earlier.replay().response(orderID: "o-1").headers == odd.headers)
    }
}
