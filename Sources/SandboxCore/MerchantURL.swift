// SPDX-License-Identifier: MIT

/// The one check of a URL a merchant gives (a provider's merchant or callback URLs) before the sandbox
/// puts it in a `Location` header, a page's `href` / `action`, a script, or calls it back. It must be an absolute
/// URI in ASCII (RFC 3986 §3, §2): a scheme, then only characters a URI may hold (`%` with two hex digits for
/// anything else), so no CR, LF, space, control, raw non-ASCII, `"`, `<`, `>`, `\`, `^`, `` ` ``, `|`. The
/// scheme must be one that leads somewhere: `javascript:`, `data:`, `vbscript:` (and `file:`, `blob:`, `about:`,
/// `filesystem:`) never are; http and https need a host. An authority (`//…`) must be well formed (RFC 3986 §3.2):
/// userinfo of its own characters, a reg-name or a bracketed IPv6 / IPvFuture literal, a port of digits ≤ 65535.
/// Where placeholders are allowed, `{` and `}` appear only as `{name}` or `{{name}}` outside the authority. At most
/// ``maxLength`` bytes: the sandbox keeps and sends what a merchant gives, so an endless URL is refused here.
///
/// ```swift
/// MerchantURL.violation(in: "myapp://done?sid={{session_id}}", rules: .redirect)   // nil
/// MerchantURL.violation(in: "javascript:alert(1)", rules: .redirect)               // .refusedScheme("javascript")
/// ```
package enum MerchantURL {
    /// What a field accepts.
    package struct Rules: Sendable, Equatable {
        /// Lower-case schemes allowed; nil: any scheme but ``MerchantURL/refusedSchemes``.
        package var schemes: Set<String>?
        /// `{name}` and `{{name}}` allowed (name: letters, digits, `.`, `_`), outside the authority: placeholders such
        /// as `{session.id}` and `{{session_id}}` that a provider documents and fills before using the URL. Other names
        /// of that shape pass too, since a provider's list may be incomplete (inferred).
        package var allowsPlaceholders: Bool

        package init(schemes: Set<String>?, allowsPlaceholders: Bool) {
            self.schemes = schemes
            self.allowsPlaceholders = allowsPlaceholders
        }

        /// Where a browser or an app is sent: http, https or an app's own scheme (`myapp://`).
        package static let redirect = Rules(schemes: nil, allowsPlaceholders: false)
        /// A URL the sandbox or a browser fetches over the web (callbacks, host URLs, logos): http or https.
        package static let web = Rules(schemes: ["http", "https"], allowsPlaceholders: false)

        package func withPlaceholders() -> Rules { Rules(schemes: schemes, allowsPlaceholders: true) }
    }

    /// Why a URL was refused.
    package enum Violation: Equatable, Sendable, CustomStringConvertible {
        case empty
        /// A character no URI holds raw (space, control, non-ASCII, or one of `"<>\^`|{}`).
        case character(Unicode.Scalar)
        /// `%` not followed by two hex digits.
        case percentEncoding
        /// A `{` or `}` that is not part of a `{name}` or `{{name}}` placeholder.
        case placeholder
        /// Not absolute: no `scheme:` at the start.
        case noScheme
        case refusedScheme(String)
        case schemeNotAllowed(String)
        /// http(s) without `//host`, or another scheme with nothing after the colon.
        case noHost
        /// Userinfo (before `@`) with a character RFC 3986 §3.2.1 does not allow there.
        case userinfo
        /// A host that is neither a reg-name nor a well-formed `[IPv6]` / `[vX.…]` literal (RFC 3986 §3.2.2).
        case host
        /// A port that is not all digits or is above 65535 (RFC 3986 §3.2.3).
        case port
        /// Longer than ``MerchantURL/maxLength`` bytes; the length it had.
        case tooLong(Int)

        package var description: String {
            switch self {
            case .empty: "it is empty"
            case .character(let scalar):
                "it holds \(scalar.isASCII && scalar.value > 0x20 && scalar.value < 0x7F ? "'\(Character(scalar))'" : "U+" + hex(scalar.value)), "
                    + "which a URL must percent-encode"
            case .percentEncoding: "a '%' is not followed by two hex digits"
            case .placeholder: "a '{' or '}' is not part of a placeholder such as {session.id} or {{session_id}}"
            case .noScheme: "it is not an absolute URL"
            case .refusedScheme(let scheme), .schemeNotAllowed(let scheme): "the scheme \(scheme): is not allowed"
            case .noHost: "it has no host"
            case .userinfo: "its user information holds a character not allowed there"
            case .host: "its host is not a valid host name or IP literal"
            case .port: "its port is not a number from 0 to 65535"
            case .tooLong(let length): "it is \(length) bytes long, more than the \(MerchantURL.maxLength) allowed"
            }
        }

        private func hex(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// Schemes no merchant URL may have: they run script or show local or inline content rather than lead anywhere.
    package static let refusedSchemes: Set<String> = ["javascript", "vbscript", "data", "file", "blob", "about", "filesystem"]

    /// The longest URL accepted, in bytes: 8 KiB. RFC 9112 §3 asks every HTTP party to handle request lines of at least
    /// 8000 octets, so a URL this long can still be called; the sandbox's own parser takes up to 64 KiB for a request
    /// line and its headers together (``HTTPParserLimits/maxHeadBytes``). A merchant URL is kept with its object and
    /// with each callback and its attempts, so the bound is what keeps those small.
    package static let maxLength = 8 * 1024

    /// The first thing wrong with `url` under `rules`, or nil when it is fine.
    package static func violation(in url: String, rules: Rules) -> Violation? {
        let length = url.utf8.count
        guard length <= maxLength else { return .tooLong(length) }
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
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") {
                guard rules.allowsPlaceholders else { return .character(Unicode.Scalar(byte)) }
                guard let end = placeholderEnd(bytes, from: index) else { return .placeholder }
                index = end
                continue
            }
            if !isURIByte(byte) { return .character(Unicode.Scalar(byte)) }
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, URIAuthority.isHexDigit(bytes[index + 1]), URIAuthority.isHexDigit(bytes[index + 2]) else { return .percentEncoding }
                index += 2
            }
            index += 1
        }
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" (§3.1)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, URIAuthority.isAlpha(bytes[0]),
              bytes[1..<colon].allSatisfy({ URIAuthority.isAlpha($0) || URIAuthority.isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return .noScheme }
        let scheme = String(decoding: bytes[0..<colon], as: UTF8.self).lowercased()
        if refusedSchemes.contains(scheme) { return .refusedScheme(scheme) }
        if let allowed = rules.schemes, !allowed.contains(scheme) { return .schemeNotAllowed(scheme) }
        let rest = bytes[(colon + 1)...]
        let needsHost = scheme == "http" || scheme == "https"
        if rest.starts(with: "//".utf8) {
            // "//" authority up to the path, query or fragment (§3.2); http(s) needs a non-empty host.
            let authority = rest.dropFirst(2).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            return authorityViolation(authority, needsHost: needsHost)
        }
        return needsHost || rest.isEmpty ? .noHost : nil
    }

    /// `[ userinfo "@" ] host [ ":" port ]` (RFC 3986 §3.2); the characters are already known to be URI characters.
    private static func authorityViolation(_ authority: ArraySlice<UInt8>, needsHost: Bool) -> Violation? {
        var hostAndPort = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            // userinfo = *( unreserved / pct-encoded / sub-delims / ":" ) (§3.2.1)
            let userinfo = authority[..<at]
            guard userinfo.allSatisfy({ URIAuthority.isUnreserved($0) || URIAuthority.isSubDelimiter($0) || $0 == UInt8(ascii: ":")
                                        || $0 == UInt8(ascii: "%") })
            else { return .userinfo }
            hostAndPort = authority[(at + 1)...]
        }
        guard let (host, port) = URIAuthority.splitHostAndPort(hostAndPort) else { return .host }
        if host.isEmpty {
            if needsHost { return .noHost }
        } else if host.first == UInt8(ascii: "[") {
            guard URIAuthority.isIPLiteral(host) else { return .host }
        } else if !isRegName(host) {
            return .host
        }
        if let port, !URIAuthority.isPort(port) { return .port }
        return nil
    }

    /// `reg-name = *( unreserved / pct-encoded / sub-delims )` (§3.2.2), without a percent-encoded control
    /// character (`%00`–`%1F`, `%7F`), which no host name holds (WHATWG URL Standard: forbidden domain code points).
    private static func isRegName(_ host: ArraySlice<UInt8>) -> Bool {
        var index = host.startIndex
        while index < host.endIndex {
            let byte = host[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < host.endIndex, let high = RequestTarget.hexValue(host[index + 1]),
                      let low = RequestTarget.hexValue(host[index + 2]) else { return false }
                if high < 2 || (high == 7 && low == 0xF) { return false }
                index += 3
                continue
            }
            guard URIAuthority.isUnreserved(byte) || URIAuthority.isSubDelimiter(byte) else { return false }
            index += 1
        }
        return true
    }

    /// Where the placeholder `{name}` or `{{name}}` starting at `start` ends (just past its last `}`), or nil when
    /// the braces there are not one: unbalanced, nested, empty, or a name with other than letters, digits, `.`, `_`.
    private static func placeholderEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard bytes[start] == UInt8(ascii: "{") else { return nil }
        let braces = start + 1 < bytes.count && bytes[start + 1] == UInt8(ascii: "{") ? 2 : 1
        var index = start + braces
        let nameStart = index
        while index < bytes.count,
              URIAuthority.isAlpha(bytes[index]) || URIAuthority.isDigit(bytes[index]) || bytes[index] == UInt8(ascii: ".")
                || bytes[index] == UInt8(ascii: "_") {
            index += 1
        }
        guard index > nameStart, index + braces <= bytes.count,
              bytes[index..<(index + braces)].allSatisfy({ $0 == UInt8(ascii: "}") })
        else { return nil }
        return index + braces
    }

    package static func isValid(_ url: String, rules: Rules) -> Bool { violation(in: url, rules: rules) == nil }

    /// unreserved / gen-delims / sub-delims / `%` (RFC 3986 §2.2, §2.3).
    private static func isURIByte(_ byte: UInt8) -> Bool {
        if URIAuthority.isAlpha(byte) || URIAuthority.isDigit(byte) { return true }
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }
}
