// SPDX-License-Identifier: MIT
// The hosted page's pure pieces: escaping, amounts, placeholders, the KP session URL, header-safe Locations,
// the form's action field and the store's status rules. No sockets (the end-to-end suite has those).
import Foundation
import Testing
@testable import KlarnaSandbox

@Suite struct HPPPieceTests {
    @Test func escape_ReplacesEveryMarkupCharacter() {
        #expect(HostedPage.escape(#"<script>alert('x') & "y"</script>"#)
                == "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;")
        #expect(HostedPage.escape("Plain text, ÅÄÖ") == "Plain text, ÅÄÖ")
    }

    @Test func money_UsesTheCurrencysDecimals() {
        #expect(HostedPage.money(62400, "GBP") == "624.00 GBP")
        #expect(HostedPage.money(5, "eur") == "0.05 EUR")
        #expect(HostedPage.money(-1250, "SEK") == "-12.50 SEK")
        #expect(HostedPage.money(1500, "JPY") == "1500 JPY")
        #expect(HostedPage.money(1234, "KWD") == "1.234 KWD")
        #expect(HostedPage.money(nil, "GBP") == "")
    }

    @Test func placeholders_DoubleBraces_EmptyWhenTheyDoNotApply() {
        let session = KlarnaHPPSessionRead(sessionID: "s1", status: .completed, updatedAt: Date(), expiresAt: Date(), authorizationToken: "t1")
        #expect(HPPPlaceholders.fill("https://m/x?sid={{session_id}}&t={{authorization_token}}&o={{order_id}}&kp={session.id}", session)
                == "https://m/x?sid=s1&t=t1&o=&kp={session.id}")
        #expect(HPPPlaceholders.fill("myapp://klarna-redirect?sid={{session_id}}", session) == "myapp://klarna-redirect?sid=s1")
    }

    @Test func paymentSessionURL_AnyHost_KPPathOnly() {
        #expect(KlarnaHPPCreateRequest.paymentSessionID(in: "https://api.playground.klarna.com/payments/v1/sessions/abc") == "abc")
        #expect(KlarnaHPPCreateRequest.paymentSessionID(in: "http://127.0.0.1:8080/payments/v1/sessions/abc?x=1") == "abc")
        #expect(KlarnaHPPCreateRequest.paymentSessionID(in: "https://api.klarna.com/checkout/v3/orders/abc") == nil)
        #expect(KlarnaHPPCreateRequest.paymentSessionID(in: "https://api.klarna.com/payments/v1/sessions/") == nil)
        #expect(KlarnaHPPCreateRequest.paymentSessionID(in: "https://api.klarna.com/payments/v1/sessions/abc/extra") == nil)
    }

    @Test func location_CannotBreakTheHeader() {
        #expect(HPPConsumerFlow.headerSafe("https://m.example/ok?a=1") == "https://m.example/ok?a=1")
        #expect(HPPConsumerFlow.headerSafe("https://m.example/ok\r\nSet-Cookie: x=1") == "https://m.example/ok%0D%0ASet-Cookie:%20x=1")
        #expect(HPPConsumerFlow.headerSafe("https://m.example/å") == "https://m.example/%C3%A5")
    }

    @Test func formAction_FromFormOrJSON() throws {
        var form = try HTTPRequest(method: .post, target: "/__sandbox/klarna/hpp/sessions/s1", id: "1")
        form.body = Data("other=1&action=back".utf8)
        #expect(HPPConsumerFlow.action(from: form) == .back)
        form.body = Data(#"{"action": "reject"}"#.utf8)
        #expect(HPPConsumerFlow.action(from: form) == .reject)
        form.body = Data("action=steal".utf8)
        #expect(HPPConsumerFlow.action(from: form) == nil)
    }

    @Test func store_FinalStatusesStay_DisableRules() throws {
        let clock = ManualClock()
        let registry = NamespaceRegistry(clock: clock)
        let store = KlarnaHPPStore(registry: registry, ids: SequentialIDGenerator())
        let namespace = Namespace("unit")
        var request = KlarnaHPPCreateRequest()
        request.merchantURLs.statusUpdate = "https://m.example/status/{{session_id}}"
        let created = try store.create(namespace, request, paymentSessionID: "kp", paymentSessionExpiresAt: clock.now() + 7200,
                                       baseURL: "http://sandbox")
        let id = created.sessionID
        #expect(created.expiresAt == clock.now() + 3600)
        let opened = try #require(store.open(namespace, id))
        #expect(opened.session.status == .inProgress && opened.statusUpdateURL == "https://m.example/status/\(id)")
        #expect(store.open(namespace, id) == nil, "already IN_PROGRESS: no change, no callback")
        let (_, reopened) = try store.beginAction(namespace, id)
        #expect(reopened == nil)
        #expect(throws: KlarnaError.self) { try store.beginAction(namespace, id) }  // one action at a time
        _ = store.endAction(namespace, id, status: .completed, authorizationToken: "t")
        #expect(throws: KlarnaError.hppAlreadyCompleted) { try store.disable(namespace, id) }
        #expect(throws: KlarnaError.hppFinal(.completed)) { try store.beginAction(namespace, id) }
        // Expired: 404 like unknown; a payment session expiring within the hour gets no HPP session.
        clock.advance(by: 3600)
        #expect(throws: KlarnaError.hppSessionNotFound) { try store.read(namespace, id) }
        #expect(throws: KlarnaError.hppPaymentSessionExpired) {
            try store.create(namespace, request, paymentSessionID: "kp", paymentSessionExpiresAt: clock.now() + 3600, baseURL: "http://sandbox")
        }
    }
}
