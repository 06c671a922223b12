// SPDX-License-Identifier: MIT
// The Payment Order API in-process (swedbankpay-api.md §1, §2): create v3.1 and v3.0, validation problems, 401,
// 404/405/bad JSON, GET with $expand, operations per state behind a proxy, PATCH abort, capture/cancel/reversal with
// remaining amounts, the capture-refused and http_error scenarios; Verify, Recur, UnscheduledPurchase and their tokens.
// Orders reach Paid through the store's attemptPaid (the session API's interface). Manual clock and sequential ids.
// Callbacks to a listening merchant and what the connection answers stay in EndToEndTests, on sockets.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

private func object(_ response: SandboxResponse) throws -> [String: Any] { try #require(response.jsonObject(), "\(response)") }
private func order(_ response: SandboxResponse) throws -> [String: Any] { try #require(try object(response)["paymentOrder"] as? [String: Any]) }
private func rels(_ response: SandboxResponse) throws -> [String] {
    try #require(try object(response)["operations"] as? [[String: Any]]).compactMap { $0["rel"] as? String }
}

@Suite("Swedbank Pay payment orders")
struct SwedbankPayPaymentOrderTests {
    @Test("Create v3.1: 200, the document with every node as {id}, Initialized operations on the public base, versioned Content-Type")
    func create_V31() async throws {
        try await withOrderSandbox({ $0.trustedForwardedHeaders = .all }) { _, client in
            let merchant = SwedbankPayMerchant(client)
            let response = try await merchant.create(headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "pay.example.test:8443",
                                                             "User-Agent": "swedbankpay-sdk-dotnet/3.0.1"])
            #expect(response.status == 200, "\(response)")
            #expect(response.header("Content-Type") == "application/json; charset=utf-8; version=3.1")
            #expect(response.header("api-supported-versions") == "3.1")
            let document = try order(response)
            let id = sequentialID(1)
            #expect(document["id"] as? String == "/psp/paymentorders/\(id)")
            #expect(document["status"] as? String == "Initialized")
            #expect(document["created"] as? String == "2027-01-15T08:00:00.0000000Z")
            #expect(document["initiatingSystemUserAgent"] as? String == "swedbankpay-sdk-dotnet/3.0.1")
            #expect(document["integration"] as? String == "HostedView" && document["guestMode"] as? Bool == true)
            #expect(document["availableInstruments"] as? [String] == ["CreditCard", "Swish", "ApplePay", "GooglePay", "Invoice-PayExFinancingSe", "Trustly"])
            #expect((document["paid"] as? [String: String]) == ["id": "/psp/paymentorders/\(id)/paid"])
            #expect((document["payer"] as? [String: String]) == ["id": "/psp/paymentorders/\(id)/payers"])
            #expect(document["remainingCaptureAmount"] == nil)
            #expect(try rels(response) == ["update-order", "abort", "abort-paymentattempt", "redirect-checkout", "view-checkout", "view-paymentsession"])
            let token = (sequentialID(2) + sequentialID(3)).replacingOccurrences(of: "-", with: "")
            let hrefs = try #require(try object(response)["operations"] as? [[String: Any]]).compactMap { $0["href"] as? String }
            #expect(hrefs == Array(repeating: "https://pay.example.test:8443/psp/paymentorders/\(id)", count: 3) + [
                "https://pay.example.test:8443/checkout/\(token)", "https://pay.example.test:8443/checkout/client/\(token)?culture=sv-SE",
                "https://pay.example.test:8443/psp/paymentsessions/\(token)"])
            #expect(token.count == 64)
        }
    }

    @Test("Create v3.0 through productName Checkout3; neither version nor productName is a 400 ProductName problem")
    func create_V30_AndNoVersion() async throws {
        try await withOrderSandbox { _, client in
            let merchant = SwedbankPayMerchant(client)
            let v30 = try await merchant.create(SwedbankPayExamples.order(extra: #", "productName": "Checkout3""#), contentType: "application/json")
            #expect(v30.status == 200 && v30.header("Content-Type") == "application/json; charset=utf-8; version=3.0", "\(v30)")
            let header30 = try await merchant.create(contentType: "application/json; charset=utf-8; version=3.0")
            #expect(header30.header("Content-Type") == "application/json; charset=utf-8; version=3.0", "\(header30)")
            let none = try await merchant.create(contentType: "application/json")
            #expect(none.status == 400)
            let problems = try #require(try object(none)["problems"] as? [[String: String]])
            #expect(problems.first?["name"] == "ProductName")
        }
    }

    @Test("Validation: one problem per violation, RFC 7807 shape; the consent checkbox example verbatim; bad JSON; language falls back")
    func create_ValidationProblems() async throws {
        try await withOrderSandbox { _, client in
            let merchant = SwedbankPayMerchant(client)
            let bad = try await merchant.create(#"{"paymentorder": {"operation": "Purchase", "currency": "SEK", "amount": "1500", "vatAmount": 375, "description": "x", "userAgent": "u", "language": "xx-XX", "urls": {"hostUrls": ["https://example.com"]}, "payeeInfo": {"payeeId": "p"}}}"#)
            #expect(bad.status == 400)
            #expect(bad.header("Content-Type")?.hasPrefix("application/json") == true)
            let body = try object(bad)
            #expect(body["type"] as? String == "https://api.payex.com/psp/errordetail/paymentorders/inputerror")
            #expect(body["title"] as? String == "Error in input data" && body["status"] as? Int == 400)
            #expect(body["detail"] as? String == "Input validation failed, error description in problems node!")
            let names = try #require(body["problems"] as? [[String: String]]).compactMap { $0["name"] }
            #expect(names == ["PaymentOrder.Amount", "PaymentOrder.Urls.CompleteUrl", "PaymentOrder.PayeeInfo.PayeeReference"], "\(body)")

            let consent = try await merchant.create(SwedbankPayExamples.order(extra: #", "enablePaymentDetailsConsentCheckbox": true"#))
            #expect(try object(consent)["problems"] as? [[String: String]] == [[
                "name": "PaymentOrder.EnablePaymentDetailsConsentCheckbox",
                "description": "EnablePaymentDetailsConsentCheckbox cannot be used without DisableStoredPaymentDetails."]])

            let notJSON = try await merchant.create("{nope")
            #expect(try notJSON.status == 400 && (object(notJSON)["problems"] as? [[String: String]])?.first?["name"] == "PaymentOrder")

            let english = try await merchant.create(SwedbankPayExamples.order().replacingOccurrences(of: "sv-SE", with: "xx-XX"))
            #expect(try order(english)["language"] as? String == "en-US")
        }
    }

    @Test("401 without or with a malformed Bearer, before 404; accepted tokens; 404 for an unknown or foreign order; 405")
    func auth_NotFound_MethodNotAllowed() async throws {
        try await withOrderSandbox({ $0.swedbankPay.acceptedTokens = ["good", "other"] }) { _, client in
            var merchant = SwedbankPayMerchant(client, token: "good")
            for authorization in ["", "Basic dXNlcjpwYXNz", "Bearer ", "Bearer bad"] {
                merchant.authorization = authorization
                let response = try await merchant.send("GET", "/psp/paymentorders/\(sequentialID(9))")
                #expect(response.status == 401, "\(authorization): \(response)")
                #expect(response.header("WWW-Authenticate") == "Bearer")
                #expect(try object(response)["type"] as? String == "https://api.payex.com/psp/errordetail/unauthorized")
            }
            merchant.authorization = "bearer good"
            let id = try await merchant.newOrder()
            let other = SwedbankPayMerchant(client, token: "other")
            let foreign = try await other.send("GET", "/psp/paymentorders/\(id)")
            #expect(try foreign.status == 404 && (object(foreign)["type"] as? String) == "https://api.payex.com/psp/errordetail/notfound")
            #expect(try object(foreign)["detail"] as? String == "Payment order /psp/paymentorders/\(id) was not found.")
            let put = try await merchant.send("PUT", "/psp/paymentorders/\(id)", body: "{}")
            #expect(put.status == 405 && put.header("Allow") != nil, "\(put)")
            let nowhere = try await merchant.send("GET", "/psp/nothing")
            #expect(try nowhere.status == 404 && (object(nowhere)["type"] as? String)?.hasSuffix("/notfound") == true)
        }
    }

    @Test("GET with $expand, sub-resources, and Paid: capture partly, then fully, reversal; remaining amounts and operations per state")
    func capture_Reversal_RemainingAmounts() async throws {
        try await withOrderSandbox { sandbox, client in
            let merchant = SwedbankPayMerchant(client)
            let namespace = Namespace(merchant.namespaceName)
            let id = try await merchant.newOrder()
            let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
            #expect(sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization, details: SwedbankPayExamples.cardDetails))

            let paid = try await merchant.send("GET", "/psp/paymentorders/\(id)?$expand=paid,History,urls")
            #expect(paid.status == 200, "\(paid)")
            let document = try order(paid)
            #expect(document["status"] as? String == "Paid")
            #expect(document["remainingCaptureAmount"] as? Int == 1500 && document["remainingReversalAmount"] as? Int == 0)
            let paidNode = try #require(document["paid"] as? [String: Any])
            #expect(paidNode["instrument"] as? String == "CreditCard" && paidNode["transactionType"] as? String == "Authorization")
            #expect(paidNode["number"] as? Int == attempt.number && paidNode["amount"] as? Int == 1500)
            #expect((paidNode["details"] as? [String: String])?["maskedPan"] == "492500******0004")
            let history = try #require((document["history"] as? [String: Any])?["historyList"] as? [[String: Any]]).compactMap { $0["name"] as? String }
            #expect(history == ["PaymentCreated", "PaymentInstrumentSelected", "PaymentAttemptStarted", "PaymentPaid"])
            #expect((document["urls"] as? [String: Any])?["completeUrl"] as? String == "https://example.com/payment-completed")
            #expect(try rels(paid) == ["cancel", "capture", "redirect-checkout", "view-checkout"])

            let node = try await merchant.send("GET", "/psp/paymentorders/\(id)/paid")
            #expect(try object(node)["paymentOrder"] as? String == "/psp/paymentorders/\(id)")

            let partial = try await merchant.send("POST", "/psp/paymentorders/\(id)/captures",
                                                body: SwedbankPayExamples.capture(amount: 1000, vatAmount: 250, payeeReference: "C1"))
            #expect(partial.status == 200, "\(partial)")
            var after = try order(partial)
            #expect([after["remainingCaptureAmount"], after["remainingCancellationAmount"], after["remainingReversalAmount"]] as? [Int] == [500, 500, 1000])
            #expect(try rels(partial) == ["capture", "cancel", "reversal"])

            let tooMuch = try await merchant.send("POST", "/psp/paymentorders/\(id)/captures",
                                                body: SwedbankPayExamples.capture(amount: 600, vatAmount: 0, payeeReference: "C2"))
            #expect(try tooMuch.status == 400 && (object(tooMuch)["problems"] as? [[String: String]])?.first?["name"] == "Transaction.Amount")
            let reused = try await merchant.send("POST", "/psp/paymentorders/\(id)/captures",
                                               body: SwedbankPayExamples.capture(amount: 100, vatAmount: 0, payeeReference: "C1"))
            #expect(try reused.status == 400 && (object(reused)["problems"] as? [[String: String]])?.first?["name"] == "Transaction.PayeeReference")

            let rest = try await merchant.send("POST", "/psp/paymentorders/\(id)/captures",
                                             body: SwedbankPayExamples.capture(amount: 500, vatAmount: 125, payeeReference: "C3"))
            after = try order(rest)
            #expect([after["remainingCaptureAmount"], after["remainingCancellationAmount"], after["remainingReversalAmount"]] as? [Int] == [0, 0, 1500])
            #expect(try rels(rest) == ["reversal"])
            let cancel = try await merchant.send("POST", "/psp/paymentorders/\(id)/cancellations",
                                               body: #"{"transaction": {"description": "Test Cancellation", "payeeReference": "X1"}}"#)
            #expect(try cancel.status == 403 && (object(cancel)["type"] as? String) == "https://api.payex.com/psp/errordetail/forbidden", "\(cancel)")

            let reversal = try await merchant.send("POST", "/psp/paymentorders/\(id)/reversals",
                                                 body: #"{"transaction": {"description": "Reversal", "amount": 1500, "vatAmount": 375, "payeeReference": "R1"}}"#)
            after = try order(reversal)
            #expect(after["status"] as? String == "Reversed" && after["remainingReversalAmount"] as? Int == 0, "\(after)")
            #expect(try rels(reversal).isEmpty)
            let transactions = try await merchant.send("GET", "/psp/paymentorders/\(id)?$expand=financialtransactions")
            let list = try #require(((try order(transactions))["financialTransactions"] as? [String: Any])?["financialTransactionsList"] as? [[String: Any]])
            #expect(list.compactMap { $0["type"] as? String } == ["Capture", "Capture", "Reversal"])
        }
    }

    @Test("Cancel with nothing captured: Cancelled; v3.0 answers transaction-shaped; Swish Sale offers only reversal")
    func cancel_AndV30Answer_AndSale() async throws {
        try await withOrderSandbox { sandbox, client in
            let merchant = SwedbankPayMerchant(client)
            let namespace = Namespace(merchant.namespaceName)
            let id = try await merchant.newOrder()
            let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
            sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization, details: SwedbankPayExamples.cardDetails)
            let cancelled = try await merchant.send("POST", "/psp/paymentorders/\(id)/cancellations",
                                                  body: #"{"transaction": {"description": "Test Cancellation", "payeeReference": "ABC123"}}"#,
                                                  contentType: "application/json;version=3.0")
            #expect(cancelled.status == 200, "\(cancelled)")
            let transaction = try #require((try object(cancelled)["cancellation"] as? [String: Any])?["transaction"] as? [String: Any])
            #expect(transaction["type"] as? String == "Cancellation" && transaction["state"] as? String == "Completed" && transaction["amount"] as? Int == 1500)
            #expect((try object(cancelled)["payment"] as? String)?.hasPrefix("/psp/creditcard/payments/") == true)
            let read = try await merchant.send("GET", "/psp/paymentorders/\(id)?$expand=cancelled")
            #expect(try order(read)["status"] as? String == "Cancelled")
            #expect(((try order(read))["cancelled"] as? [String: Any])?["cancelReason"] as? String == "Test Cancellation")

            let swish = try await merchant.newOrder()
            let swishAttempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: swish, instrument: "Swish", prefill: false)
            sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: swish, swishAttempt, transactionType: .sale,
                                                  details: .object([("msisdn", .string("+46739000001"))]))
            let sale = try await merchant.send("GET", "/psp/paymentorders/\(swish)")
            #expect(try rels(sale) == ["reversal"])
            #expect([try order(sale)["remainingCaptureAmount"], try order(sale)["remainingReversalAmount"]] as? [Int] == [0, 1500])
            let capture = try await merchant.send("POST", "/psp/paymentorders/\(swish)/captures",
                                                body: SwedbankPayExamples.capture(amount: 100, vatAmount: 0, payeeReference: "S1"))
            #expect(capture.status == 403, "\(capture)")
        }
    }

    @Test("PATCH: Abort → Aborted with the reason, no operations; Swish pending hides abort and refuses it; UpdateOrder; attempt aborted")
    func patch_AbortAndUpdate() async throws {
        try await withOrderSandbox { sandbox, client in
            let merchant = SwedbankPayMerchant(client)
            let namespace = Namespace(merchant.namespaceName)
            let id = try await merchant.newOrder()
            let update = try await merchant.send("PATCH", "/psp/paymentorders/\(id)",
                                               body: #"{"paymentorder": {"operation": "UpdateOrder", "amount": 2000, "vatAmount": 500}}"#)
            #expect(try update.status == 200 && (order(update))["amount"] as? Int == 2000, "\(update)")
            #expect(sandbox.swedbankPayOrders.snapshot(namespace, orderID: id)?.amount == 2000)

            let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "Swish", prefill: false)
            sandbox.swedbankPayOrders.setSwishPending(namespace, orderID: id, true)
            let pending = try await merchant.send("GET", "/psp/paymentorders/\(id)")
            #expect(try rels(pending) == ["abort-paymentattempt", "redirect-checkout", "view-checkout", "view-paymentsession"])
            let refused = try await merchant.send("PATCH", "/psp/paymentorders/\(id)", body: #"{"paymentorder": {"operation": "Abort", "abortReason": "CancelledByConsumer"}}"#)
            #expect(refused.status == 403, "\(refused)")

            let attemptAborted = try await merchant.send("PATCH", "/psp/paymentorders/\(id)",
                                                       body: #"{"paymentorder": {"operation": "PaymentAttemptAborted", "abortReason": "AbortedByUI"}}"#)
            #expect(try attemptAborted.status == 200 && (order(attemptAborted))["status"] as? String == "Initialized")
            #expect(!sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .sale, details: .object([])))
            let failed = try await merchant.send("GET", "/psp/paymentorders/\(id)/failedattempts")
            let list = try #require((try object(failed)["failedAttempts"] as? [String: Any])?["failedAttemptList"] as? [[String: Any]])
            #expect(list.count == 1 && list[0]["status"] as? String == "Aborted" && list[0]["number"] as? Int == attempt.number)

            let abort = try await merchant.send("PATCH", "/psp/paymentorders/\(id)?$expand=aborted",
                                              body: #"{"paymentorder": {"operation": "Abort", "abortReason": "CancelledByConsumer"}}"#)
            #expect(try abort.status == 200 && (order(abort))["status"] as? String == "Aborted", "\(abort)")
            #expect(try rels(abort).isEmpty)
            let aborted = try await merchant.send("GET", "/psp/paymentorders/\(id)?$expand=aborted")
            #expect(((try order(aborted))["aborted"] as? [String: Any])?["abortReason"] as? String == "CancelledByConsumer")
            let unknown = try await merchant.send("PATCH", "/psp/paymentorders/\(id)", body: #"{"paymentorder": {"operation": "Nope"}}"#)
            #expect(try unknown.status == 400 && (object(unknown)["problems"] as? [[String: String]])?.first?["name"] == "PaymentOrder.Operation")
        }
    }

    @Test("Scenarios: capture refused → 403 forbidden; http_error on read → its problem; the order sticks to its create scenario")
    func scenarios_CaptureRefused_HTTPError() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("refuse.json", scenarioFile("swedbankpay-e2e-capture-refused", rules: [
                #"{ "operation": "swedbankpay.paymentorders.capture", "outcome": "refused" }"#]))
            try directory.write("error.json", scenarioFile("swedbankpay-e2e-read-error", rules: [
                #"{ "operation": "swedbankpay.paymentorders.read", "outcome": "http_error", "status": 503 }"#]))
            try await withOrderSandbox({ $0.scenarioDirectories = [directory.url] }) { sandbox, client in
                let merchant = SwedbankPayMerchant(client)
                let namespace = Namespace(merchant.namespaceName)
                let id = try await merchant.newOrder(headers: ["Sandbox-Scenario": "swedbankpay-e2e-capture-refused"])
                let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
                sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization, details: SwedbankPayExamples.cardDetails)
                #expect(sandbox.swedbankPayOrders.snapshot(namespace, orderID: id)?.scenario == "swedbankpay-e2e-capture-refused")
                let refused = try await merchant.send("POST", "/psp/paymentorders/\(id)/captures",
                                                    body: SwedbankPayExamples.capture(amount: 1500, vatAmount: 375, payeeReference: "C1"))
                #expect(refused.status == 403, "\(refused)")
                #expect(try object(refused)["type"] as? String == "https://api.payex.com/psp/errordetail/forbidden")
                #expect(try object(refused)["detail"] as? String == "Refused by sandbox scenario")

                let other = try await merchant.newOrder(headers: ["Sandbox-Scenario": "swedbankpay-e2e-read-error"])
                let failing = try await merchant.send("GET", "/psp/paymentorders/\(other)")
                #expect(try failing.status == 503 && (object(failing)["type"] as? String)?.hasSuffix("/systemerror") == true, "\(failing)")
            }
        }
    }
}

/// Verify, Recur, UnscheduledPurchase and their tokens (swedbankpay-api.md §1.2, §1.5, §2.2; developer portal
/// pages on Verify, Recur and deleting tokens).
@Suite("Swedbank Pay payment orders: Verify, Recur, UnscheduledPurchase and tokens")
struct SwedbankPayTokenOrderTests {
    @Test("Purchase with generate…Token: paid.tokens; Recur and UnscheduledPurchase pay with them at once (Authorization, capture), callbackUrl only")
    func recurAndUnscheduled_PayWithTheTokens() async throws {
        try await withOrderSandbox { sandbox, client in
            let merchant = SwedbankPayMerchant(client)
            let tokens = try await paidWithTokens(sandbox, merchant)
            let recurrence = try #require(tokens["recurrence"]), unscheduled = try #require(tokens["unscheduled"])

            let recur = try await merchant.create(SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: recurrence,
                                                                        callbackUrl: "http://127.0.0.1:9/cb"))
            #expect(recur.status == 200, "\(recur)")
            let document = try order(recur)
            #expect(document["operation"] as? String == "Recur" && document["status"] as? String == "Paid")
            #expect(document["recurrenceToken"] as? String == recurrence && document["remainingCaptureAmount"] as? Int == 1000)
            #expect(try rels(recur) == ["cancel", "capture"], "no payer pages for a server-to-server order")
            let id = try #require((document["id"] as? String)?.dropFirst("/psp/paymentorders/".count)).description
            let expanded = try order(try await merchant.send("GET", "/psp/paymentorders/\(id)?$expand=paid,urls"))
            let paid = try #require(expanded["paid"] as? [String: Any])
            #expect(paid["transactionType"] as? String == "Authorization" && paid["instrument"] as? String == "CreditCard")
            #expect((paid["details"] as? [String: Any])?["maskedPan"] as? String == "492500******0004")
            let urls = try #require(expanded["urls"] as? [String: Any])
            #expect(urls["callbackUrl"] as? String == "http://127.0.0.1:9/cb" && urls["hostUrls"] == nil && urls["completeUrl"] == nil)
            let capture = try await merchant.send("POST", "/psp/paymentorders/\(id)/captures",
                                                body: SwedbankPayExamples.capture(amount: 1000, vatAmount: 0, payeeReference: "CAP1"))
            #expect(try capture.status == 200 && (try order(capture)["remainingReversalAmount"] as? Int) == 1000, "\(capture)")
            // No callback for a card Recur or its capture ("the callback will only be sent for Trustly transactions, not
            // card"): a Purchase's callback, sent after them, arrives alone.
            let purchase = try await merchant.newOrder(SwedbankPayExamples.order(callbackUrl: "http://127.0.0.1:9/cb", extra: #", "payer": {"payerReference": "AB1234"}"#))
            let purchaseAttempt = try sandbox.swedbankPayOrders.beginAttempt(Namespace(merchant.namespaceName), orderID: purchase, instrument: "CreditCard", prefill: false)
            sandbox.swedbankPayOrders.attemptPaid(Namespace(merchant.namespaceName), orderID: purchase, purchaseAttempt, transactionType: .authorization,
                                                  details: SwedbankPayExamples.cardDetails)
            let callbacks = try await merchant.waitForJournal(method: "CALLBACK", count: 1)
            #expect(callbacks.allSatisfy { $0.note.contains(purchase) && !$0.note.contains(id) }, "\(callbacks)")

            let unscheduledOrder = try await merchant.create(SwedbankPayExamples.merchantInitiated("UnscheduledPurchase", tokenField: "unscheduledToken",
                                                                                 token: unscheduled, amount: 2500, payeeReference: "U1"))
            #expect(try unscheduledOrder.status == 200 && (try order(unscheduledOrder)["status"] as? String) == "Paid", "\(unscheduledOrder)")
            #expect(try order(unscheduledOrder)["unscheduledToken"] as? String == unscheduled)
        }
    }

    @Test("Unknown token: 404 inputerror; deleted: 422 paymenttokeninactive; a token of another kind is unknown; missing token is 400")
    func tokenProblems_AndDeletion() async throws {
        try await withOrderSandbox { sandbox, client in
            let merchant = SwedbankPayMerchant(client)
            let tokens = try await paidWithTokens(sandbox, merchant)
            let recurrence = try #require(tokens["recurrence"]), unscheduled = try #require(tokens["unscheduled"])

            let unknown = try await merchant.create(SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: "5adc265f-f87f-4313-577e-08d3dca1a26c"))
            #expect(unknown.status == 404, "\(unknown)")
            #expect(try object(unknown)["type"] as? String == "https://api.payex.com/psp/errordetail/paymentorders/inputerror")
            let unknownProblems = try object(unknown)["problems"] as? [[String: String]]
            #expect(unknownProblems?.first == ["name": "RecurrenceToken", "description": "The given RecurrenceToken does not exist."])
            let otherKind = try await merchant.create(SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: unscheduled))
            #expect(otherKind.status == 404, "an unscheduled token is no recurrence token: \(otherKind)")
            let missing = try await merchant.create(SwedbankPayExamples.merchantInitiated("UnscheduledPurchase", tokenField: "paymentToken", token: unscheduled))
            #expect(missing.status == 400, "\(missing)")
            let names = (try object(missing)["problems"] as? [[String: String]])?.compactMap { $0["name"] } ?? []
            #expect(names.contains("PaymentOrder.UnscheduledToken") && names.contains("PaymentOrder.PaymentToken"), "\(names)")

            let deleted = try await merchant.send("PATCH", "/psp/paymentorders/unscheduledTokens/\(unscheduled)",
                                                body: #"{"state": "Deleted", "comment": "The payer cancelled the agreement"}"#)
            #expect(deleted.status == 200, "\(deleted)")
            #expect(try object(deleted)["token"] as? String == unscheduled && (try object(deleted)["instrumentDisplayName"] as? String) == "492500******0004")
            let inactive = try await merchant.create(SwedbankPayExamples.merchantInitiated("UnscheduledPurchase", tokenField: "unscheduledToken", token: unscheduled))
            #expect(inactive.status == 422, "\(inactive)")
            #expect(try object(inactive)["type"] as? String == "https://api.payex.com/psp/errordetail/paymentorders/paymenttokeninactive")
            #expect(try object(inactive)["detail"] as? String == "The given UnscheduledToken is inactive.")

            let recurrenceDeleted = try await merchant.send("PATCH", "/psp/paymentorders/recurrencetokens/\(recurrence)", body: #"{"state": "Deleted"}"#)
            #expect(try recurrenceDeleted.status == 200 && (try object(recurrenceDeleted)["isDeleted"] as? Bool) == true, "\(recurrenceDeleted)")
            let recurInactive = try await merchant.create(SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: recurrence))
            #expect(recurInactive.status == 422)
            let badState = try await merchant.send("PATCH", "/psp/paymentorders/paymentTokens/\(try #require(tokens["payment"]))", body: #"{"state": "Active"}"#)
            #expect(badState.status == 400)
            let unknownDelete = try await merchant.send("PATCH", "/psp/paymentorders/paymentTokens/nope", body: #"{"state": "Deleted"}"#)
            #expect(unknownDelete.status == 404)
            // A one-click Purchase naming a deleted payment token is refused the same way.
            _ = try await merchant.send("PATCH", "/psp/paymentorders/paymentTokens/\(try #require(tokens["payment"]))", body: #"{"state": "Deleted"}"#)
            let oneClick = try await merchant.create(SwedbankPayExamples.order(extra: #", "paymentToken": "\#(try #require(tokens["payment"]))""#))
            #expect(oneClick.status == 422, "\(oneClick)")
            // Another namespace does not see these tokens.
            let stranger = SwedbankPayMerchant(client)
            #expect(try await stranger.create(SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: recurrence)).status == 404)
        }
    }

    @Test("Recur declined by a scenario: the order is Failed with the acquirer's problem, one failed attempt; the next Recur pays")
    func recurDeclined_IsFailed() async throws {
        let file = scenarioFile("swedbankpay-e2e-recur-declined", rules: [
            #"{"operation": "swedbankpay.card.authorize", "sequence": [{"outcome": "card_declined"}, {"outcome": "approve"}]}"#,
        ])
        try await withScenarioDirectory { directory in
            try directory.write("recur.json", file)
            try await withOrderSandbox({ $0.scenarioDirectories = [directory.url] }) { sandbox, client in
                let merchant = SwedbankPayMerchant(client)
                let recurrence = try #require(try await paidWithTokens(sandbox, merchant)["recurrence"])
                let headers = ["Sandbox-Scenario": "swedbankpay-e2e-recur-declined"]
                let declined = try await merchant.create(SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: recurrence), headers: headers)
                #expect(declined.status == 200, "\(declined)")
                #expect(try order(declined)["status"] as? String == "Failed" && (try rels(declined)).isEmpty)
                let id = try #require((try order(declined)["id"] as? String)?.dropFirst("/psp/paymentorders/".count)).description
                let expanded = try order(try await merchant.send("GET", "/psp/paymentorders/\(id)?$expand=failed,failedAttempts"))
                let problem = try #require((expanded["failed"] as? [String: Any])?["problem"] as? [String: Any])
                #expect(problem["type"] as? String == "https://api.payex.com/psp/errordetail/creditcard/carddeclined")
                #expect(((expanded["failedAttempts"] as? [String: Any])?["failedAttemptList"] as? [Any])?.count == 1)
                let again = try await merchant.create(SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: recurrence,
                                                                           payeeReference: "CD1235"), headers: headers)
                #expect(try order(again)["status"] as? String == "Paid", "the sequence counts per token")
            }
        }
    }

    @Test("Verify: no amount, card only, 0; paid by card: Verification, nothing to capture, the tokens it asked for; amounts are refused")
    func verify() async throws {
        try await withOrderSandbox { sandbox, client in
            let merchant = SwedbankPayMerchant(client)
            let body = """
            {"paymentorder": {"operation": "Verify", "currency": "SEK", "description": "Test Verification", "userAgent": "Mozilla/5.0",
              "language": "sv-SE", "generateUnscheduledToken": true,
              "urls": {"hostUrls": ["https://example.com"], "completeUrl": "https://example.com/payment-completed", "cancelUrl": "https://example.com/payment-cancelled"},
              "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "CD1234"}, "payer": {"payerReference": "AB1234"}}}
            """
            let created = try await merchant.create(body)
            #expect(created.status == 200, "\(created)")
            let document = try order(created)
            #expect(document["operation"] as? String == "Verify" && document["amount"] as? Int == 0 && document["status"] as? String == "Initialized")
            #expect(document["availableInstruments"] as? [String] == ["CreditCard"])
            #expect(try rels(created).contains("view-paymentsession"))
            let id = try #require((document["id"] as? String)?.dropFirst("/psp/paymentorders/".count)).description
            let namespace = Namespace(merchant.namespaceName)
            let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
            sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization,
                                                  details: SwedbankPayExamples.cardDetails)
            let paid = try await merchant.send("GET", "/psp/paymentorders/\(id)?$expand=paid")
            #expect(try order(paid)["status"] as? String == "Paid" && (try rels(paid)).isEmpty, "\(paid)")
            let node = try #require(try order(paid)["paid"] as? [String: Any])
            #expect(node["transactionType"] as? String == "Verification" && node["amount"] as? Int == 0)
            #expect((node["tokens"] as? [[String: Any]])?.compactMap { $0["type"] as? String } == ["unscheduled"])
            let unscheduled = try #require((node["tokens"] as? [[String: Any]])?.first?["token"] as? String)
            let later = try await merchant.create(SwedbankPayExamples.merchantInitiated("UnscheduledPurchase", tokenField: "unscheduledToken", token: unscheduled))
            #expect(try later.status == 200 && (try order(later)["status"] as? String) == "Paid", "a verified card pays later: \(later)")

            let withAmount = try await merchant.create(body.replacingOccurrences(of: #""currency": "SEK","#, with: #""currency": "SEK", "amount": 100,"#))
            #expect(withAmount.status == 400, "\(withAmount)")
            let unknown = try await merchant.create(body.replacingOccurrences(of: #""Verify""#, with: #""Refund""#))
            #expect(try (object(unknown)["problems"] as? [[String: String]])?.first?["name"] == "PaymentOrder.Operation")
        }
    }

    @Test("$expand on a capture's answer (financialtransactions,paid), as on GET; the list is financialTransactionsList")
    func expandOnCaptureAnswer() async throws {
        try await withOrderSandbox { sandbox, client in
            let merchant = SwedbankPayMerchant(client)
            let id = try await merchant.newOrder()
            let namespace = Namespace(merchant.namespaceName)
            let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
            sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization,
                                                  details: SwedbankPayExamples.cardDetails)
            let capture = try await merchant.send("POST", "/psp/paymentorders/\(id)/captures?$expand=financialtransactions,paid",
                                                body: SwedbankPayExamples.capture(amount: 1500, vatAmount: 375, payeeReference: "CAP1"))
            #expect(capture.status == 200, "\(capture)")
            let list = try #require((try order(capture)["financialTransactions"] as? [String: Any])?["financialTransactionsList"] as? [[String: Any]],
                                    "\(capture)")
            #expect(list.count == 1 && list.first?["type"] as? String == "Capture" && list.first?["payeeReference"] as? String == "CAP1")
            #expect(try (order(capture)["paid"] as? [String: Any])?["instrument"] as? String == "CreditCard")
            let plain = try await merchant.send("POST", "/psp/paymentorders/\(id)/reversals",
                                              body: #"{"transaction": {"description": "Reversal", "amount": 100, "vatAmount": 0, "payeeReference": "R1"}}"#)
            #expect(try (order(plain)["financialTransactions"] as? [String: Any])?.keys.sorted() == ["id"], "without $expand: {id}")
        }
    }
}
