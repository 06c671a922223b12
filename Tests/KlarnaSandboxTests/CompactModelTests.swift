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
}
