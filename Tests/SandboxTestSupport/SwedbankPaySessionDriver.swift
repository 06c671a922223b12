// SPDX-License-Identifier: MIT
// Runs the SDK walker against a sandbox through a SandboxClient (in-process: no socket): every answer of the session
// API is decoded with the strict mirrors and checked against the invariants of swedbankpay-api.md §3.5, §3.6, §3.9.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SwedbankPaySandbox
import Testing

/// A payment order created the way a merchant backend does it: POST /psp/paymentorders with a Bearer token and the
/// 3.1 media type (swedbankpay-api.md §1.1, §1.2); the app then gets the `view-paymentsession` href (§3.1).
package struct SwedbankPayTestOrder {
    package static let completeUrl = "https://example.com/payment-completed?order=1"
    package static let cancelUrl = "https://example.com/payment-cancelled"

    /// Returns the session token (the `view-paymentsession` href is `<base>/psp/paymentsessions/<token>`).
    /// `payerFields` are added to `payer` (firstName, email, ...); `urls` replaces completeUrl / cancelUrl.
    package static func create(_ client: SandboxClient, namespace: String, description: String = "Test Purchase", amount: Int = 1500,
                       currency: String = "SEK", payerReference: String? = "payer-1", msisdn: String? = "+46739000001",
                       payerFields: [(String, String)] = [], payeeName: String = "Merchant1",
                       urls: (complete: String, cancel: String) = (completeUrl, cancelUrl),
                       instrument: String? = nil, scenario: String? = nil, operation: String = "Purchase",
                       extra: [(String, JSONText)] = [], sourceLocation: SourceLocation = #_sourceLocation)
    async throws -> String {
        var payer: [(String, JSONText)] = []
        if let payerReference { payer.append(("payerReference", .string(payerReference))) }
        for (name, value) in payerFields { payer.append((name, .string(value))) }
        if let msisdn { payer.append(("msisdn", .string(msisdn))) }
        // A Verify order has no amounts (the developer portal's Verify page).
        let amounts: [(String, JSONText)] = operation == "Verify" ? [] : [("amount", .int(amount)), ("vatAmount", .int(0))]
        var order: [(String, JSONText)] = [("operation", .string(operation)), ("currency", .string(currency))] + amounts + [
            ("description", .string(description)), ("userAgent", .string("Mozilla/5.0")), ("language", .string("sv-SE")),
            ("productName", .string("Checkout3")),
            ("urls", .object([("hostUrls", .array([.string("https://example.com")])), ("completeUrl", .string(urls.complete)),
                              ("cancelUrl", .string(urls.cancel)), ("paymentUrl", .string("https://example.com/perform-payment")),
                              ("termsOfServiceUrl", .string("https://example.com/terms.pdf"))])),
            ("payeeInfo", .object([("payeeId", .string("5cabf558-5283-482f-b252-4d58e06f6f3b")),
                                   ("payeeReference", .string("ref\(UUID().uuidString.prefix(8))")), ("payeeName", .string(payeeName))])),
        ]
        if !payer.isEmpty { order.append(("payer", .object(payer))) }
        if let instrument { order.append(("instrument", .string(instrument))) }
        order += extra
        let body = String(decoding: JSONText.object([("paymentorder", .object(order))]).bytes, as: UTF8.self)
        var headers = ["Authorization": "Bearer \(namespace)", "Content-Type": "application/json;version=3.1",
                       "Accept": "application/json;version=3.1"]
        if let scenario { headers["Sandbox-Scenario"] = scenario }
        let response = try await client.namespace(namespace).send(.post, "/psp/paymentorders", headers: headers, body: Data(body.utf8))
        try #require(response.status == .ok, "create order: \(response)", sourceLocation: sourceLocation)
        let operations = try #require(response.jsonObject()?["operations"] as? [[String: Any]], sourceLocation: sourceLocation)
        let href = try #require(operations.first { $0["rel"] as? String == "view-paymentsession" }?["href"] as? String,
                                "no view-paymentsession in \(response.text)", sourceLocation: sourceLocation)
        let prefix = "\(client.baseURL.absoluteString)/psp/paymentsessions/"
        try #require(href.hasPrefix(prefix), "view-paymentsession \(href)", sourceLocation: sourceLocation)
        return String(href.dropFirst(prefix.count))
    }

    package static func status(_ sandbox: PaymentSandbox, token: String) -> SwedbankPayOrderStatus? {
        guard let (namespace, orderID) = sandbox.swedbankPayOrders.lookup(token: token) else { return nil }
        return sandbox.swedbankPayOrders.snapshot(namespace, orderID: orderID)?.status
    }
}

/// Plays one SDK against one session.
package struct SwedbankPaySessionDriver {
    package let sandbox: PaymentSandbox
    /// The app's client: no namespace of its own (the SDK sends none; the sandbox finds the order's by its token).
    package let client: SandboxClient
    package let namespace: String
    package var walker: SwedbankPaySDKWalker
    /// The ACS button the payer presses.
    package var challengeButton = "acs-approve"
    /// Every decoded answer, in order.
    package var documents: [PaymentOutputModel] = []
    package var steps: [String] = []
    package var launchedApps: [String] = []
    package var sessionURL = ""
    package var acknowledged: Set<String> = []
    package var lastDocument: PaymentOutputModel?
    /// The last customize-payment asked for a restricted menu: `methods` may then be fewer than `enabledPaymentMethods`.
    package var restricted = false
    /// Recovery GETs made after a 409 (swedbankpay-api.md §3.2).
    package var recoveryGets = 0

    package init(sandbox: PaymentSandbox, client: SandboxClient, namespace: String, platform: SwedbankPayPlatform, choice: SwedbankPayInstrument?) {
        self.sandbox = sandbox
        self.client = client.namespace(nil)
        self.namespace = namespace
        walker = SwedbankPaySDKWalker(platform: platform, choice: choice)
    }

    package var base: String { client.baseURL.absoluteString }

    package func path(_ href: String) throws -> String {
        try #require(href.hasPrefix(base), "href \(href) is not on the sandbox \(base)")
        return String(href.dropFirst(base.count))
    }

    /// One HTTP exchange as the SDK sends it: JSON headers on every call, no auth (swedbankpay-api.md §3.2). Every
    /// error of the session API must be a body both SDKs decode: `type` and `status` (iOS ErrorObject, §3.3).
    package func exchange(_ method: String, _ href: String, body: String? = nil, contentType: String = "application/json",
                  sourceLocation: SourceLocation = #_sourceLocation) async throws -> SandboxResponse {
        let target = href.hasPrefix("http") ? try path(href) : href
        let response = try await client.send(SandboxClient.Method(method), target,
                                             headers: ["Accept": "application/json", "Content-Type": contentType], body: Data((body ?? "").utf8))
        if response.status.code >= 400, target.hasPrefix("/psp/") {
            let error = try? response.decode(SessionErrorObject.self)
            #expect(error?.status == response.status.code && error?.type.hasPrefix("https://api.payex.com/psp/errordetail/") == true,
                    "\(method) \(href): \(response.status) is not a problem the SDKs decode: \(response.text)", sourceLocation: sourceLocation)
        }
        return response
    }

    /// A session-API call whose answer must be the envelope (200, decodable, invariants).
    package mutating func call(_ method: String, _ href: String, body: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
    async throws -> PaymentOutputModel {
        try decoded(try await exchange(method, href, body: body), method, href, sourceLocation: sourceLocation)
    }

    /// Checks and decodes one answer of the session API.
    package mutating func decoded(_ response: SandboxResponse, _ method: String, _ href: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> PaymentOutputModel {
        try #require(response.status == .ok, "\(method) \(href): \(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        let document: PaymentOutputModel
        do {
            document = try SwedbankPayMirror.decode(Array(response.body))
        } catch {
            Issue.record("\(method) \(href): the SDK mirror cannot decode the answer: \(error)\n\(response.text)", sourceLocation: sourceLocation)
            throw error
        }
        checkInvariants(document, sourceLocation: sourceLocation)
        walker.beginPass()
        documents.append(document)
        lastDocument = document
        return document
    }

    package func checkInvariants(_ document: PaymentOutputModel, sourceLocation: SourceLocation) {
        let all = document.allOperations
        let nextCount = all.filter { $0.next == true }.count
        #expect(nextCount <= 1, "exactly one next op, found \(nextCount)", sourceLocation: sourceLocation)
        if nextCount == 0 {
            #expect(!all.contains { $0.rel == .getPayment || $0.rel == .redirectPayer }, "idle has no get-payment / redirect-payer",
                    sourceLocation: sourceLocation)
        }
        let urls = document.paymentSession.urls
        #expect(urls?.completeUrl?.string == SwedbankPayTestOrder.completeUrl, sourceLocation: sourceLocation)
        #expect(urls?.hostUrls?.isEmpty == false, sourceLocation: sourceLocation)
        for redirect in all where redirect.rel == .redirectPayer {
            let allowed = [urls?.completeUrl?.string, urls?.cancelUrl?.string, sessionURL + "/ended"]
            #expect(allowed.contains(redirect.href), "redirect-payer \(redirect.href ?? "nil")", sourceLocation: sourceLocation)
        }
        // enabledPaymentMethods names every method of an unrestricted menu, in order; a restricted menu or instrument
        // mode shows fewer methods but keeps enabledPaymentMethods whole (§3.5: the SDKs compare the two).
        if let methods = document.paymentSession.methods?.map(\.paymentMethod), !methods.isEmpty {
            let enabled = document.paymentSession.settings?.enabledPaymentMethods ?? []
            if document.paymentSession.instrumentModePaymentMethod == nil && !restricted {
                #expect(enabled == methods, sourceLocation: sourceLocation)
            } else {
                #expect(Set(methods).isSubset(of: enabled), "methods \(methods) outside enabled \(enabled)", sourceLocation: sourceLocation)
            }
        }
        if let problem = document.problem {
            #expect(problem.operation?.rel == .acknowledgeFailedAttempt, sourceLocation: sourceLocation)
            #expect(!acknowledged.contains(problem.operation?.href ?? ""), "an acknowledged problem came back", sourceLocation: sourceLocation)
        }
        for task in all.flatMap({ $0.tasks ?? [] }) {
            switch task.rel {
            case .launchClientApp:
                #expect(task.href?.hasPrefix("swish:") == true && task.href?.contains("?") == true, sourceLocation: sourceLocation)
            case .scaRedirect:
                #expect(task.expectation("creq")?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
            default: break
            }
        }
        if let create = all.first(where: { $0.rel == .createAuthentication }) {
            #expect(create.expectation("NotificationUrl") != nil && create.expectation("methodCompletionIndicator") != nil,
                    sourceLocation: sourceLocation)
        }
        #expect(document.topLevel(.viewPayment) != nil || document.topLevel(.redirectPayer) != nil, sourceLocation: sourceLocation)
    }

    /// Runs the SDK loop from `document` (or the session URL's first GET) until the session ends or idles.
    package mutating func run(token: String? = nil, from start: PaymentOutputModel? = nil, maxSteps: Int = 40,
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> SwedbankPaySessionEnd {
        var document: PaymentOutputModel
        if let start {
            document = start
        } else {
            let token = try #require(token)
            sessionURL = "\(base)/psp/paymentsessions/\(token)"
            document = try await call("GET", sessionURL, sourceLocation: sourceLocation)
            #expect(document.paymentSession.urls?.paymentUrl != nil && document.paymentSession.urls?.cancelUrl != nil)
        }
        // iOS acknowledges a problem and goes on with the same answer; the ack's own answer, if it decodes, goes through
        // sessionOperationHandling again (a second pass, processed here after the first one).
        var ackAnswers: [PaymentOutputModel] = []
        var pendingStep: SwedbankPayWalkerStep?
        for _ in 0..<maxSteps {
            let step = pendingStep ?? walker.next(document)
            pendingStep = nil
            steps.append("\(step)")
            switch step {
            case .acknowledge(let href, _):
                acknowledged.insert(href)
                let response = try await exchange("POST", href, sourceLocation: sourceLocation)
                switch walker.platform {
                case .iOS:
                    // 200–204 is success; a body that decodes as PaymentOutputModel is handled again, one that does not is
                    // dropped; anything else is paymentSessionAPIRequestFailed (SwedbankPayAPIEndpointRouter.swift).
                    guard (200...204).contains(response.status.code) else {
                        Issue.record("iOS would report paymentSessionAPIRequestFailed for the ack's \(response.status)", sourceLocation: sourceLocation)
                        return .endStateReached
                    }
                    if let answer = try? SwedbankPayMirror.decode(Array(response.body)) {
                        checkInvariants(answer, sourceLocation: sourceLocation)
                        ackAnswers.append(answer)
                    }
                case .android:
                    // The ack goes on the side (postFailedAttemptRequest); ProblemOccurred waits for the app: the loop stops.
                    #expect((200...204).contains(response.status.code), "ack: \(response.status)", sourceLocation: sourceLocation)
                    return .idleAfterProblem
                }
            case .reacknowledge(let href):
                let response = try await exchange("POST", href, sourceLocation: sourceLocation)
                #expect((200...204).contains(response.status.code), "repeated ack: \(response.status)", sourceLocation: sourceLocation)
            case .post(let href, let body):
                if href.hasSuffix("/customizepayment") {
                    restricted = !body.contains(#""restrictToPaymentMethods":null"#)
                }
                let response = try await exchange("POST", href, body: body, sourceLocation: sourceLocation)
                if response.status == 409, href.hasSuffix("/abortpayment") { return .abortNotAllowed }
                if response.status == 409 {
                    // Any other 409: one recovery GET of the session URL, then the next step from its answer (§3.2).
                    recoveryGets += 1
                    document = try await call("GET", sessionURL, sourceLocation: sourceLocation)
                    continue
                }
                document = try decoded(response, "POST", href, sourceLocation: sourceLocation)
            case .poll(let href):
                sandbox.registry.advance(Namespace(namespace), by: 2)
                document = try await call("GET", href, sourceLocation: sourceLocation)
            case .launchApp(let url):
                launchedApps.append(url)
            case .methodRequest(let href, let fields):
                let form = fields.map { "\($0.0)=\(Self.formEncode($0.1))" }.joined(separator: "&")
                let response = try await exchange("POST", href, body: form, contentType: "application/x-www-form-urlencoded")
                walker.methodCompletionIndicator = response.status == .ok ? "Y" : "N"
            case .challenge(let href, let creq, let notificationURL):
                walker.cres = try await challenge(href, creq: creq, notificationURL: notificationURL, sourceLocation: sourceLocation)
            case .presentWallet(let href, let method):
                walker.instrument = nil
                let payload = Data(#"{"paymentData":"sandbox"}"#.utf8).base64EncodedString()
                document = try await call("POST", href, body: #"{"paymentMethod":"\#(method)","paymentPayload":"\#(payload)"}"#,
                                          sourceLocation: sourceLocation)
                #expect(!document.allOperations.contains { $0.tasks?.contains { $0.rel == .walletSdk } == true },
                        "attempt-payload must not repeat the wallet-sdk task", sourceLocation: sourceLocation)
            case .instrumentsShown:
                continue
            case .end(let end):
                if !ackAnswers.isEmpty {
                    document = ackAnswers.removeFirst()
                    walker.beginPass()
                    let second = walker.next(document)
                    if case .end(.endStateReached) = second {
                        Issue.record(Comment(rawValue: "iOS handles the acknowledge-failed-attempt answer again and reports "
                                     + "paymentSessionEndStateReached: an app that treats it as final ends the session after the decline"),
                                     sourceLocation: sourceLocation)
                        return .endStateReached
                    }
                    // Not a terminal step: go on from this answer as iOS would.
                    pendingStep = second
                    continue
                }
                return end
            }
        }
        Issue.record("the session did not end within \(maxSteps) steps: \(steps)", sourceLocation: sourceLocation)
        return .endStateReached
    }

    /// The ACS page as the SDK's web view shows it: POST the creq, press the button, follow the form to NotificationUrl
    /// and read cres from the 303 to https://fake.payex.com/notification (Android) — the same as the POST body (iOS).
    package func challenge(_ href: String, creq: String, notificationURL: String, sourceLocation: SourceLocation) async throws -> String {
        let page = try await exchange("POST", href, body: "creq=\(Self.formEncode(creq))", contentType: "application/x-www-form-urlencoded")
        try #require(page.status == .ok, "ACS page: \(page.text)", sourceLocation: sourceLocation)
        let html = page.text
        let button = try #require(html.range(of: #"id="\#(challengeButton)""#), "no \(challengeButton) in \(html)", sourceLocation: sourceLocation)
        let formStart = try #require(html.range(of: "<form", options: .backwards, range: html.startIndex..<button.lowerBound))
        let form = String(html[formStart.lowerBound..<button.lowerBound])
        let action = try #require(Self.attribute("action", in: form))
        let cres = try #require(Self.attribute("value", in: form))
        #expect(action == notificationURL, "the ACS posts to the exact NotificationUrl", sourceLocation: sourceLocation)
        let trampoline = try await exchange("POST", action, body: "cres=\(Self.formEncode(cres))", contentType: "application/x-www-form-urlencoded")
        #expect(trampoline.status == 303, sourceLocation: sourceLocation)
        let location = try #require(trampoline.header("Location"), sourceLocation: sourceLocation)
        #expect(location.hasPrefix("https://fake.payex.com/notification?cres="), sourceLocation: sourceLocation)
        let fromQuery = URLComponents(string: location)?.queryItems?.first { $0.name == "cres" }?.value
        #expect(fromQuery == cres, sourceLocation: sourceLocation)
        return cres
    }

    package static func attribute(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "\(name)=\"") else { return nil }
        let rest = html[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    package static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
