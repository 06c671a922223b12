// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SwedbankPaySandbox

/// The create rules of Verify, Recur and UnscheduledPurchase and their token fields, in process (swedbankpay-api.md §1.2;
/// the developer portal's Verify page, its Recur page).
@Suite struct PaymentOrderTokenRuleTests {
    static func object(_ members: String) throws -> JSONNode {
        let document = try JSONDocument.parse(Data(#"{"paymentorder": {"currency": "SEK", "description": "d", "userAgent": "u", "language": "sv-SE", "payeeInfo": {"payeeId": "p", "payeeReference": "r"}, \#(members)}}"#.utf8))
        return try #require(document["paymentorder"])
    }

    static func request(_ members: String) throws -> SwedbankPayCreateOrderRequest {
        try SwedbankPayOrderValidation.createOrderRequest(try object(members), version: .v3_1, configuration: SwedbankPayConfiguration())
    }

    static func problems(_ members: String) throws -> [String] {
        do {
            _ = try request(members)
            return []
        } catch let problem as SwedbankPayProblem {
            return problem.problems.map(\.name)
        }
    }

    static let webURLs = #""urls": {"hostUrls": ["https://example.com"], "completeUrl": "https://example.com/done"}"#

    @Test func recurAndUnscheduled_NeedOnlyCallbackUrl_AndKeepWhatWasSent() throws {
        let recur = try Self.request(#""operation": "Recur", "recurrenceToken": "t1", "amount": 100, "vatAmount": 0, "urls": {"callbackUrl": "https://example.com/cb"}"#)
        #expect(recur.orderOperation == .recur && recur.useToken?.kind == .recurrence && recur.useToken?.token == "t1")
        #expect(recur.urls.hostUrls.isEmpty && recur.urls.completeUrl.isEmpty && recur.urls.callbackUrl == "https://example.com/cb")
        #expect(recur.json["urls"]?["hostUrls"] == nil, "the stored request is what was sent")
        let unscheduled = try Self.request(#""operation": "UnscheduledPurchase", "unscheduledToken": "t2", "amount": 100, "vatAmount": 0, \#(Self.webURLs)"#)
        #expect(unscheduled.urls.hostUrls == ["https://example.com"] && unscheduled.urls.completeUrl == "https://example.com/done")
        let empty = try Self.request(#""operation": "Recur", "recurrenceToken": "t1", "amount": 100, "vatAmount": 0, "urls": {"hostUrls": [], "completeUrl": ""}"#)
        #expect(empty.urls.hostUrls.isEmpty && empty.urls.completeUrl.isEmpty)
        // urls itself stays required, and so do the amounts.
        #expect(try Self.problems(#""operation": "Recur", "recurrenceToken": "t1", "amount": 100, "vatAmount": 0"#) == ["PaymentOrder.Urls"])
        #expect(try Self.problems(#""operation": "Recur", "recurrenceToken": "t1", "urls": {}"#) == ["PaymentOrder.Amount", "PaymentOrder.VatAmount"])
        // A purchase still needs the payer-facing URLs.
        #expect(try Self.problems(#""operation": "Purchase", "amount": 100, "vatAmount": 0, "urls": {"callbackUrl": "https://example.com/cb"}"#)
                == ["PaymentOrder.Urls.HostUrls", "PaymentOrder.Urls.CompleteUrl"])
    }

    @Test func tokenFields_BelongToTheirOperation() throws {
        #expect(try Self.problems(#""operation": "Recur", "amount": 100, "vatAmount": 0, "urls": {}"#) == ["PaymentOrder.RecurrenceToken"])
        #expect(try Self.problems(#""operation": "UnscheduledPurchase", "recurrenceToken": "t", "amount": 100, "vatAmount": 0, "urls": {}"#)
                == ["PaymentOrder.UnscheduledToken", "PaymentOrder.RecurrenceToken"])
        #expect(try Self.problems(#""operation": "Recur", "recurrenceToken": "t", "generateUnscheduledToken": true, "amount": 100, "vatAmount": 0, "urls": {}"#)
                == ["PaymentOrder.GenerateUnscheduledToken"])
        #expect(try Self.problems(#""operation": "Purchase", "generatePaymentToken": true, "amount": 100, "vatAmount": 0, \#(Self.webURLs)"#)
                == ["PaymentOrder.GeneratePaymentToken"], "one-click tokens need a payerReference")
        let purchase = try Self.request(#""operation": "Purchase", "generateRecurrenceToken": true, "generateUnscheduledToken": false, "paymentToken": "p1", "amount": 100, "vatAmount": 0, \#(Self.webURLs)"#)
        #expect(purchase.generateTokens == [.recurrence] && purchase.useToken?.kind == .payment)
        #expect(try Self.problems(#""operation": "Purchase", "generateRecurrenceToken": "yes", "amount": 100, "vatAmount": 0, \#(Self.webURLs)"#)
                == ["PaymentOrder.GenerateRecurrenceToken"])
    }

    @Test func verify_HasNoAmount_AndCardOnly() throws {
        let verify = try Self.request(#""operation": "Verify", \#(Self.webURLs)"#)
        #expect(verify.amount == 0 && verify.vatAmount == 0)
        #expect(SwedbankPayOrderLedger.availableInstruments(["CreditCard", "Swish", "Trustly"], verify) == ["CreditCard"])
        #expect(try Self.request(#""operation": "Verify", "amount": 0, "vatAmount": 0, \#(Self.webURLs)"#).amount == 0)
        #expect(try Self.problems(#""operation": "Verify", "amount": 100, \#(Self.webURLs)"#) == ["PaymentOrder.Amount"])
        #expect(try Self.problems(#""operation": "Payout", "amount": 100, "vatAmount": 0, \#(Self.webURLs)"#) == ["PaymentOrder.Operation"])
    }
}
