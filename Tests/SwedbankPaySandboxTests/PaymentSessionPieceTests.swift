// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SwedbankPaySandbox

/// The small pieces of the payment-session API; the flows are tested end to end in SwedbankPaySessionFlowTests.
@Suite struct PaymentSessionPieceTests {
    @Test func walletAmount_IsMajorUnitsWithTwoDecimals() {
        #expect(PaymentSessionDocument.decimal(1500) == "15.00")
        #expect(PaymentSessionDocument.decimal(5) == "0.05")
        #expect(PaymentSessionDocument.decimal(900361) == "9003.61")
        #expect(PaymentSessionDocument.region("sv-SE") == "SE")
    }

    @Test func base64URL_RoundTripsWithoutPadding() throws {
        let text = Base64URL.encode(.object([("messageType", .string("CRes")), ("transStatus", .string("Y"))]))
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        let decoded = try #require(Base64URL.decodeJSON(text))
        #expect(decoded["transStatus"]?.stringValue == "Y")
        #expect(Base64URL.decodeJSON("not base64!") == nil)
    }

    @Test func outcomes_MapToTheSpecsProblems() throws {
        let declined = try #require(SwedbankPayPaymentSessionStore.attemptFailure(.swishDeclined))
        #expect(declined.problem.type == "https://api.payex.com/psp/errordetail/swishdeclined")
        #expect(declined.problem.title == "Swish Declined" && declined.problem.detail == "Transaction declined.")
        #expect(declined.originalDetail == "RF07" && declined.problem.status == .forbidden)
        let bankID = try #require(SwedbankPayPaymentSessionStore.attemptFailure(.bankidCancelled))
        #expect(bankID.problem.status == .conflict && bankID.status == .aborted)
        let custom = try #require(SwedbankPayPaymentSessionStore.attemptFailure(
            .failAttempt(SwedbankPayAttemptFailure(problemType: "creditcard/acquirergatewayerror", status: 502, originalDetail: "ACQUIRER_HOST_OFFLINE"))))
        #expect(custom.problem.status.code == 502 && custom.problem.title == "Operation failed")
        #expect(SwedbankPayPaymentSessionStore.attemptFailure(.approve) == nil)
    }

    @Test func savedCards_HaveGsonAndIOSSafeExpiryDates() {
        for card in SavedCard.seed(SequentialIDGenerator()) {
            #expect(card.expiryDate.range(of: #"^\d{4}-\d{2}-01T00:00:00Z$"#, options: .regularExpression) != nil)
            #expect(card.maskedPan.count == card.pan.count && card.maskedPan.hasSuffix(String(card.pan.suffix(4))))
        }
    }

    @Test func formFields_DecodePlusAndPercent() {
        #expect(FormFields.parse(Data("cres=a%2Bb&x=1+2&empty".utf8)) == ["cres": "a+b", "x": "1 2", "empty": ""])
    }
}
