// SPDX-License-Identifier: MIT
import Foundation

/// The consumer's pages behind `redirect_url` (klarna-api.md §4.1), self-contained: inline CSS, no external
/// assets (not even `logo_url`), no JavaScript, readable at 390 px. Every merchant-supplied text is escaped by code
/// point (HTMLText.escape), in text and in double-quoted attribute values.
///
/// HTML contract (for browser tests):
/// - payment page: `<main id="hpp" data-session-id data-status>`, `#page-title`, `#order-lines` rows
///   `.order-line` (`.name`, `.quantity`, `.amount`), `#total-amount` (`data-minor-units`, `data-currency`),
///   `#payment-categories` items `.payment-category` (`data-identifier`), and `<form id="hpp-form" method="post">`
///   with buttons `name="action"`: `#pay` (value pay), `#back`, `#cancel`, and in `#sandbox-controls` `#reject`.
///   Each button posts to `/__sandbox/klarna/hpp/sessions/{id}/{action}` (`formaction`).
/// - result page (no merchant URL for the outcome): `<main id="hpp-result" data-status>`, `#result-title`, `#status`.
/// - unavailable page: `<main id="hpp-unavailable" data-reason="not_found|expired|disabled|cancelled|completed|ended">`,
///   `#unavailable-title`; no form, no buttons.
enum HostedPage {
    struct Category {
        var identifier, name: String
    }

    struct Cart {
        var lines: [KlarnaOrderLine]
        var orderAmount: Int?
        var currency: String?
        var categories: [Category]
    }

    static func payment(sessionID: String, status: KlarnaHPPStatus, title: String?, cart: Cart) -> String {
        let id = escape(sessionID)
        let actionBase = "/__sandbox/klarna/hpp/sessions/\(id)"
        var rows = ""
        for line in cart.lines {
            rows += """
                <tr class="order-line"><td class="name">\(escape(line.name ?? ""))</td>\
                <td class="quantity">\(line.quantity.map { "\($0) \(escape(line.quantityUnit ?? "×"))" } ?? "")</td>\
                <td class="amount">\(escape(money(line.totalAmount, cart.currency)))</td></tr>

                """
        }
        var categories = ""
        for category in cart.categories {
            categories += "<li class=\"payment-category\" data-identifier=\"\(escape(category.identifier))\">\(escape(category.name))</li>\n"
        }
        let total = escape(money(cart.orderAmount, cart.currency))
        return document(title: title ?? "Pay with Klarna", body: """
            <main id="hpp" data-session-id="\(id)" data-status="\(status.rawValue)">
            \(sandboxBanner)
            <h1 id="page-title">\(escape(title ?? "Pay with Klarna"))</h1>
            <table id="order-lines">
            <thead><tr><th>Item</th><th>Qty</th><th>Amount</th></tr></thead>
            <tbody>
            \(rows)</tbody>
            <tfoot><tr id="order-total"><th colspan="2">Total</th>\
            <td id="total-amount" data-minor-units="\(cart.orderAmount.map(String.init) ?? "")" \
            data-currency="\(escape(cart.currency ?? ""))">\(total)</td></tr></tfoot>
            </table>
            <section id="payment-categories"><h2>Payment options</h2>
            <ul>
            \(categories)</ul>
            </section>
            <form id="hpp-form" method="post" action="\(actionBase)">
            <button id="pay" class="primary" type="submit" name="action" value="pay" formaction="\(actionBase)/pay">Pay \(total)</button>
            <button id="back" type="submit" name="action" value="back" formaction="\(actionBase)/back">Back to the store</button>
            <button id="cancel" type="submit" name="action" value="cancel" formaction="\(actionBase)/cancel">Cancel payment</button>
            <fieldset id="sandbox-controls"><legend>Sandbox control, not part of Klarna's page</legend>
            <button id="reject" class="sandbox" type="submit" name="action" value="reject" formaction="\(actionBase)/reject">Simulate a rejection (FAILED)</button>
            </fieldset>
            </form>
            </main>
            """)
    }

    /// "HPP will render a basic payment confirmation page" when the outcome's merchant URL is missing
    /// (klarna-api.md §4.1): the consumer sees "a simple payment confirmation page", or "a simple cancel or rejection page".
    static func result(sessionID: String, session: KlarnaHPPSessionRead) -> String {
        let (title, message): (String, String)
        switch session.status {
        case .completed: (title, message) = ("Payment complete", "Thank you. Your payment with Klarna is complete; you can close this page.")
        case .failed: (title, message) = ("Payment not approved", "Klarna could not approve this payment. Please choose another way to pay.")
        case .back: (title, message) = ("Payment not finished", "You left the payment. Return to the store to continue.")
        case .cancelled: (title, message) = ("Payment cancelled", "The payment was cancelled.")
        case .error: (title, message) = ("Something went wrong", "The payment could not be completed because of an error. Please try again.")
        default: (title, message) = ("Payment \(session.status.rawValue.lowercased())", "")
        }
        var details = "<dt>Status</dt><dd id=\"status\">\(session.status.rawValue)</dd>\n"
        if let orderID = session.orderID { details += "<dt>Order</dt><dd id=\"order-id\">\(escape(orderID))</dd>\n" }
        if let reference = session.klarnaReference { details += "<dt>Klarna reference</dt><dd id=\"klarna-reference\">\(escape(reference))</dd>\n" }
        return document(title: title, body: """
            <main id="hpp-result" data-session-id="\(escape(sessionID))" data-status="\(session.status.rawValue)">
            \(sandboxBanner)
            <h1 id="result-title">\(title)</h1>
            <p id="result-message">\(message)</p>
            <dl>
            \(details)</dl>
            </main>
            """)
    }

    enum Unavailable: String {
        case notFound = "not_found", expired, disabled, cancelled, completed
        /// The linked payment session is gone (cancelled or completed elsewhere).
        case ended

        var status: HTTPStatus {
            switch self {
            case .notFound: .notFound
            case .completed: .ok
            default: HTTPStatus(code: 410)
            }
        }

        var text: (title: String, message: String) {
            switch self {
            case .notFound: ("Payment link not found", "This payment link does not exist.")
            case .expired: ("Payment link expired", "This payment link has expired. Please ask the store for a new one.")
            case .disabled: ("Payment link no longer active", "The store has disabled this payment link.")
            case .cancelled: ("Payment cancelled", "This payment was cancelled.")
            case .completed: ("Payment already complete", "This payment is already complete; you can close this page.")
            case .ended: ("Payment no longer available", "This payment can no longer be made here.")
            }
        }
    }

    /// The explicit page of a link that cannot be paid (§4.4: "the consumer ... gets an explicit error page").
    static func unavailable(_ reason: Unavailable, sessionID: String) -> String {
        document(title: reason.text.title, body: """
            <main id="hpp-unavailable" data-session-id="\(escape(sessionID))" data-reason="\(reason.rawValue)">
            \(sandboxBanner)
            <h1 id="unavailable-title">\(reason.text.title)</h1>
            <p id="unavailable-message">\(reason.text.message)</p>
            </main>
            """)
    }

    // MARK: Pieces

    private static let sandboxBanner = #"<p id="sandbox-banner">Klarna sandbox: no real payment is made.</p>"#

    private static func document(title: String, body: String) -> String {
        HTMLPage.document(title: title, style: css, body: body)
    }

    private static let css = """
        *{box-sizing:border-box}body{margin:0;font:16px/1.45 -apple-system,system-ui,"Segoe UI",Roboto,sans-serif;color:#17120f;\
        background:#f6f3f1}main{max-width:480px;margin:0 auto;padding:16px}h1{font-size:1.4rem;margin:.5rem 0 1rem}\
        h2{font-size:1rem;margin:1.25rem 0 .5rem}#sandbox-banner{background:#fff3cd;border:1px solid #e0c36c;border-radius:6px;\
        padding:6px 10px;font-size:.85rem;margin:0}table{width:100%;border-collapse:collapse;background:#fff;border-radius:8px}\
        th,td{padding:8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}td.amount,#total-amount,td.quantity{text-align:right;\
        white-space:nowrap}tbody tr{border-top:1px solid #eee}tfoot tr{border-top:2px solid #17120f;font-weight:600}\
        ul{padding-left:1.2rem}form{margin-top:1rem}button{display:block;width:100%;min-height:48px;margin:.5rem 0;font:inherit;\
        border-radius:8px;border:1px solid #17120f;background:#fff;color:#17120f}button.primary{background:#ffa8cd;border-color:#ffa8cd;\
        font-weight:600}fieldset{margin-top:1.25rem;border:2px dashed #c0392b;border-radius:8px}legend{color:#c0392b;font-size:.85rem}\
        button.sandbox{border-color:#c0392b;color:#c0392b}dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px}\
        dd{margin:0;overflow-wrap:anywhere}
        """

    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    static func money(_ minorUnits: Int?, _ currency: String?) -> String { HTMLText.money(minorUnits, currency) }
}
