// SPDX-License-Identifier: MIT
// The checkout pages as a browser (or an SDK's web view) uses them, through a SandboxClient that does not follow
// redirects, so each 303 can be checked.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SwedbankPaySandbox
import Testing

/// A form-posting client that does not follow redirects, so each 303 can be checked.
/// A browser sends no `Sandbox-Namespace`: the pages find the order's namespace by its token.
package struct CheckoutPageClient {
    package let client: SandboxClient

    package init(_ client: SandboxClient) {
        self.client = client.namespace(nil)
    }

    package func get(_ target: String) async throws -> SandboxResponse {
        try await client.send(.get, target)
    }

    package func post(_ target: String, _ fields: [(String, String)]) async throws -> SandboxResponse {
        let body = fields.map { "\(SwedbankPaySessionDriver.formEncode($0.0))=\(SwedbankPaySessionDriver.formEncode($0.1))" }.joined(separator: "&")
        return try await client.send(.post, target, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))
    }

    /// The path of an absolute sandbox URL (the ACS page's form actions are absolute).
    package func path(_ url: String) -> String {
        let base = client.baseURL.absoluteString
        return url.hasPrefix(base) ? String(url.dropFirst(base.count)) : url
    }

    /// `<main id=…>` of a page.
    package static func mainID(_ html: String) -> String? { attribute("id", after: "<main", in: html) }

    /// The value of `name` in the first tag that contains `marker`.
    package static func attribute(_ name: String, after marker: String, in html: String) -> String? {
        guard let start = html.range(of: marker) else { return nil }
        let tagStart = html[..<start.lowerBound].lastIndex(of: "<") ?? start.lowerBound
        guard let tagEnd = html[start.lowerBound...].firstIndex(of: ">") else { return nil }
        return SwedbankPaySessionDriver.attribute(name, in: " " + String(html[tagStart..<tagEnd]))
    }

    /// The form around the element with `marker` (a button id or class): its action and hidden fields.
    package static func form(containing marker: String, in html: String) -> (action: String, fields: [(String, String)])? {
        guard let at = html.range(of: marker), let open = html.range(of: "<form", options: .backwards, range: html.startIndex..<at.lowerBound),
              let close = html.range(of: "</form>", range: at.upperBound..<html.endIndex) else { return nil }
        let form = String(html[open.lowerBound..<close.upperBound])
        guard let action = SwedbankPaySessionDriver.attribute("action", in: form) else { return nil }
        var fields: [(String, String)] = []
        var rest = form[...]
        while let input = rest.range(of: #"<input type="hidden""#) {
            let tag = String(rest[input.lowerBound...].prefix { $0 != ">" })
            if let name = SwedbankPaySessionDriver.attribute("name", in: tag), let value = SwedbankPaySessionDriver.attribute("value", in: tag) {
                fields.append((name, value))
            }
            rest = rest[input.upperBound...]
        }
        return (action.replacingOccurrences(of: "&amp;", with: "&"), fields)
    }
}

