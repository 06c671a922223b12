// SPDX-License-Identifier: MIT
// Klarna's hosted payment page escapes by code point: order line names, the quantity unit and the page title carry
// U+0600 / U+0301 / U+200D beside each of `& < > " '` (one grapheme cluster each), which must reach the page as
// character references, in text and in attribute values. Its CSP blocks script; the markup must not get through either.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna hosted page: escaping by code point")
struct KlarnaHostedPageEscapingTests {
    @Test func paymentPage_ClusterPayloadsInLineNamesAndTitle_AreTextOnly() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-clusters"))
            let (first, second, title) = (EscapingPayloads.clusters("line0"), EscapingPayloads.clusters("line1"), EscapingPayloads.clusters("title"))
            let unit = "\u{0600}<b\u{200D}'x"  // quantity_unit: 1...8 characters
            let session = KlarnaExamples.edit(KlarnaExamples.gbSession) { session in
                var lines = session["order_lines"] as? [[String: Any]] ?? []
                lines[0]["name"] = first
                lines[0]["quantity_unit"] = unit
                lines[1]["name"] = second
                session["order_lines"] = lines
            }
            let kp = try await client.newSession(session)
            let options = KlarnaExamples.jsonText(["page_title": title])
            let id = try await KlarnaHPPTests.newHPPSession(client, KlarnaHPPBodies.createBody(kp, options: options))
            let page = try await KlarnaHPPTests.browser(sandbox, "GET", "/hpp/payments/\(id)")
            #expect(page.status == 200, "\(page)")
            let html = page.text
            EscapingPayloads.expectNoRawSpecialBesideAJoiner(html, "payment page")
            for fragment in [#"<td class="name">\#(EscapingPayloads.escaped(first))</td>"#,
                             #"<td class="name">\#(EscapingPayloads.escaped(second))</td>"#,
                             #"<td class="quantity">1 \#(EscapingPayloads.escaped(unit))</td>"#,
                             "<title>\(EscapingPayloads.escaped(title))</title>",
                             #"<h1 id="page-title">\#(EscapingPayloads.escaped(title))</h1>"#] {
                #expect(html.contains(fragment), "no \(fragment.debugDescription) in\n\(html)")
            }
        }
    }

    /// The unavailable page puts the session id from the path in an attribute value.
    @Test func unavailablePage_ClusterPayloadInThePath_IsEscapedInTheAttribute() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let payload = EscapingPayloads.clusters("path")
            let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789-_.~")
            let encoded = try #require(payload.addingPercentEncoding(withAllowedCharacters: allowed))
            let page = try await KlarnaHPPTests.browser(sandbox, "GET", "/hpp/payments/\(encoded)")
            #expect(page.status == 404 && page.text.contains(#"<main id="hpp-unavailable""#), "\(page)")
            EscapingPayloads.expectNoRawSpecialBesideAJoiner(page.text, "unavailable page")
            #expect(page.text.contains(#"data-session-id="\#(EscapingPayloads.escaped(payload))""#), "\(page)")
        }
    }
}
