// SPDX-License-Identifier: MIT

/// The one check of a URL a merchant gives (Klarna's `merchant_urls`, Swedbank Pay's `urls`) before the sandbox
/// puts it in a `Location` header, a page's `href` / `action`, a script, or calls it back. It must be an absolute
/// URI in ASCII (RFC 3986 §3, §2): a scheme, then only characters a URI may hold (`%` with two hex digits for
/// anything else), so no CR, LF, space, control, raw non-ASCII, `"`, `<`, `>`, `\`, `^`, `` ` ``, `|`. The
/// scheme must be one that leads somewhere: `javascript:`, `data:`, `vbscript:` (and `file:`, `blob:`, `about:`,
/// `filesystem:`) never are; http and https need a host.
///
/// ```swift
/// MerchantURL.violation(in: "myapp://done?sid={{session_id}}", rules: .redirect)   // nil
/// MerchantURL.violation(in: "javascript:alert(1)", rules: .redirect)               // .refusedScheme("javascript")
/// ```
public enum MerchantURL {
    /// What a field accepts.
    public struct Rules: Sendable, Equatable {
        /// Lower-case schemes allowed; nil: any scheme but ``MerchantURL/refusedSchemes``.
        public var schemes: Set<String>?
        /// `{` and `}` allowed: Klarna documents placeholders such as `{session.id}` and `{{session_id}}`
        /// (klarna-api.md §2.1, §4.1) that it fills before using the URL.
        public var allowsPlaceholders: Bool

        public init(schemes: Set<String>?, allowsPlaceholders: Bool) {
            self.schemes = schemes
            self.allowsPlaceholders = allowsPlaceholders
        }

        /// Where a browser or an app is sent: http, https or an app's own scheme (`myapp://`).
        public static let redirect = Rules(schemes: nil, allowsPlaceholders: false)
        /// A URL the sandbox or a browser fetches over the web (callbacks, host URLs, logos): http or https.
        public static let web = Rules(schemes: ["http", "https"], allowsPlaceholders: false)

        public func withPlaceholders() -> Rules { Rules(schemes: schemes, allowsPlaceholders: true) }
    }

    /// Why a URL was refused.
    public enum Violation: Equatable, Sendable, CustomStringConvertible {
        case empty
        /// A character no URI holds raw (space, control, non-ASCII, or one of `"<>\^`|{}`).
        case character(Unicode.Scalar)
        /// `%` not followed by two hex digits.
        case percentEncoding
        /// Not absolute: no `scheme:` at the start.
        case noScheme
        case refusedScheme(String)
        case schemeNotAllowed(String)
        /// http(s) without `//host`, or another scheme with nothing after the colon.
        case noHost

        public var description: String {
            switch self {
            case .empty: "it is empty"
            case .character(let scalar):
                "it holds \(scalar.isASCII && scalar.value > 0x20 && scalar.value < 0x7F ? "'\(Character(scalar))'" : "U+" + hex(scalar.value)), "
                    + "which a URL must percent-encode"
            case .percentEncoding: "a '%' is not followed by two hex digits"
            case .noScheme: "it is not an absolute URL"
            case .refusedScheme(let scheme), .schemeNotAllowed(let scheme): "the scheme \(scheme): is not allowed"
            case .noHost: "it has no host"
            }
        }

        private func hex(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// Schemes no merchant URL may have: they run script or show local or inline content rather than lead anywhere.
    public static let refusedSchemes: Set<String> = ["javascript", "vbscript", "data", "file", "blob", "about", "filesystem"]

    /// The first thing wrong with `url` under `rules`, or nil when it is fine.
    public static func violation(in url: String, rules: Rules) -> Violation? {
        let bytes = Array(url.utf8)
        guard !bytes.isEmpty else { return .empty }
        // Characters (RFC 3986 §2: unreserved, reserved, `%`); the first non-ASCII scalar is named whole.
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x80 {
                let scalar = url.unicodeScalars.first { !$0.isASCII } ?? "\u{FFFD}"
                return .character(scalar)
            }
            if !isURIByte(byte, placeholders: rules.allowsPlaceholders) { return .character(Unicode.Scalar(byte)) }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else { return .percentEncoding }
                index += 2
            }
            index += 1
        }
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" (§3.1)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, isAlpha(bytes[0]),
              bytes[1..<colon].allSatisfy({ isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return .noScheme }
        let scheme = String(decoding: bytes[0..<colon], as: UTF8.self).lowercased()
        if refusedSchemes.contains(scheme) { return .refusedScheme(scheme) }
        if let allowed = rules.schemes, !allowed.contains(scheme) { return .schemeNotAllowed(scheme) }
        let rest = bytes[(colon + 1)...]
        if scheme == "http" || scheme == "https" {
            // "//" authority, whose host (after any userinfo, before any port) is not empty (§3.2).
            guard rest.starts(with: "//".utf8) else { return .noHost }
            let authority = rest.dropFirst(2).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            let hostAndPort = authority.lastIndex(of: UInt8(ascii: "@")).map { authority[($0 + 1)...] } ?? authority
            let host = hostAndPort.first == UInt8(ascii: "[") ? hostAndPort
                : hostAndPort.prefix { $0 != UInt8(ascii: ":") }
            if host.isEmpty { return .noHost }
        } else if rest.isEmpty {
            return .noHost
        }
        return nil
    }

    public static func isValid(_ url: String, rules: Rules) -> Bool { violation(in: url, rules: rules) == nil }

    /// unreserved / gen-delims / sub-delims / `%` (RFC 3986 §2.2, §2.3), plus `{` `}` for placeholders.
    private static func isURIByte(_ byte: UInt8, placeholders: Bool) -> Bool {
        if isAlpha(byte) || isDigit(byte) { return true }
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: "%"):
            return true
        case UInt8(ascii: "{"), UInt8(ascii: "}"):
            return placeholders
        default:
            return false
        }
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
