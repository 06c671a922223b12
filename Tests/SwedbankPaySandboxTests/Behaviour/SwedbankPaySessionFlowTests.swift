// SPDX-License-Identifier: MIT
// The Swedbank Pay payment-session API in-process, driven the way the iOS and Android SDKs drive it
// (swedbankpay-api.md §3.5): every answer decoded with the strict mirrors. Each bundled swedbankpay-* scenario has a test.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay payment session: flows")
struct SwedbankPaySessionFlowTests {
    static func namespace(_ label: String) -> String { "spay-session-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// Creates an order under `scenario`, runs one SDK with `choice`, returns the end, the driver and the token.
    static func pay(_ platform: SwedbankPayPlatform, _ choice: SwedbankPayInstrument?, scenario: String?, description: String = "Test Purchase",
                    amount: Int = 1500, button: String = "acs-approve", sandbox: PaymentSandbox, client: SandboxClient,
                    sourceLocation: SourceLocation = #_sourceLocation)
    async throws -> (end: SwedbankPaySessionEnd, driver: SwedbankPaySessionDriver, token: String) {
        let namespace = namespace(platform.rawValue)
        let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, description: description, amount: amount, scenario: scenario)
        var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: choice)
        driver.challengeButton = button
        let end = try await driver.run(token: token, sourceLocation: sourceLocation)
        return (end, driver, token)
    }

    // MARK: Priority 1: the document, prepare, abort, event-logging, errors

    @Test(arguments: SwedbankPayPlatform.allCases)
    func initialDocument_OffersPrepareOnly_ThenIdleHasNoNextAndNoGetPayment(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("initial")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace)
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: nil)
            driver.sessionURL = "\(driver.base)/psp/paymentsessions/\(token)"
            let initial = try await driver.call("GET", driver.sessionURL)
            #expect(initial.operations.map(\.rel) == [.preparePayment, .viewPayment, .customizePayment, .abortPayment, .eventLogging])
            #expect(initial.topLevel(.preparePayment)?.next == true)
            #expect(initial.paymentSession.methods?.isEmpty == true)
            #expect(initial.paymentSession.settings?.enabledPaymentMethods == [])
            // The recovery GET answers the same document.
            let again = try await driver.call("GET", driver.sessionURL)
            #expect(again.operations.map(\.rel) == initial.operations.map(\.rel))
            let end = try await driver.run(from: initial)
            #expect(end == .endStateReached)  // no instrument chosen, no problem: §3.5 step 17
            let idle = try #require(driver.lastDocument)
            #expect(idle.allOperations.allSatisfy { $0.next == nil })
            let methods = idle.paymentSession.methods?.map(\.paymentMethod) ?? []
            #expect(methods.contains("Swish") && methods.contains("CreditCard") && methods.contains("Trustly"))
            #expect(methods.contains("ApplePay") == (platform == .iOS))
            #expect(methods.contains("GooglePay") == (platform == .android))
            let card = try #require(idle.method("CreditCard"))
            #expect(card.prefills?.count == 3)
            #expect(idle.method("Swish")?.prefills == [.swish(SwishPrefill(rank: 1, msisdn: "+46739000001"))])
            #expect(idle.method("Trustly")?.operations.isEmpty == true)
            // event-logging: 204, no body, any body accepted.
            let logging = try await driver.exchange("POST", try #require(idle.topLevel(.eventLogging)?.href), body: "not json")
            #expect(logging.status == 204 && logging.body.isEmpty)
        }
    }

    @Test func unknownToken_Is404Problem_AndUnofferedOperation_Is409OperationNotAllowed() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("errors")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace)
            let driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: .iOS, choice: nil)
            let missing = try await driver.exchange("GET", "/psp/paymentsessions/\(String(repeating: "0", count: 64))")
            #expect(missing.status == 404)
            let notFound = try missing.decode(SessionErrorObject.self)
            #expect(notFound.type == "https://api.payex.com/psp/errordetail/notfound" && notFound.status == 404)
            // create-authentication before any card attempt.
            let early = try await driver.exchange("POST", "/psp/paymentsessions/\(token)/methods/creditcard/createauthentication", body: "{}")
            #expect(early.status == 409)
            let conflict = try early.decode(SessionErrorObject.self)
            #expect(conflict.type == "https://api.payex.com/psp/errordetail/paymentsessions/operationnotallowed" && conflict.status == 409)
            let unknownMethod = try await driver.exchange("POST", "/psp/paymentsessions/\(token)/methods/bitcoin/startpaymentattempt", body: "{}")
            #expect(unknownMethod.status == 404)
            // The journal puts the app's calls (no namespace header) in the order's namespace.
            let entries = sandbox.journal.entries(Namespace(namespace), Journal.Filter(pathPrefix: "/psp/paymentsessions/"))
            #expect(entries.count >= 2)
        }
    }

    @Test(arguments: SwedbankPayPlatform.allCases)
    func payerAborts_RedirectsToCancelUrl_OrderAborted_ThenAbortAgainIs409(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("abort")
            // The app's abortPaymentSession(), no scenario needed (the payer-aborts scenario: SwedbankPaySessionEdgeTests).
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace)
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: nil)
            _ = try await driver.run(token: token)
            let abort = try #require(driver.lastDocument?.topLevel(.abortPayment)?.href)
            let cancelled = try await driver.call("POST", abort)
            var walker = SwedbankPaySDKWalker(platform: platform, choice: nil)
            walker.instrumentsShown = true
            guard case .end(let end) = walker.next(cancelled) else { Issue.record("no end"); return }
            #expect(end == .canceled)
            #expect(cancelled.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.cancelUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .aborted)
            let again = try await driver.exchange("POST", abort)
            #expect(again.status == 409)
        }
    }

    @Test func abortNotAllowed_Is409_SDKReportsAbortPaymentNotAllowed() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("abort409")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-abort-not-allowed")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: .iOS, choice: nil)
            _ = try await driver.run(token: token)
            let abort = try await driver.exchange("POST", try #require(driver.lastDocument?.topLevel(.abortPayment)?.href))
            #expect(abort.status == 409)
            let error = try abort.decode(SessionErrorObject.self)
            #expect(error.type.hasSuffix("/paymentsessions/operationnotallowed"))
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }

    // MARK: Priority 2: Swish

    @Test(arguments: SwedbankPayPlatform.allCases, [nil, "+46739000001"])
    func swish_LocalStartAndByMsisdn_CompleteWithOrderPaid(platform: SwedbankPayPlatform, msisdn: String?) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (end, driver, token) = try await Self.pay(platform, .swish(msisdn: msisdn), scenario: "swedbankpay-approve",
                                                          sandbox: sandbox, client: client)
            #expect(end == .complete)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            #expect(driver.launchedApps.count == (msisdn == nil ? 1 : 0))
            #expect(driver.launchedApps.allSatisfy { $0.hasPrefix("swish://paymentrequest?token=") })
            #expect(driver.steps.contains { $0.hasPrefix("poll") })
            // The approve file's own rule decided (not the default of no rule).
            let notes = sandbox.journal.entries(Namespace(driver.namespace), Journal.Filter()).map(\.note)
            #expect(notes.contains("scenario=swedbankpay-approve swedbankpay.swish.sale: approve (rule 0)"), "\(notes)")
        }
    }

    @Test(arguments: [("swedbankpay-swish-declined", "swishdeclined", "RF07"), ("swedbankpay-swish-timeout", "swishtimeout", "TM01"),
                      ("swedbankpay-bankid-cancelled", "bankidcancelled", "BANKIDCL"),
                      ("swedbankpay-swish-app-launch-failed", "paymentorders/clientapplaunchfailed", "")])
    func swishOutcomes_ShowTheProblem_AckRemovesIt(scenario: String, type: String, original: String) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            // The app can only fail to launch when it is started on this device (msisdn null).
            let msisdn: String? = scenario == "swedbankpay-swish-app-launch-failed" ? nil : "+46739000001"
            for platform in SwedbankPayPlatform.allCases {
                let (end, driver, token) = try await Self.pay(platform, .swish(msisdn: msisdn), scenario: scenario,
                                                              sandbox: sandbox, client: client)
                #expect(end == .idleAfterProblem, "\(scenario) \(platform)")
                let problem = try #require(driver.documents.compactMap(\.problem).first)
                #expect(problem.type == "https://api.payex.com/psp/errordetail/\(type)")
                #expect(problem.originalDetail == (original.isEmpty ? nil : original))
                #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
            }
            if msisdn == nil {
                let (end, _, token) = try await Self.pay(.android, .swish(msisdn: "+46739000001"), scenario: scenario, sandbox: sandbox, client: client)
                #expect(end == .complete, "by MSISDN no app is launched here")
                #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            }
        }
    }

    @Test func swishTestdata_DescriptionRF07_IsDeclined_WithoutAnyHeader() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (end, driver, _) = try await Self.pay(.iOS, .swish(msisdn: nil), scenario: "swedbankpay-testdata", description: "RF07",
                                                      sandbox: sandbox, client: client)
            #expect(end == .idleAfterProblem)
            #expect(driver.documents.compactMap(\.problem).first?.type.hasSuffix("/swishdeclined") == true)
        }
    }

    @Test func swish_InvalidMsisdn_IsInputErrorProblem() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (end, driver, _) = try await Self.pay(.android, .swish(msisdn: "0739000001"), scenario: nil, sandbox: sandbox, client: client)
            #expect(end == .idleAfterProblem)
            let problem = try #require(driver.documents.compactMap(\.problem).first)
            #expect(problem.type == "https://api.payex.com/psp/errordetail/inputerror" && problem.detail == "Msisdn is invalid.")
        }
    }

    @Test func swishPending_AbortIs409_AndFailPaymentAttemptClientAppLaunchFailed_ShowsTheProblem() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("swish-pending")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace)
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: .iOS, choice: nil)
            _ = try await driver.run(token: token)
            let idle = try #require(driver.lastDocument)
            let start = try #require(idle.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let pending = try await driver.call("POST", start, body: #"{"culture":"sv-SE","msisdn":null,"client":{}}"#)
            let abort = try await driver.exchange("POST", try #require(pending.topLevel(.abortPayment)?.href))
            #expect(abort.status == 409)
            let fail = try #require(pending.method("Swish")?.operations.first { $0.rel == .failPaymentAttempt }?.href)
            let failed = try await driver.call("POST", fail, body: #"{"problemType":"ClientAppLaunchFailed","errorCode":null}"#)
            #expect(failed.problem?.type == "https://api.payex.com/psp/errordetail/paymentorders/clientapplaunchfailed")
            let ack = try #require(failed.problem?.operation?.href)
            driver.acknowledged.insert(ack)
            // 204 and no body: the SDKs have nothing to handle a second time (see SwedbankPaySessionEdgeTests).
            let acked = try await driver.exchange("POST", ack)
            #expect(acked.status == 204 && acked.body.isEmpty)
            let repeated = try await driver.exchange("POST", ack)  // idempotent
            #expect(repeated.status == 204)
            let after = try await driver.call("GET", driver.sessionURL)
            #expect(after.problem == nil)
        }
    }

    // MARK: Priority 3: saved card and 3-D Secure

    @Test(arguments: SwedbankPayPlatform.allCases)
    func savedCard_Frictionless_Completes(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            // Rank 1 is an enrolled test card: without a scenario the test data gives it a challenge; approve's rule is frictionless.
            let (end, driver, token) = try await Self.pay(platform, .savedCard(rank: 1), scenario: "swedbankpay-approve",
                                                          sandbox: sandbox, client: client)
            #expect(end == .complete)
            #expect(!driver.steps.contains { $0.hasPrefix("challenge") || $0.hasPrefix("methodRequest") }, "\(driver.steps)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    @Test(arguments: SwedbankPayPlatform.allCases)
    func savedCard_3DSChallengeApproved_Completes(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (end, driver, token) = try await Self.pay(platform, .savedCard(rank: 1), scenario: "swedbankpay-3ds-approved",
                                                          sandbox: sandbox, client: client)
            #expect(end == .complete)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            #expect(driver.steps.contains { $0.hasPrefix("methodRequest") } && driver.steps.contains { $0.hasPrefix("challenge") })
        }
    }

    @Test func savedCard_TestdataEnrolledCard_Challenge_CancelIs3DSecureDeclined() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (end, driver, _) = try await Self.pay(.android, .savedCard(rank: 1), scenario: "swedbankpay-testdata", button: "acs-cancel",
                                                      sandbox: sandbox, client: client)
            #expect(end == .idleAfterProblem)
            #expect(driver.documents.compactMap(\.problem).first?.type.hasSuffix("/creditcard/3dsecuredeclined") == true)
        }
    }

    @Test(arguments: [("swedbankpay-3ds-declined", 1, "creditcard/3dsecuredeclined"), ("swedbankpay-card-declined", 3, "creditcard/carddeclined"),
                      ("swedbankpay-insufficient-funds", 3, "creditcard/acquirerinsufficientfunds"),
                      ("swedbankpay-card-expired", 3, "creditcard/acquirercardexpired")])
    func cardOutcomes_ShowTheirProblem(scenario: String, rank: Int, type: String) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            for platform in SwedbankPayPlatform.allCases {
                let (end, driver, token) = try await Self.pay(platform, .savedCard(rank: rank), scenario: scenario, sandbox: sandbox, client: client)
                #expect(end == .idleAfterProblem, "\(scenario) \(platform)")
                #expect(driver.documents.compactMap(\.problem).first?.type == "https://api.payex.com/psp/errordetail/\(type)")
                #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
            }
        }
    }

    @Test func testdata_MagicAmount900361_IsInsufficientFunds() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (end, driver, _) = try await Self.pay(.iOS, .savedCard(rank: 3), scenario: "swedbankpay-testdata", amount: 900361,
                                                      sandbox: sandbox, client: client)
            #expect(end == .idleAfterProblem)
            #expect(driver.documents.compactMap(\.problem).first?.originalDetail == "INSUFFICIENT_FUNDS-insufficient funds, response-code: 61")
        }
    }

    @Test(arguments: SwedbankPayPlatform.allCases)
    func retryOtherInstrument_SwishDeclined_ThenSavedCardPays(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (end, driver, token) = try await Self.pay(platform, .swish(msisdn: "+46739000001"), scenario: "swedbankpay-retry-other-instrument",
                                                          sandbox: sandbox, client: client)
            #expect(end == .idleAfterProblem)
            driver.walker.choose(.savedCard(rank: 3))
            let idle = try #require(driver.lastDocument)
            end = try await driver.run(from: idle)
            #expect(end == .complete)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            let failed = try await SwedbankPayCheckoutPageTests.expanded(client, sandbox, token: token, "failedattempts")
            #expect(failed.components(separatedBy: "\"status\":\"Failed\"").count == 2, "one failed attempt: \(failed)")
            #expect(failed.contains("/swishdeclined"))
        }
    }

    // MARK: Priority 4: wallets, web-based, session end

    @Test func applePay_iOS_And_GooglePay_Android_Complete() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            for (platform, wallet) in [(SwedbankPayPlatform.iOS, SwedbankPayInstrument.applePay), (.android, .googlePay)] {
                let (end, driver, token) = try await Self.pay(platform, wallet, scenario: "swedbankpay-approve", sandbox: sandbox, client: client)
                #expect(end == .complete, "\(wallet)")
                #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
                let walletTask = driver.documents.flatMap(\.allOperations).flatMap { $0.tasks ?? [] }.first { $0.rel == .walletSdk }
                let expects = try #require(walletTask?.expects)
                if platform == .android {
                    #expect(expects.first { $0.name == "PhoneNumberRequired" }?.value == .bool(false))
                    #expect(expects.first { $0.name == "TotalPrice" }?.value == .string("15.00"))
                } else {
                    #expect(expects.first { $0.name == "SupportedNetworks" }?.value == .strings(["visa", "masterCard", "amex"]))
                }
            }
        }
    }

    @Test func webBased_CustomizeToInstrumentMode_ThenWebView() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            for platform in SwedbankPayPlatform.allCases {
                let (end, driver, _) = try await Self.pay(platform, .webBased("Trustly"), scenario: nil, sandbox: sandbox, client: client)
                guard case .webView(let href) = end else { Issue.record("\(end)"); continue }
                #expect(href.contains("/checkout/client/"))
                #expect(driver.lastDocument?.paymentSession.instrumentModePaymentMethod == "Trustly")
                #expect(driver.lastDocument?.paymentSession.methods?.map(\.paymentMethod) == ["Trustly"])
            }
        }
    }

    @Test(arguments: SwedbankPayPlatform.allCases)
    func sessionEndReached_OrderFailed_SDKReportsEndState(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let (end, _, token) = try await Self.pay(platform, .swish(msisdn: nil), scenario: "swedbankpay-session-end-reached",
                                                     sandbox: sandbox, client: client)
            #expect(end == .endStateReached)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .failed)
        }
    }

    // MARK: Transport scenarios

    @Test func serverError_StartPaymentAttemptIs500SystemErrorProblem_NothingStarted() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("server-error")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-server-error")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: .iOS, choice: nil)
            _ = try await driver.run(token: token)
            let start = try #require(driver.lastDocument?.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let response = try await driver.exchange("POST", start, body: #"{"culture":"sv-SE","msisdn":null,"client":{}}"#)
            #expect(response.status == 500)
            let error = try response.decode(SessionErrorObject.self)
            #expect(error.type == "https://api.payex.com/psp/errordetail/systemerror" && error.status == 500)
            let after = try await driver.call("GET", driver.sessionURL)
            #expect(after.allOperations.allSatisfy { $0.next == nil }, "still idle")
        }
    }

    @Test func flaky_FirstPrepareIs503_RetrySucceeds() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("flaky")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-flaky")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: .android, choice: nil)
            driver.sessionURL = "\(driver.base)/psp/paymentsessions/\(token)"
            let initial = try await driver.call("GET", driver.sessionURL)
            let prepare = try #require(initial.topLevel(.preparePayment)?.href)
            let first = try await driver.exchange("POST", prepare, body: driver.walker.prepareBody)
            #expect(first.status == 503)
            let retry = try await driver.call("POST", prepare, body: driver.walker.prepareBody)
            #expect(retry.paymentSession.methods?.isEmpty == false)
        }
    }

    @Test func slow_PrepareAndStartAnswerAfterTwoSeconds() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let clock = ContinuousClock()
            let started = clock.now
            let (end, _, _) = try await Self.pay(.iOS, .savedCard(rank: 3), scenario: "swedbankpay-slow", sandbox: sandbox, client: client)
            #expect(end == .complete)
            #expect(clock.now - started >= .seconds(6))
        }
    }
}
