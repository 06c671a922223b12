// SPDX-License-Identifier: MIT
import Foundation

/// The Swedbank Pay pages a browser or an SDK's web view shows: the payment menu with the
/// new-card form (`redirect-checkout`, and inside the view-checkout iframe), the Swish waiting page, the result
/// page, the 3-D Secure challenge (ACS emulator) and the view-checkout script. Self-contained (inline CSS, no
/// external assets), readable at 390 px; every merchant-supplied text is escaped by code point (HTMLText.escape in
/// text and double-quoted attributes, HTMLText.scriptJSON in scripts), and its URLs passed MerchantURL when the order
/// was created. Scripts only where the hosted-view contract needs them (swedbankpay-api.md §3.7): the result page's
/// postMessage and the script itself.
///
/// HTML contract (for browser tests):
/// - menu: `<main id="swedbankpay-checkout" data-token data-status data-embed="0|1">`; `#order-summary` with
///   `#payee-name`, `#order-description`, `#total-amount` (`data-minor-units`, `data-currency`); after a failed
///   attempt `#attempt-error` (`data-problem-type`); `#methods` with `section.method[data-method]`:
///   CreditCard: `form.saved-card-form` / `button.pay-saved-card[data-masked-pan]`, `form#card-form` with
///   `#card-number`, `#card-expiry` (MM/YY), `#card-cvc`, `#pay-card`, and `#card-error` when the input is wrong (400);
///   Swish: `form#swish-form`, `#swish-msisdn`, `#pay-swish`; web-based: `form.web-form[data-method=X]`, `#ssn-X`,
///   `#pay-X`. `#cancel-payment` aborts.
/// - Swish waiting: `<main id="swish-waiting">`, reloads itself every 2 s.
/// - result (embedded): `<main id="result" data-status="Paid|Aborted|Failed">`, `#continue`; posts
///   `{source: "swedbankpay-sandbox", event: "paid|aborted|failed", paymentOrder: {id}, redirectUrl}` to the parent.
/// - unavailable: `<main id="swedbankpay-unavailable" data-reason="paid|aborted|failed|not_found">`.
/// - error (a scenario's server error, an operation the state does not allow): `<main id="swedbankpay-error"
///   data-problem-type>` with the problem's status.
/// - ACS: `<main id="acs-challenge" data-acs-trans-id>`, `#acs-merchant`, `#acs-amount`, `#acs-card`, buttons
///   `#acs-approve` / `#acs-cancel` (one form each, posting `cres`); `<main id="acs-error">` (400) for a bad creq.
/// - post on (`challenge_cres_posted`): `<main id="acs-post-on">` with `form#post-on-form` (method post, the answer's
///   fields hidden) that its script submits at once, and `#post-on-continue`.
enum CheckoutPage {
    /// The actions keep `?embed=1` for the iframe.
    static func query(_ mode: CheckoutPageMode) -> String { mode == .embedded ? "?embed=1" : "" }

    // MARK: The payment menu

    static func menu(_ document: PaymentSessionDocument, mode: CheckoutPageMode, cardError: String? = nil) -> String {
        let view = document.view
        let token = HTMLText.escape(document.record.token)
        let query = query(mode)
        let total = HTMLText.escape(HTMLText.money(view.amount, view.currency))
        var sections = ""
        for method in document.pageMethods {
            let name = HTMLText.escape(method)
            switch SessionMethod(rawValue: method) {
            case .creditCard?: sections += cardSection(document, name: name, token: token, query: query, total: total, cardError: cardError)
            case .swish?: sections += swishSection(document, name: name, token: token, query: query)
            default: sections += webSection(name: name, token: token, query: query)
            }
        }
        return page(title: "Swedbank Pay", body: """
            <main id="swedbankpay-checkout" data-token="\(token)" data-status="\(view.status.rawValue)" data-embed="\(mode == .embedded ? "1" : "0")">
            \(banner)
            <section id="order-summary">
            <h1 id="payee-name">\(HTMLText.escape(view.payeeInfo.payeeName ?? ""))</h1>
            <p id="order-description">\(HTMLText.escape(view.description))</p>
            <p class="total">Total <strong id="total-amount" data-minor-units="\(view.amount)" data-currency="\(HTMLText.escape(view.currency))">\(total)</strong></p>
            </section>
            \(attemptError(document))<div id="methods">
            \(sections)</div>
            <form id="cancel-form" method="post" action="/checkout/\(token)/abort\(query)"><button id="cancel-payment" type="submit">Cancel payment</button></form>
            </main>
            """)
    }

    /// The card method: the payer's saved cards, then the new-card form (with the input's error after a 400).
    private static func cardSection(_ document: PaymentSessionDocument, name: String, token: String, query: String, total: String,
                                    cardError: String?) -> String {
        let saved = document.savedCards.map { savedCardForm($0, token: token, query: query) }.joined()
        let error = cardError.map { #"<p id="card-error" class="error" role="alert">\#(HTMLText.escape($0))</p>"# } ?? ""
        return """
            <section class="method" data-method="\(name)"><h2>Card</h2>
            \(saved.isEmpty ? "" : "<div id=\"saved-cards\">\n\(saved)</div>")
            <form id="card-form" method="post" action="/checkout/\(token)/card\(query)">
            \(error)<label>Card number <input id="card-number" name="pan" inputmode="numeric" autocomplete="cc-number" required></label>
            <div class="row"><label>Expiry (MM/YY) <input id="card-expiry" name="expiry" placeholder="MM/YY" autocomplete="cc-exp" required></label>
            <label>CVC <input id="card-cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required></label></div>
            <button id="pay-card" class="primary" type="submit">Pay \(total)</button>
            </form>
            <p class="hint">Test cards: 4925000000000004 (no 3-D Secure), 4761739001010416 (3-D Secure challenge).</p>
            </section>

            """
    }

    /// One saved card: a form of its own that pays with its payment token.
    private static func savedCardForm(_ card: SavedCard, token: String, query: String) -> String {
        """
        <form class="saved-card-form" method="post" action="/checkout/\(token)/card\(query)">\
        <input type="hidden" name="payment_token" value="\(HTMLText.escape(card.paymentToken))">\
        <button class="pay-saved-card" type="submit" data-masked-pan="\(HTMLText.escape(card.maskedPan))">\
        \(HTMLText.escape(card.cardBrand)) \(HTMLText.escape(card.maskedPan))</button></form>

        """
    }

    private static func swishSection(_ document: PaymentSessionDocument, name: String, token: String, query: String) -> String {
        let msisdn = HTMLText.escape(document.view.payer?.msisdn ?? "")
        return """
            <section class="method" data-method="\(name)"><h2>Swish</h2>
            <form id="swish-form" method="post" action="/checkout/\(token)/swish\(query)">
            <label>Mobile number <input id="swish-msisdn" name="msisdn" type="tel" value="\(msisdn)" placeholder="+46739000001"></label>
            <button id="pay-swish" class="primary" type="submit">Pay with Swish</button>
            </form></section>

            """
    }

    /// A web-based instrument (Vipps, MobilePay, Trustly, …): the payer's social security number.
    private static func webSection(name: String, token: String, query: String) -> String {
        """
        <section class="method" data-method="\(name)"><h2>\(name)</h2>
        <form class="web-form" data-method="\(name)" method="post" action="/checkout/\(token)/web/\(name)\(query)">
        <label>Social security number <input id="ssn-\(name)" class="ssn" name="ssn" placeholder="199710202392"></label>
        <button id="pay-\(name)" class="primary" type="submit">Pay with \(name)</button>
        </form></section>

        """
    }

    /// After a failed attempt: its problem, above the methods (empty otherwise).
    private static func attemptError(_ document: PaymentSessionDocument) -> String {
        guard let problem = document.record.problem?.problem else { return "" }
        return """
            <div id="attempt-error" class="error" role="alert" data-problem-type="\(HTMLText.escape(problem.type))">\
            <strong>\(HTMLText.escape(problem.title))</strong> \(HTMLText.escape(problem.detail)) Try again or choose another way to pay.</div>

            """
    }

    // MARK: Swish, results, errors

    static func swishWaiting(_ document: PaymentSessionDocument, mode: CheckoutPageMode) -> String {
        var msisdn = ""
        if case .swish(let swish) = document.record.phase { msisdn = swish.msisdn }
        let refresh = "/checkout/\(HTMLText.escape(document.record.token))/swish/status\(query(mode))"
        return page(title: "Swish", head: #"<meta http-equiv="refresh" content="2;url=\#(refresh)">"#, body: """
            <main id="swish-waiting" data-token="\(HTMLText.escape(document.record.token))">
            \(banner)
            <h1>Open Swish</h1>
            <p>Confirm the payment of <strong>\(HTMLText.escape(HTMLText.money(document.view.amount, document.view.currency)))</strong> \
            in the Swish app for <span id="swish-number">\(HTMLText.escape(msisdn))</span>.</p>
            <p class="hint">This page checks again every 2 seconds.</p>
            <p><a id="swish-refresh" href="\(refresh)">Check now</a></p>
            </main>
            """)
    }

    enum Result: String {
        case paid = "Paid", aborted = "Aborted", failed = "Failed"
        var event: String { rawValue.lowercased() }
    }

    /// The end of a payment inside the view-checkout iframe: tells the merchant's page (the script listens).
    /// `tellsParent`: false for a lost return trip (swedbankpay.checkout.redirect `redirect_lost`): no message to the
    /// view-checkout script either, so nothing takes the payer on.
    static func result(_ result: Result, orderID: String, redirectURL: String?, tellsParent: Bool = true) -> String {
        var message: [(String, JSONText)] = [
            ("source", .string("swedbankpay-sandbox")), ("event", .string(result.event)),
            ("paymentOrder", .object([("id", .string("/psp/paymentorders/\(orderID)"))])),
        ]
        if let redirectURL { message.append(("redirectUrl", .string(redirectURL))) }
        let title = switch result {
        case .paid: "Payment completed"
        case .aborted: "Payment cancelled"
        case .failed: "Payment failed"
        }
        let link = redirectURL.map { #"<p><a id="continue" href="\#(HTMLText.escape($0))" target="_top">Continue</a></p>"# } ?? ""
        return page(title: title, body: """
            <main id="result" data-status="\(result.rawValue)">
            \(banner)
            <h1 id="result-title">\(title)</h1>
            \(link)
            </main>
            \(tellsParent ? """
            <script>(function () { var message = \(scriptJSON(.object(message)));
            if (window.parent && window.parent !== window) { window.parent.postMessage(message, "*"); } })();</script>
            """ : "")
            """)
    }

    /// The Swish app stand-in after the payer answered (`GET /swish/paymentrequest`), when it does not return to the app
    /// (nil `reason`: no Swish payment waits for this launch token).
    static func swishApp(_ result: Result?) -> String {
        let text = switch result {
        case .paid?: "Paid with Swish."
        case .aborted?: "The payment was cancelled in Swish."
        case .failed?: "The payment failed in Swish."
        case nil: "There is no Swish payment request to answer."
        }
        return page(title: "Swish", body: """
            <main id="swish-app" data-status="\(result?.rawValue ?? "none")">
            \(banner)
            <h1 id="swish-app-title">\(text)</h1>
            </main>
            """)
    }

    enum Unavailable: String { case paid, aborted, failed, notFound = "not_found" }

    static func unavailable(_ reason: Unavailable) -> String {
        let text = switch reason {
        case .paid: "This payment is already completed."
        case .aborted: "This payment was cancelled."
        case .failed: "This payment has failed."
        case .notFound: "This payment was not found."
        }
        return page(title: "Swedbank Pay", body: """
            <main id="swedbankpay-unavailable" data-reason="\(reason.rawValue)">
            \(banner)
            <h1 id="unavailable-title">\(text)</h1>
            </main>
            """)
    }

    static func error(_ problem: SwedbankPayProblem) -> String {
        page(title: "Swedbank Pay", body: """
            <main id="swedbankpay-error" data-problem-type="\(HTMLText.escape(problem.type))" data-status="\(problem.status.code)">
            \(banner)
            <h1>\(HTMLText.escape(problem.title))</h1>
            <p>\(HTMLText.escape(problem.detail))</p>
            </main>
            """)
    }

    // MARK: 3-D Secure (ACS emulator)

    /// The challenge of swedbankpay-api.md §5's "OTP emulator page where you click approve or cancel": one form
    /// per button, each posting `cres` to `action` (the SDK's NotificationUrl, or the page's own cres endpoint).
    static func challenge(acsTransID: String, approve: String, cancel: String, action: String, view: SwedbankPayOrderView?,
                          maskedPan: String) -> String {
        func form(_ id: String, _ label: String, _ cres: String, primary: Bool) -> String {
            #"<form method="post" action="\#(HTMLText.escape(action))"><input type="hidden" name="cres" value="\#(HTMLText.escape(cres))">"#
                + #"<button id="\#(id)"\#(primary ? #" class="primary""# : "") type="submit">\#(label)</button></form>"#
        }
        return page(title: "3-D Secure", body: """
            <main id="acs-challenge" data-acs-trans-id="\(HTMLText.escape(acsTransID))">
            \(banner)
            <h1>3-D Secure</h1>
            <p>Your bank asks you to confirm this purchase.</p>
            <dl><dt>Merchant</dt><dd id="acs-merchant">\(HTMLText.escape(view?.payeeInfo.payeeName ?? ""))</dd>
            <dt>Amount</dt><dd id="acs-amount">\(HTMLText.escape(HTMLText.money(view?.amount, view?.currency)))</dd>
            <dt>Card</dt><dd id="acs-card">\(HTMLText.escape(maskedPan))</dd></dl>
            \(form("acs-approve", "Approve", approve, primary: true))
            \(form("acs-cancel", "Cancel", cancel, primary: false))
            </main>
            """)
    }

    /// `challenge_cres_posted`: the challenge's answer goes on as a form POST, submitted by its inline script
    /// (a button without script), instead of a 303 to a GET. `action` passed MerchantURL or is the SDKs' own address.
    static func postOn(action: String, fields: [(String, String)]) -> String {
        let inputs = fields.map { #"<input type="hidden" name="\#(HTMLText.escape($0.0))" value="\#(HTMLText.escape($0.1))">"# }.joined()
        return page(title: "3-D Secure", body: """
            <main id="acs-post-on">
            \(banner)
            <form id="post-on-form" method="post" action="\(HTMLText.escape(action))">\(inputs)<button id="post-on-continue" type="submit">Continue</button></form>
            </main>
            <script>document.getElementById("post-on-form").submit();</script>
            """)
    }

    static let challengeError = page(title: "3-D Secure", body: """
        <main id="acs-error">
        <h1>3-D Secure</h1>
        <p>The challenge request is not valid, or the challenge is over.</p>
        </main>
        """)

    /// The 3DS method URL's page: 200 and no redirect. iOS reports `Y` when it finishes, Android when
    /// onPageFinished fires for the same URL (swedbankpay-api.md §3.4).
    static let threeDSMethod = #"<!DOCTYPE html><html><head><meta charset="utf-8"><title>3DS method</title></head><body id="acs-3ds-method">ok</body></html>"#

    // MARK: view-checkout

    /// The `view-checkout` / `view-payment` script: `payex.hostedView.checkout(params).open(id)` puts the
    /// menu in an iframe (`embed=1`, same origin as the sandbox, so no CORS) and turns its postMessage into
    /// `onPaid` / `onAborted` / `onError`, or navigates the top window to completeUrl / cancelUrl as the SDKs
    /// expect when no callback is given (swedbankpay-api.md §3.7). `paymentMenu` is the same function (inferred).
    static func script(menuURL: String?, orderID: String?, completeURL: String?, cancelURL: String?) -> String {
        let config: JSONText = .object([
            ("menuUrl", menuURL.map(JSONText.string) ?? .null),
            ("paymentOrderId", orderID.map { .string("/psp/paymentorders/\($0)") } ?? .null),
            ("completeUrl", completeURL.map(JSONText.string) ?? .null),
            ("cancelUrl", cancelURL.map(JSONText.string) ?? .null),
        ])
        return """
            // Swedbank Pay sandbox: view-checkout (payment-sandbox). Not Swedbank Pay's script.
            (function () {
              "use strict";
              var config = \(scriptJSON(config));
              var payex = window.payex = window.payex || {};
            \(scriptCheckout)
              payex.hostedView = payex.hostedView || {};
              payex.hostedView.checkout = checkout;
              payex.hostedView.paymentMenu = checkout;
            })();

            """
    }

    /// The script's `checkout(params)`: the object `open`, `close` and `refresh` the merchant's page calls.
    private static let scriptCheckout = """
          function checkout(params) {
            params = params || {};
            var frame = null, listener = null;
            function fail(details) { if (typeof params.onError === "function") { params.onError({ event: "OnError", details: details }); } }
            function go(url) { if (url) { window.location.href = url; } }
            return {
              open: function (containerId) {
        \(scriptOpen)
              },
              close: function () {
                if (listener) { window.removeEventListener("message", listener); listener = null; }
                if (frame && frame.parentNode) { frame.parentNode.removeChild(frame); }
                frame = null;
              },
              refresh: function () { if (frame) { frame.src = config.menuUrl; } }
            };
          }
        """

    /// `open(containerId)`: the menu's iframe in the container, and the listener for its messages.
    private static let scriptOpen = """
                var container = params.container;
                var id = containerId || (container && typeof container === "object" ? container.checkout : container) || "checkout";
                if (!config.menuUrl) { fail("payment session not found"); return; }
                var element = document.getElementById(id);
                if (!element) { fail("container not found: " + id); return; }
                frame = document.createElement("iframe");
                frame.id = "swedbankpay-checkout-frame";
                frame.title = "Swedbank Pay";
                frame.src = config.menuUrl;
                frame.style.cssText = "width:100%;min-height:640px;border:0";
                element.appendChild(frame);
        \(scriptListener)
                window.addEventListener("message", listener);
        """

    /// The listener: the result page's message (paid, aborted, failed) becomes the merchant's callback, or the
    /// top window goes to completeUrl / cancelUrl.
    private static let scriptListener = """
                listener = function (event) {
                  if (!frame || event.source !== frame.contentWindow) { return; }
                  var data = event.data || {};
                  if (data.source !== "swedbankpay-sandbox") { return; }
                  var order = { id: config.paymentOrderId };
                  if (data.event === "paid") {
                    if (typeof params.onPaid === "function") { params.onPaid({ event: "OnPaid", paymentOrder: order, redirectUrl: config.completeUrl }); }
                    else { go(config.completeUrl); }
                  } else if (data.event === "aborted") {
                    if (typeof params.onAborted === "function") { params.onAborted({ event: "OnAborted", paymentOrder: order, redirectUrl: config.cancelUrl }); }
                    else { go(config.cancelUrl); }
                  } else if (data.event === "failed") {
                    fail("payment failed");
                  }
                };
        """

    // MARK: Parts

    /// JSON inside a script element (HTMLText.scriptJSON: `<`, U+2028, U+2029 escaped).
    static func scriptJSON(_ json: JSONText) -> String { HTMLText.scriptJSON(json) }

    static let banner = #"<p id="sandbox-banner">Swedbank Pay sandbox: test payments only.</p>"#

    static func page(title: String, head: String = "", body: String) -> String {
        HTMLPage.document(title: title, head: head, style: css, body: body)
    }

    private static let css = """
        *{box-sizing:border-box}body{margin:0;font:16px/1.45 -apple-system,system-ui,"Segoe UI",Roboto,sans-serif;color:#2f2424;\
        background:#f7f4f0}main{max-width:480px;margin:0 auto;padding:16px}h1{font-size:1.35rem;margin:.5rem 0}\
        h2{font-size:1.05rem;margin:0 0 .5rem}#sandbox-banner{background:#fff3cd;border:1px solid #e0c36c;border-radius:6px;\
        padding:6px 10px;font-size:.85rem;margin:0 0 .75rem}section{background:#fff;border-radius:8px;padding:12px 14px;margin:.75rem 0;\
        overflow-wrap:anywhere}.total{font-size:1.1rem}label{display:block;margin:.4rem 0;font-size:.9rem}\
        input{display:block;width:100%;min-height:44px;margin-top:2px;padding:8px;font:inherit;border:1px solid #b9aea6;border-radius:6px}\
        .row{display:grid;grid-template-columns:1fr 1fr;gap:10px}button{display:block;width:100%;min-height:48px;margin:.5rem 0;\
        font:inherit;border-radius:8px;border:1px solid #512b2b;background:#fff;color:#512b2b}button.primary{background:#fdc129;\
        border-color:#fdc129;color:#2f2424;font-weight:600}.error{background:#fdecea;border:1px solid #c0392b;color:#8e1c10;\
        border-radius:6px;padding:8px 10px;margin:.5rem 0}.hint{font-size:.8rem;color:#6b5f58}dl{display:grid;\
        grid-template-columns:auto 1fr;gap:4px 12px}dd{margin:0;overflow-wrap:anywhere}
        """
}
