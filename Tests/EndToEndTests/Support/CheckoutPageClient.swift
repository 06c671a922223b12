// SPDX-License-Identifier: MIT
// The checkout pages as a browser uses them, over this target's transports (the state file, scenario and decision-path
// tests pay on them).
import Foundation
import PaymentSandbox
import SandboxHTTP
import Testing

/// A form-posting client that does not follow redirects, so each 303 can be checked.
struct CheckoutPageClient {
    let server: RunningServer

    func get(_ target: String) async throws -> RawResponse {
        try await server.exchange("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
    }

    func post(_ target: String, _ fields: [(String, String)]) async throws -> RawResponse {
        let body = fields.map { "\(SwedbankPaySessionDriver.formEncode($0.0))=\(SwedbankPaySessionDriver.formEncode($0.1))" }.joined(separator: "&")
        var text = "POST \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        text += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return try await server.exchange(text)
    }

    /// `<main id=…>` of a page.
    static func mainID(_ html: String) -> String? { attribute("id", after: "<main", in: html) }

    /// The value of `name` in the first tag that contains `marker`.
    static func attribute(_ name: String, after marker: String, in html: String) -> String? {
        guard let start = html.range(of: marker) else { return nil }
        let tagStart = html[..<start.lowerBound].lastIndex(of: "<") ?? start.lowerBound
        guard let tagEnd = html[start.lowerBound...].firstIndex(of: ">") else { return nil }
        return SwedbankPaySessionDriver.attribute(name, in: " " + String(html[tagStart..<tagEnd]))
    }
}
