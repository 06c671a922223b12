// SPDX-License-Identifier: MIT
// The 3-D Secure variants the SDKs have had bugs with (docs/swedbankpay.md, the scenario table), each a bundled scenario of card.authenticate: an
// empty 3DS method URL, a slow ACS page, the challenge answer POSTed on instead of redirected, the challenge abandoned.
// In-process; each answer decoded with the strict mirrors (swedbankpay-api.md §3.5, §3.6 C, §3.8 samples 7 and 8).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay 3-D Secure variants")
struct SwedbankPayThreeDSVariantTests {
    static func namespace(_ label: String) -> String { "spay-3ds-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// A session with a saved enrolled card's attempt (rank 1, Visa 4761739001010416) waiting in the 3DS method step.
    static func methodStep(_ sandbox: PaymentSandbox, _ client: SandboxClient, _ label: String, scenario: String,
                           platform: SwedbankPayPlatform = .iOS)
    async throws -> (driver: SwedbankPaySessionDriver, token: String, method: PaymentOutputModel) {
        let namespace = namespace(label)
        let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: scenario)
        var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform, choice: nil)
        _ = try await driver.run(token: token)
        let idle = try #require(driver.lastDocument)
        let start = try #require(idle.method("CreditCard")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
        let paymentToken = try #require(idle.method("CreditCard")?.prefills?.compactMap { prefill -> String? in
            if case .card(let card) = prefill, card.rank == 1 { return card.paymentToken }
            return nil
        }.first)
        let method = try await driver.call("POST", start, body: #"{"culture":"sv-SE","paymentToken":"\#(paymentToken)","client":{}}"#)
        return (driver, token, method)
    }

    /// create-authentication with `indicator`, as the SDK posts it (swedbankpay-api.md §3.4).
    static func createAuthentication(_ driver: inout SwedbankPaySessionDriver, _ method: PaymentOutputModel, indicator: String)
    async throws -> PaymentOutputModel {
        let create = try #require(method.topLevel(.createAuthentication))
        let notification = try #require(create.expectation("NotificationUrl")?.stringValue)
        return try await driver.call("POST", try #require(create.href), body: #"{"methodCompletionIndicator":"\#(indicator)","notificationUrl":"\#(notification)","requestWindowSize":"FULLSCREEN","client":{"userAgent":"SDK"},"browser":{}}"#)
    }

    /// The challenge step's ACS page href and creq (sample 8).
    static func scaRedirect(_ document: PaymentOutputModel) throws -> (href: String, creq: String) {
        let complete = try #require(document.topLevel(.completeAuthentication))
        #expect(complete.next == true)
        let task = try #require(complete.tasks?.first { $0.rel == .scaRedirect })
        return (try #require(task.href), try #require(task.expectation("creq")?.stringValue))
    }

    /// The ACS page as the SDK's web view loads it (a form POST of creq), and how long it took.
    static func loadACS(_ driver: SwedbankPaySessionDriver, _ href: String, creq: String) async throws -> (page: SandboxResponse, took: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let page = try await driver.exchange("POST", href, body: "creq=\(SwedbankPaySessionDriver.formEncode(creq))",
                                             contentType: "application/x-www-form-urlencoded")
        return (page, clock.now - start)
    }

    // MARK: An empty 3DS method URL

    /// swedbankpay-api.md §3.4: with an empty href Android answers U without loading anything
    /// (SwedbankPay/swedbank-pay-sdk-android: paymentsession/sca/ScaMethodService.kt `task.href.isNullOrEmpty()`), iOS
    /// fails to load "" and answers N (SwedbankPay/swedbank-pay-sdk-ios: WebView/SCAWebViewService.swift, `URL(string:)`
    /// is nil). Both must lead to the challenge.
    @Test(arguments: ["U", "N"])
    func emptyMethodURL_TaskHrefIsEmpty_EitherIndicatorGoesOnToTheChallenge(indicator: String) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "empty-\(indicator)", scenario: "swedbankpay-3ds-empty-method-url")
            let create = try #require(method.topLevel(.createAuthentication))
            #expect(create.next == true)
            let task = try #require(create.tasks?.first { $0.rel == .scaMethodRequest })
            #expect(task.href == "")
            #expect(create.expectation("methodCompletionIndicator")?.stringValue == "U", "Android needs it with NotificationUrl (§3.8 sample 7)")
            #expect(create.expectation("NotificationUrl")?.stringValue == "\(driver.base)/psp/paymentsessions/\(token)/methods/creditcard/notification")
            let challenge = try await Self.createAuthentication(&driver, method, indicator: indicator)
            let (href, creq) = try Self.scaRedirect(challenge)
            #expect(href == "\(driver.base)/acs/challenge")
            let cres = try await driver.challenge(href, creq: creq, notificationURL: try #require(create.expectation("NotificationUrl")?.stringValue),
                                                  sourceLocation: #_sourceLocation)
            let complete = try #require(challenge.topLevel(.completeAuthentication)?.href)
            let paid = try await driver.call("POST", complete, body: #"{"cRes":"\#(cres)","client":{}}"#)
            #expect(paid.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    /// The bundled scenario end to end, as each SDK walks it: no hidden method web view, then the challenge.
    @Test(arguments: SwedbankPayPlatform.allCases)
    func emptyMethodURL_SDKWalk_SkipsTheMethodRequest_ChallengeApproved_Completes(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let namespace = Self.namespace("empty-walk")
            let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, scenario: "swedbankpay-3ds-empty-method-url")
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: client, namespace: namespace, platform: platform,
                                                  choice: .savedCard(rank: 2))
            #expect(try await driver.run(token: token) == .complete)
            #expect(!driver.steps.contains { $0.hasPrefix("methodRequest") }, "\(driver.steps)")
            #expect(driver.steps.contains { $0.hasPrefix("challenge") }, "\(driver.steps)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    // MARK: A slow ACS page

    /// The first load waits `acs_delay_ms`; the retry Android offers after its 10 s timeout (ScaRedirectFragment.kt,
    /// PaymentSession3DSecureFragmentLoadFailed) answers at once; the challenge then completes as usual.
    @Test func slowACS_FirstLoadWaits_TheReloadAnswersAtOnce_ThenApproveCompletes() async throws {
        let scenario = """
            {"name": "test-3ds-slow-acs-short", "description": "A slow ACS page, 1.5 s.",
             "rules": [{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_slow_acs", "acs_delay_ms": 1500}]}
            """
        try await withSwedbankPaySandbox(extraScenarios: ["slow-acs.json": scenario]) { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "slow", scenario: "test-3ds-slow-acs-short", platform: .android)
            let challenge = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let (href, creq) = try Self.scaRedirect(challenge)
            let first = try await Self.loadACS(driver, href, creq: creq)
            #expect(first.page.status == 200 && CheckoutPageClient.mainID(first.page.text) == "acs-challenge")
            #expect(first.took >= .milliseconds(1500), "\(first.took)")
            let second = try await Self.loadACS(driver, href, creq: creq)
            #expect(second.page.status == 200 && CheckoutPageClient.mainID(second.page.text) == "acs-challenge")
            #expect(second.took < .milliseconds(1500), "\(second.took)")
            let notification = "\(driver.base)/psp/paymentsessions/\(token)/methods/creditcard/notification"
            let cres = try await driver.challenge(href, creq: creq, notificationURL: notification, sourceLocation: #_sourceLocation)
            let paid = try await driver.call("POST", try #require(challenge.topLevel(.completeAuthentication)?.href), body: #"{"cRes":"\#(cres)"}"#)
            #expect(paid.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.completeUrl)
        }
    }

    /// The bundled scenario: the first load takes 12 s, past Android's 10 s and within the 30 s iOS's web view allows
    /// (SwedbankPay/swedbank-pay-sdk-ios: SwedbankPayAPIConstants.swift creditCardTimoutInterval); then Approve completes.
    @Test func slowACS_Bundled_FirstLoadTakesTwelveSeconds_ThenApproveCompletes() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "slow-bundled", scenario: "swedbankpay-3ds-slow-acs")
            let challenge = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let (href, creq) = try Self.scaRedirect(challenge)
            let body = "creq=\(SwedbankPaySessionDriver.formEncode(creq))"
            let clock = ContinuousClock()
            let start = clock.now
            let page = try await driver.exchange("POST", href, body: body, contentType: "application/x-www-form-urlencoded")
            let took = clock.now - start
            #expect(page.status == 200 && CheckoutPageClient.mainID(page.text) == "acs-challenge")
            // The scenario's delay is 12 s (scenarios/swedbankpay/3ds-slow-acs.json); what a loaded machine adds on top
            // (ThreadSanitizer, parallel suites) is no part of it, so only the lower bound is the scenario's.
            #expect(took >= .seconds(12), "\(took)")
            let notification = "\(driver.base)/psp/paymentsessions/\(token)/methods/creditcard/notification"
            let cres = try await driver.challenge(href, creq: creq, notificationURL: notification, sourceLocation: #_sourceLocation)
            let paid = try await driver.call("POST", try #require(challenge.topLevel(.completeAuthentication)?.href), body: #"{"cRes":"\#(cres)"}"#)
            #expect(paid.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    // MARK: The challenge answer POSTed on instead of redirected

    /// NotificationUrl answers the ACS's POST with a form that posts cres on (no 303 with cres in the query). iOS has read
    /// cres from the POST to NotificationUrl (WebView/SwedbankPaySCAWebViewController.swift) and completes.
    @Test func cresPosted_NotificationAnswersAFormPost_iOSCompletesWithTheCresItPosted() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "posted-ios", scenario: "swedbankpay-3ds-cres-posted")
            let challenge = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let (href, creq) = try Self.scaRedirect(challenge)
            let acs = try await Self.loadACS(driver, href, creq: creq).page.text
            let approve = try #require(CheckoutPageClient.form(containing: #"id="acs-approve""#, in: acs))
            let notification = "\(driver.base)/psp/paymentsessions/\(token)/methods/creditcard/notification"
            #expect(approve.action == notification)
            let cres = try #require(approve.fields.first { $0.0 == "cres" }?.1)
            let posted = try await driver.exchange("POST", notification, body: "cres=\(SwedbankPaySessionDriver.formEncode(cres))",
                                                   contentType: "application/x-www-form-urlencoded")
            #expect(posted.status == 200 && posted.header("Location") == nil)
            #expect(CheckoutPageClient.mainID(posted.text) == "acs-post-on")
            let onward = try #require(CheckoutPageClient.form(containing: #"id="post-on-continue""#, in: posted.text))
            #expect(onward.action == "https://fake.payex.com/notification")
            #expect(onward.fields.count == 1 && onward.fields.first?.0 == "cres" && onward.fields.first?.1 == cres)
            #expect(posted.text.contains(#"document.getElementById("post-on-form").submit()"#))
            let paid = try await driver.call("POST", try #require(challenge.topLevel(.completeAuthentication)?.href), body: #"{"cRes":"\#(cres)"}"#)
            #expect(paid.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    /// Android reads cres only from the query of a navigation to https://fake.payex.com/notification
    /// (paymentsession/sca/ScaRedirectFragment.kt) and WebView does not ask about POSTs: no cres reaches the SDK. The
    /// session keeps the challenge (the same creq, which the SDK will not show again) until the app aborts.
    @Test func cresPosted_AndroidNeverGetsTheCres_TheSessionKeepsTheChallenge_AbortCancels() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "posted-android", scenario: "swedbankpay-3ds-cres-posted",
                                                                    platform: .android)
            let challenge = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let (href, creq) = try Self.scaRedirect(challenge)
            let acs = try await Self.loadACS(driver, href, creq: creq).page.text
            let approve = try #require(CheckoutPageClient.form(containing: #"id="acs-approve""#, in: acs))
            let posted = try await driver.exchange("POST", approve.action, body: "cres=\(SwedbankPaySessionDriver.formEncode(approve.fields[0].1))",
                                                   contentType: "application/x-www-form-urlencoded")
            #expect(posted.header("Location") == nil, "no navigation with cres in its query")
            let onward = try #require(CheckoutPageClient.form(containing: #"id="post-on-continue""#, in: posted.text))
            #expect(!onward.action.contains("cres="))
            let again = try await driver.call("GET", driver.sessionURL)
            #expect(try Self.scaRedirect(again).creq == creq)
            let abort = try #require(again.topLevel(.abortPayment)?.href)
            let cancelled = try await driver.call("POST", abort)
            #expect(cancelled.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.cancelUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .aborted)
        }
    }

    /// A card typed on the checkout page: after the challenge the end reaches the merchant as a form POST to completeUrl
    /// (no 303 to a GET); a cancelled challenge shows its problem on the menu as usual.
    @Test func cresPosted_CheckoutPage_ApprovedPostsToCompleteUrl_CancelShowsTheProblem() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await SwedbankPayCheckoutPageTests.order(client, "posted-page", scenario: "swedbankpay-3ds-cres-posted")
            func challenge() async throws -> String {
                let submitted = try await browser.post("\(page)/card", [("pan", "4761739001010416"), ("expiry", "12/33"), ("cvc", "123")])
                #expect(submitted.status == 303)
                return try await browser.get(browser.path(try #require(submitted.header("Location")))).text
            }
            let cancel = try #require(CheckoutPageClient.form(containing: #"id="acs-cancel""#, in: try await challenge()))
            let declined = try await browser.post(browser.path(cancel.action), cancel.fields)
            #expect(declined.status == 200 && CheckoutPageClient.mainID(declined.text) == "swedbankpay-checkout")
            #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: declined.text)
                    == "https://api.payex.com/psp/errordetail/creditcard/3dsecuredeclined")
            let approve = try #require(CheckoutPageClient.form(containing: #"id="acs-approve""#, in: try await challenge()))
            let done = try await browser.post(browser.path(approve.action), approve.fields)
            #expect(done.status == 200 && done.header("Location") == nil)
            #expect(CheckoutPageClient.mainID(done.text) == "acs-post-on")
            let onward = try #require(CheckoutPageClient.form(containing: #"id="post-on-continue""#, in: done.text))
            #expect(onward.action == SwedbankPayTestOrder.completeUrl && onward.fields.isEmpty)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    /// The page that posts on carries the merchant's completeUrl (checked when the order was created, MerchantURL) and,
    /// on NotificationUrl, whatever cres the browser posted: both as escaped attribute values, never as markup.
    @Test func cresPosted_PostOnPage_EscapesTheHostileCompleteUrl_AndAPostedCres() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            typealias Escaping = SwedbankPayCheckoutPageEscapingTests
            let browser = CheckoutPageClient(client)
            let texts = Escaping.Texts()
            let (_, token, page) = try await Escaping.order(client, "posted", texts, scenario: "swedbankpay-3ds-cres-posted")
            let submitted = try await browser.post("\(page)/card", [("pan", "4761739001010416"), ("expiry", "12/33"), ("cvc", "123")])
            let challenge = try await browser.get(browser.path(try #require(submitted.header("Location")))).text
            let approve = try #require(CheckoutPageClient.form(containing: #"id="acs-approve""#, in: challenge))
            let done = try await browser.post(browser.path(approve.action), approve.fields).text
            #expect(CheckoutPageClient.mainID(done) == "acs-post-on")
            Escaping.expectInert(done, texts.all, "post on to completeUrl")
            #expect(Escaping.rawAttribute("action", after: "<form", in: done) == Escaping.escaped(texts.completeUrl))
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)

            // The SDK flow: a session waiting in a cres_posted challenge, and a hostile cres posted to NotificationUrl.
            var (driver, sdkToken, method) = try await Self.methodStep(sandbox, client, "posted-escape", scenario: "swedbankpay-3ds-cres-posted")
            _ = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let hostile = Escaping.payload("cres")
            let posted = try await driver.exchange("POST", "/psp/paymentsessions/\(sdkToken)/methods/creditcard/notification",
                                                   body: "cres=\(SwedbankPaySessionDriver.formEncode(hostile))",
                                                   contentType: "application/x-www-form-urlencoded")
            #expect(posted.status == 200 && CheckoutPageClient.mainID(posted.text) == "acs-post-on")
            Escaping.expectInert(posted.text, [hostile], "post on to fake.payex.com")
            #expect(Escaping.rawAttribute("value", after: #"name="cres""#, in: posted.text) == Escaping.escaped(hostile))
        }
    }

    // MARK: The challenge abandoned

    /// The payer closes the challenge once it is shown: the next call of the session (the app's GET, as
    /// fetchPaymentSession does) reports the failed attempt with its acknowledgement, in an idle session where a new
    /// attempt may start; the cres of a late answer is refused 409 (the SDKs then GET the session, §3.2).
    @Test(arguments: SwedbankPayPlatform.allCases)
    func abandoned_AfterTheACSPageIsShown_TheSessionReports3DSecureUserCancelled_ANewAttemptMayStart(platform: SwedbankPayPlatform) async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "abandoned", scenario: "swedbankpay-3ds-abandoned", platform: platform)
            let challenge = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let (href, creq) = try Self.scaRedirect(challenge)
            // Not yet shown: nothing is abandoned.
            let waiting = try await driver.call("GET", driver.sessionURL)
            #expect(try Self.scaRedirect(waiting).creq == creq && waiting.problem == nil)
            let acs = try await Self.loadACS(driver, href, creq: creq).page.text
            #expect(CheckoutPageClient.mainID(acs) == "acs-challenge")
            let approve = try #require(CheckoutPageClient.form(containing: #"id="acs-approve""#, in: acs))
            let after = try await driver.call("GET", driver.sessionURL)
            let problem = try #require(after.problem)
            #expect(problem.type == "https://api.payex.com/psp/errordetail/creditcard/3dsecureusercancelled" && problem.status == 403)
            #expect(problem.operation?.rel == .acknowledgeFailedAttempt)
            #expect(!after.allOperations.contains { $0.rel == .completeAuthentication || $0.rel == .createAuthentication })
            #expect(after.method("CreditCard")?.operations.contains { $0.rel == .startPaymentAttempt } == true)
            #expect(after.method("Swish")?.operations.contains { $0.rel == .startPaymentAttempt } == true)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
            #expect(try await SwedbankPaySessionEdgeTests.failedAttempts(client, sandbox, token) == ["Aborted"])
            // The ACS page is gone, and a late answer is refused.
            #expect(try await Self.loadACS(driver, href, creq: creq).page.status == 400)
            let late = try await driver.exchange("POST", try #require(challenge.topLevel(.completeAuthentication)?.href),
                                                 body: #"{"cRes":"\#(approve.fields[0].1)"}"#)
            #expect(late.status == 409)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }

    /// `after_ms` on the namespace clock: before it the payer may still answer; after it the session reports the problem.
    @Test func abandoned_AfterMs_CountsOnTheNamespaceClock() async throws {
        let scenario = """
            {"name": "test-3ds-abandoned-later", "description": "The ACS gives up a minute after its page was shown.",
             "rules": [{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_abandoned", "after_ms": 60000}]}
            """
        try await withSwedbankPaySandbox(extraScenarios: ["abandoned-later.json": scenario]) { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "abandoned-later", scenario: "test-3ds-abandoned-later")
            let challenge = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let (href, creq) = try Self.scaRedirect(challenge)
            _ = try await Self.loadACS(driver, href, creq: creq)
            sandbox.registry.advance(Namespace(driver.namespace), by: 59)
            let before = try await driver.call("GET", driver.sessionURL)
            #expect(before.problem == nil)
            #expect(try Self.scaRedirect(before).creq == creq)
            sandbox.registry.advance(Namespace(driver.namespace), by: 2)
            let after = try await driver.call("GET", driver.sessionURL)
            #expect(after.problem?.type == "https://api.payex.com/psp/errordetail/creditcard/3dsecureusercancelled")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }

    /// The iOS app that aborts when the payer closes the 3-D Secure view: abort-payment cancels, the abandoned attempt
    /// stays in the order's failed attempts.
    @Test func abandoned_ThenAbortPayment_Canceled() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            var (driver, token, method) = try await Self.methodStep(sandbox, client, "abandoned-abort", scenario: "swedbankpay-3ds-abandoned")
            let challenge = try await Self.createAuthentication(&driver, method, indicator: "Y")
            let (href, creq) = try Self.scaRedirect(challenge)
            _ = try await Self.loadACS(driver, href, creq: creq)
            let cancelled = try await driver.call("POST", try #require(challenge.topLevel(.abortPayment)?.href))
            #expect(cancelled.topLevel(.redirectPayer)?.href == SwedbankPayTestOrder.cancelUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .aborted)
            #expect(try await SwedbankPaySessionEdgeTests.failedAttempts(client, sandbox, token).first == "Aborted")
        }
    }

    /// On the checkout page the payer leaves the ACS page and comes back to the menu: it shows the problem.
    @Test func abandoned_CheckoutPage_BackToTheMenu_ShowsTheProblem() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await SwedbankPayCheckoutPageTests.order(client, "abandoned-page", scenario: "swedbankpay-3ds-abandoned")
            let submitted = try await browser.post("\(page)/card", [("pan", "4761739001010416"), ("expiry", "12/33"), ("cvc", "123")])
            let acs = try await browser.get(browser.path(try #require(submitted.header("Location"))))
            #expect(CheckoutPageClient.mainID(acs.text) == "acs-challenge")
            let menu = try await browser.get(page)
            #expect(menu.status == 200 && CheckoutPageClient.mainID(menu.text) == "swedbankpay-checkout")
            #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: menu.text)
                    == "https://api.payex.com/psp/errordetail/creditcard/3dsecureusercancelled")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }
}
