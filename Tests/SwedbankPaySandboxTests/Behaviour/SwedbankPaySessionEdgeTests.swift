// SPDX-License-Identifier: MIT
// The payment-session API where an SDK could loop, stall or count twice: customize-payment (restricted menu, instrument
// mode and its reset), the new-card web view, wallets cancelled or with an empty payload, 409s and the recovery GET,
// the payer aborting by scenario, decision delays, a session first read after its order ended. In-process, every
// answer decoded with the strict mirrors (swedbankpay-api.md §3.2, §3.5, §3.6, §3.9).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay payment session: edges")
struct SwedbankPaySessionEdgeTests {
    static func namespace(_ label: String) -> String { "spay-edge-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// A prepared session (the SDK's first GET and prepare-payment), without choosing an instrument.
    static func prepared(_ sandbox: PaymentSandbox, _ client: SandboxClient, _ label: String, platform: SwedbankPayPlatform = .iOS,
                         instrument: String? = nil, scenario: String? = nil)
    async throws -> (driver: SwedbankPaySessionDriver, token: String, idle: PaymentOutputModel) {
        let namespace = namespace(label)
        let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, instrument: instrument, scenario: scenario)
        var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: nil)
        _ = try await driver.run(token: token)
        return (driver, token, try #require(driver.lastDocument))
    }

    /// `failedAttempts.failedAttemptList[].status` as the merchant reads it (`$expand=failedattempts`, swedbankpay-api.md §1.4).
    static func failedAttempts(_ client: SandboxClient, _ sandbox: PaymentSandbox, _ token: String) async throws -> [String] {
        let body = try await SwedbankPayCheckoutPageTests.expanded(client, sandbox, token: token, "failedattempts")
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        let node = (json?["paymentOrder"] as? [String: Any])?["failedAttempts"] as? [String: Any]
        return (node?["failedAttemptList"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
    }

    // MARK: customize-payment

    @Test func restrictedMenu_ShowsOnlyThoseMethods_KeepsEnabledPaymentMethods_ResetRestoresThem() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, _, idle) = try await Self.prepared(sandbox, client, "restrict")
            let everything = try #require(idle.paymentSession.settings?.enabledPaymentMethods)
            let customize = try #require(idle.topLevel(.customizePayment)?.href)
            driver.restricted = true
            let restricted = try await driver.call("POST", customize, body: #"{"paymentMethod":null,"restrictToPaymentMethods":["Swish","CreditCard"]}"#)
            #expect(Set(restricted.paymentSession.methods?.map(\.paymentMethod) ?? []) == ["Swish", "CreditCard"])
            #expect(restricted.paymentSession.settings?.enabledPaymentMethods == everything)
            #expect(restricted.paymentSession.instrumentModePaymentMethod == nil)
            driver.restricted = false
            let reset = try await driver.call("POST", customize, body: #"{"paymentMethod":null,"restrictToPaymentMethods":null}"#)
            #expect(reset.paymentSession.methods?.map(\.paymentMethod) == everything)
        }
    }

    /// An order created in instrument mode for Swish, the app asking for a saved card: the SDK resets with
    /// customize-payment (§3.5 step 4). The reset must leave instrument mode, or the SDK sends it for ever.
    @Test(arguments: SwedbankPayPlatform.allCases)
    func instrumentModeOrder_AppChoosesAnotherInstrument_ResetOnce_ThenPays(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("instrument")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, instrument: "Swish", scenario: "swedbankpay-approve")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform,
                                                  choice: .savedCard(rank: 3))
            let end = try await driver.run(token: token)
            #expect(end == .complete)
            #expect(driver.steps.filter { $0.contains("/customizepayment") }.count == 1, "\(driver.steps)")
            #expect(driver.documents.contains { $0.paymentSession.instrumentModePaymentMethod == "Swish" })
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    /// A 409 would make the SDKs GET the session and send the same customize-payment again, in a loop.
    @Test func customize_MethodNotAvailable_Is400InputError_Not409() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (driver, _, idle) = try await Self.prepared(sandbox, client, "unavailable", platform: .android)
            let customize = try #require(idle.topLevel(.customizePayment)?.href)
            let response = try await driver.exchange("POST", customize, body: #"{"paymentMethod":"ApplePay","restrictToPaymentMethods":null}"#)
            #expect(response.status == 400)
            let error = try response.decode(SessionErrorObject.self)
            #expect(error.type == "https://api.payex.com/psp/errordetail/inputerror")
        }
    }

    @Test(arguments: SwedbankPayPlatform.allCases)
    func newCard_CustomizeToCreditCardWithoutSavedCards_WebView_PaidOnThePage_NextGetCompletes(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("newcard")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace)
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: .newCard)
            let end = try await driver.run(token: token)
            guard case .webView(let script) = end else { Issue.record("\(end)"); return }
            #expect(script.hasPrefix("\(driver.base)/checkout/client/\(token)"))
            let session = try #require(driver.lastDocument?.paymentSession)
            #expect(session.instrumentModePaymentMethod == "CreditCard")
            #expect(session.methods?.map(\.paymentMethod) == ["CreditCard"])
            #expect(session.methods?.first?.prefills == [], "hideStoredPaymentOptions: no saved cards")
            // The web view's page: a typed frictionless test card (swedbankpay-api.md §5).
            let paid = try await CheckoutPageClient(client).post("/checkout/\(token)/card?embed=1",
                                                                         [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(paid.status == 200)
            let after = try await driver.call("GET", driver.sessionURL)
            #expect(after.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    // MARK: wallets

    @Test(arguments: SwedbankPayPlatform.allCases)
    func wallet_PayerCancelsTheSheet_FailPaymentAttemptUserCancelled_AbortedAttempt(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, idle) = try await Self.prepared(sandbox, client, "wallet-cancel", platform: platform)
            let wallet = platform == .iOS ? "ApplePay" : "GooglePay"
            let start = try #require(idle.method(wallet)?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let sheet = try await driver.call("POST", start, body: #"{"culture":"sv-SE","client":{"clientType":"Native"}}"#)
            let fail = try #require(sheet.method(wallet)?.operations.first { $0.rel == .failPaymentAttempt }?.href)
            let cancelled = try await driver.call("POST", fail, body: #"{"problemType":"UserCancelled","errorCode":null}"#)
            let problem = try #require(cancelled.problem)
            #expect(problem.type == "https://api.payex.com/psp/errordetail/usercancelled")
            #expect(!cancelled.allOperations.contains { $0.rel == .attemptPayload }, "the sheet is not offered again")
            #expect(try await Self.failedAttempts(client, sandbox, token) == ["Aborted"])
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }

    /// Apple Pay on the iOS Simulator hands the SDK an empty paymentData.
    @Test func applePay_EmptyPayload_IsAccepted_NotBase64IsBadRequest() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            for (payload, paid) in [("", true), ("not base64!", false)] {
                var (driver, token, idle) = try await Self.prepared(sandbox, client, "wallet-empty")
                let start = try #require(idle.method("ApplePay")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
                let sheet = try await driver.call("POST", start, body: #"{"culture":"sv-SE","client":{}}"#)
                let attempt = try #require(sheet.method("ApplePay")?.operations.first { $0.rel == .attemptPayload }?.href)
                let answer = try await driver.call("POST", attempt, body: #"{"paymentMethod":"ApplePay","paymentPayload":"\#(payload)"}"#)
                #expect((answer.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.completeUrl) == paid, "\(payload)")
                #expect((answer.problem?.type == "https://api.payex.com/psp/errordetail/creditcard/badrequest") == !paid, "\(payload)")
                #expect(SwedbankPayTestOrder.status(sandbox, token: token) == (paid ? .paid : .initialized))
            }
        }
    }

    // MARK: 409 and the recovery GET

    @Test(arguments: SwedbankPayPlatform.allCases)
    func conflictOnStart_SDKRecoversWithOneGet_ThenTheAppRetriesAndPays(platform: SwedbankPayPlatform) async throws {
        let file = scenarioFile("swedbankpay-e2e-start-conflict", rules: [
            #"{"operation": "swedbankpay.paymentsession.start_payment_attempt", "sequence": [{"outcome": "http_error", "status": 409}, {"outcome": "approve"}]}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["conflict.json": file]) { sandbox, client in
            let namespace = Self.namespace("conflict")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-e2e-start-conflict")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform,
                                                  choice: .savedCard(rank: 3))
            let first = try await driver.run(token: token)
            #expect(first == .endStateReached, "the instrument was used up by the refused start: the SDK has nothing left to do")
            #expect(driver.recoveryGets == 1)
            driver.walker.choose(.savedCard(rank: 3))
            let last = try #require(driver.lastDocument)
            let second = try await driver.run(from: last)
            #expect(second == .complete)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    @Test func threeDSecure_InProgress_NoMethodOffersANewAttempt() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, _, idle) = try await Self.prepared(sandbox, client, "3ds-phase", scenario: "swedbankpay-3ds-approved")
            let start = try #require(idle.method("CreditCard")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let token = try #require(idle.method("CreditCard")?.prefills?.compactMap { prefill -> String? in
                if case .card(let card) = prefill, card.rank == 1 { return card.paymentToken }
                return nil
            }.first)
            let method = try await driver.call("POST", start, body: #"{"culture":"sv-SE","paymentToken":"\#(token)","client":{}}"#)
            #expect(method.topLevel(.createAuthentication)?.next == true)
            #expect(!method.allOperations.contains { $0.rel == .startPaymentAttempt })
            #expect(method.method("CreditCard")?.operations.map(\.rel) == [.failPaymentAttempt])
        }
    }

    // MARK: Scenarios: the payer aborts, decision delays

    @Test(arguments: SwedbankPayPlatform.allCases)
    func payerAbortsScenario_SwishAndSavedCard_SDKReportsCanceled_OrderAborted(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            for choice in [SwedbankPayInstrument.swish(msisdn: "+46739000001"), .swish(msisdn: nil), .savedCard(rank: 3)] {
                let namespace = Self.namespace("payer-aborts")
                let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-payer-aborts")
                var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: choice)
                let end = try await driver.run(token: token)
                #expect(end == .canceled, "\(choice)")
                #expect(driver.lastDocument?.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.cancelUrl)
                #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .aborted)
                #expect(try await Self.failedAttempts(client, sandbox, token) == ["Aborted"], "\(choice)")
            }
        }
    }

    @Test func payerAbortsScenario_WebInstrumentOnThePage_303ToCancelUrl() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let token = try await SwedbankPayTestOrder.create(client, namespace: Self.namespace("payer-aborts-web"), scenario: "swedbankpay-payer-aborts")
            let response = try await CheckoutPageClient(client).post("/checkout/\(token)/web/Invoice-PayExFinancingSe",
                                                                             [("ssn", "600307-1161")])
            #expect(response.status == 303)
            #expect(response.header("Location") == SwedbankPayTestOrder.cancelUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .aborted)
        }
    }

    /// `delay_ms` on swish.sale is how long the payer takes in the Swish app, on the namespace's clock.
    @Test func swishSaleDelay_IsThePayersTime_OnTheNamespaceClock() async throws {
        let file = scenarioFile("swedbankpay-e2e-slow-payer", rules: [
            #"{"operation": "swedbankpay.swish.sale", "outcome": "approve", "delay_ms": 30000}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["slow-payer.json": file]) { sandbox, client in
            var (driver, token, idle) = try await Self.prepared(sandbox, client, "slow-payer", scenario: "swedbankpay-e2e-slow-payer")
            let start = try #require(idle.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let clock = ContinuousClock(), started = clock.now
            let pending = try await driver.call("POST", start, body: #"{"culture":"sv-SE","msisdn":"+46739000001","client":{}}"#)
            #expect(clock.now - started < .seconds(5), "the answer itself is not delayed")
            let poll = try #require(pending.method("Swish")?.operations.first { $0.rel == .getPayment }?.href)
            sandbox.registry.advance(Namespace(driver.namespace), by: 29)
            #expect(try await driver.call("GET", poll).topLevel(.redirectPayer) == nil, "29 s: still waiting for the payer")
            sandbox.registry.advance(Namespace(driver.namespace), by: 1)
            #expect(try await driver.call("GET", poll).topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    /// `delay_ms` on card.authorize delays the answer of the call that asked (a slow acquirer).
    @Test func cardAuthorizeDelay_DelaysTheStartPaymentAttemptAnswer() async throws {
        let file = scenarioFile("swedbankpay-e2e-slow-acquirer", rules: [
            #"{"operation": "swedbankpay.card.authorize", "outcome": "approve", "delay_ms": 1500}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["slow-acquirer.json": file]) { sandbox, client in
            let namespace = Self.namespace("slow-acquirer")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-e2e-slow-acquirer")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: .android,
                                                  choice: .savedCard(rank: 3))
            let clock = ContinuousClock(), started = clock.now
            #expect(try await driver.run(token: token) == .complete)
            #expect(clock.now - started >= .milliseconds(1500))
        }
    }

    // MARK: Ends

    /// Android configures itself from the first answer only and needs view-payment there (§3.5).
    @Test func sessionFirstReadAfterItsOrderWasPaid_StillCarriesViewPayment() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("late")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace)
            let paid = try await CheckoutPageClient(client).post("/checkout/\(token)/card",
                                                                         [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(paid.status == 303)
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: .android, choice: nil)
            let end = try await driver.run(token: token)
            #expect(end == .complete)
            let first = try #require(driver.documents.first)
            #expect(first.topLevel(.viewPayment) != nil && first.topLevel(.redirectPayer)?.next == true)
        }
    }

    /// The scenario fails the local Swish start; the SDK's own fail-payment-attempt comes after it and adds nothing.
    @Test func appLaunchFailedScenario_ThenTheSDKsFailPaymentAttempt_OneFailedAttemptOneProblem() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, idle) = try await Self.prepared(sandbox, client, "launch", scenario: "swedbankpay-swish-app-launch-failed")
            let start = try #require(idle.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let launch = try await driver.call("POST", start, body: #"{"culture":"sv-SE","msisdn":null,"client":{}}"#)
            let fail = try #require(launch.method("Swish")?.operations.first { $0.rel == .failPaymentAttempt }?.href)
            let failed = try await driver.call("POST", fail, body: #"{"problemType":"ClientAppLaunchFailed","errorCode":null}"#)
            #expect(failed.problem?.type == "https://api.payex.com/psp/errordetail/paymentorders/clientapplaunchfailed")
            #expect(failed.problem?.operation?.href?.hasSuffix("/failedattempts/1/acknowledge") == true)
            #expect(try await Self.failedAttempts(client, sandbox, token) == ["Failed"])
        }
    }

    // MARK: acknowledge-failed-attempt and the retry

    /// A decline, then the same instrument again: the second attempt pays. The walker runs iOS's decision logic a
    /// second time on the ack's answer (it would end in paymentSessionEndStateReached on an idle document) and stops
    /// Android at the ack; neither may report an end state before the retry.
    @Test(arguments: SwedbankPayPlatform.allCases, [SwedbankPayInstrument.savedCard(rank: 3), .swish(msisdn: "+46739000001")])
    func declineThenRetrySameInstrument_NoEndState_TheRetryPays(platform: SwedbankPayPlatform, instrument: SwedbankPayInstrument) async throws {
        let file = scenarioFile("swedbankpay-e2e-decline-then-approve", rules: [
            #"{"operation": "swedbankpay.card.authorize", "sequence": [{"outcome": "card_declined"}, {"outcome": "approve"}]}"#,
            #"{"operation": "swedbankpay.swish.sale", "sequence": [{"outcome": "swish_declined"}, {"outcome": "approve"}]}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["decline-then-approve.json": file]) { sandbox, client in
            let namespace = Self.namespace("retry")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-e2e-decline-then-approve")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: instrument)
            let first = try await driver.run(token: token)
            #expect(first == .idleAfterProblem, "\(driver.steps)")
            #expect(driver.documents.compactMap(\.problem).count >= 1)
            driver.walker.choose(instrument)
            let last = try #require(driver.lastDocument)
            let second = try await driver.run(from: last)
            #expect(second == .complete, "\(driver.steps)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            #expect(try await Self.failedAttempts(client, sandbox, token) == ["Failed"])
        }
    }

    /// The walker's model of iOS itself: an idle document as the ack's answer is a second pass that ends the session.
    @Test func walker_IdleDocumentInANewPass_IsAnEndStateOnIOS_IdleAfterProblemInThePassThatShowedIt() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (_, _, idle) = try await Self.prepared(sandbox, client, "walker")
            var walker = SwedbankPaySDKWalker(platform: .iOS, choice: nil)
            walker.instrumentsShown = true
            walker.hasShowedErrorThisPass = true
            guard case .end(.idleAfterProblem) = walker.next(idle) else { Issue.record("same pass: idle after the problem"); return }
            walker.beginPass()
            guard case .end(.endStateReached) = walker.next(idle) else { Issue.record("a new pass: paymentSessionEndStateReached"); return }
        }
    }

    // MARK: request bodies

    /// Bodies that are not JSON objects are refused with a 400 problem and start nothing (issue: `[[[[` started a Swish payment).
    @Test(arguments: ["[[[[", "not json", "[]", "\"Swish\"", "{\"culture\":"])
    func unparseableBody_IsAProblem_AndStartsNothing(body: String) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, idle) = try await Self.prepared(sandbox, client, "garbage")
            let start = try #require(idle.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let response = try await driver.exchange("POST", start, body: body)
            #expect(response.status == 400, "\(response.text)")
            #expect(response.text.contains("https://api.payex.com/psp/errordetail/inputerror"))
            let prepare = try await driver.exchange("POST", "\(driver.sessionURL)/preparepayment", body: body)
            #expect(prepare.status == 400)
            let after = try await driver.call("GET", driver.sessionURL)
            #expect(after.allOperations.first { $0.next == true } == nil, "no attempt started")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
            #expect(try await Self.failedAttempts(client, sandbox, token).isEmpty)
            // An empty body (what the SDKs send to acknowledge or abort) is no JSON error.
            let abort = try await driver.exchange("POST", try #require(after.topLevel(.abortPayment)?.href), body: "")
            #expect(abort.status == 200)
        }
    }

    // MARK: Verify through the SDK

    /// A Verify order through the SDK: card only, amount 0; a saved card completes it; the order is Paid as a
    /// Verification with the unscheduled token it asked for (`paid.tokens`).
    @Test(arguments: SwedbankPayPlatform.allCases)
    func verify_SavedCardCompletes_PaidAsVerificationWithItsToken(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("verify")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-approve", operation: "Verify",
                                                              extra: [("generateUnscheduledToken", .bool(true))])
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform,
                                                  choice: .savedCard(rank: 1))
            let end = try await driver.run(token: token)
            #expect(end == .complete, "\(driver.steps)")
            #expect(driver.documents.last { $0.paymentSession.methods?.isEmpty == false }?.paymentSession.methods?.map(\.paymentMethod) == ["CreditCard"])
            let (orderNamespace, orderID) = try #require(sandbox.swedbankPayOrders.lookup(token: token))
            let view = try #require(sandbox.swedbankPayOrders.snapshot(orderNamespace, orderID: orderID))
            #expect(view.status == .paid && view.paidTransactionType == .verification && view.amount == 0)
            let paid = try await SwedbankPayCheckoutPageTests.expanded(client, sandbox, token: token, "paid")
            let json = try JSONSerialization.jsonObject(with: Data(paid.utf8)) as? [String: Any]
            let tokens = ((json?["paymentOrder"] as? [String: Any])?["paid"] as? [String: Any])?["tokens"] as? [[String: Any]]
            #expect(tokens?.map { $0["type"] as? String } == ["unscheduled"], "\(paid)")
        }
    }
}
