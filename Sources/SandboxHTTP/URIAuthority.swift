// SPDX-License-Identifier: MIT

/// The pieces of a URI authority `[ userinfo "@" ] host [ ":" port ]` (RFC 3986 §3.2) that both a merchant URL
/// (MerchantURL) and a `Host` header (HTTPRequest+PublicOrigin.swift) must get right before the sandbox writes them
/// into a header or an href.
package enum URIAuthority {
    /// `host [ ":" port ]` split at the port's colon: an IP literal ends at its `]`, a reg-name at its first `:`
    /// (RFC 3986 §3.2.2, §3.2.3). nil when a `[` has no `]`, or something other than `:port` follows the `]`.
    /// The port is nil when there is no colon, empty after a bare `:`.
    package static func splitHostAndPort(_ bytes: ArraySlice<UInt8>) -> (host: ArraySlice<UInt8>, port: ArraySlice<UInt8>?)? {
        let hostEnd: Int
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostEnd = close + 1
        } else {
            hostEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
        }
        let host = bytes[..<hostEnd], rest = bytes[hostEnd...]
        if rest.isEmpty { return (host, nil) }
        guard rest.first == UInt8(ascii: ":") else { return nil }
        return (host, rest.dropFirst())
    }

    /// `port = *DIGIT` (RFC 3986 §3.2.3; empty means the scheme's default) whose value fits TCP's 16 bits (≤ 65535).
    package static func isPort(_ bytes: ArraySlice<UInt8>) -> Bool {
        var value = 0
        for byte in bytes {
            guard isDigit(byte) else { return false }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            if value > 65535 { return false }
        }
        return true
    }

    /// `IP-literal = "[" ( IPv6address / IPvFuture ) "]"` (RFC 3986 §3.2.2), brackets included; without
    /// `allowsFuture`, only `[IPv6address]` (IPvFuture may hold sub-delims such as `'`).
    package static func isIPLiteral(_ bytes: ArraySlice<UInt8>, allowsFuture: Bool = true) -> Bool {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return false }
        let inner = bytes.dropFirst().dropLast()
        if inner.first == UInt8(ascii: "v") || inner.first == UInt8(ascii: "V") { return allowsFuture && isIPvFuture(inner.dropFirst()) }
        return isIPv6Address(inner)
    }

    /// `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`, after the `v`.
    private static func isIPvFuture(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let version = bytes[..<dot], address = bytes[(dot + 1)...]
        return !version.isEmpty && version.allSatisfy(isHexDigit)
            && !address.isEmpty && address.allSatisfy { isUnreserved($0) || isSubDelimiter($0) || $0 == UInt8(ascii: ":") }
    }

    /// RFC 3986 §3.2.2 `IPv6address`: eight 16-bit pieces of 1–4 hex digits separated by `:`, at most one `::`
    /// standing for one or more zero pieces, and the last two pieces optionally an IPv4 dotted quad.
    private static func isIPv6Address(_ bytes: ArraySlice<UInt8>) -> Bool {
        let colon = UInt8(ascii: ":")
        var doubleColon: Int?
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == colon && bytes[index + 1] == colon {
                if doubleColon != nil { return false }
                doubleColon = index
                index += 2
            } else {
                index += 1
            }
        }
        guard let doubleColon else { return pieceCount(bytes, endsAddress: true) == 8 }
        guard let head = pieceCount(bytes[..<doubleColon], endsAddress: false),
              let tail = pieceCount(bytes[(doubleColon + 2)...], endsAddress: true)
        else { return false }
        return head + tail <= 7
    }

    /// How many 16-bit pieces `h16 *( ":" h16 )` holds (an IPv4 ending counts two), or nil when malformed.
    private static func pieceCount(_ bytes: ArraySlice<UInt8>, endsAddress: Bool) -> Int? {
        if bytes.isEmpty { return 0 }
        let parts = bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        var count = 0
        for (offset, part) in parts.enumerated() {
            if endsAddress && offset == parts.count - 1 && part.contains(UInt8(ascii: ".")) {
                guard isIPv4Address(part) else { return nil }
                count += 2
            } else {
                guard (1...4).contains(part.count), part.allSatisfy(isHexDigit) else { return nil }
                count += 1
            }
        }
        return count
    }

    /// `dec-octet "." dec-octet "." dec-octet "." dec-octet`: 0–255 each, no leading zero (RFC 3986 §3.2.2).
    private static func isIPv4Address(_ bytes: ArraySlice<UInt8>) -> Bool {
        let octets = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { octet in
            guard (1...3).contains(octet.count), octet.allSatisfy(isDigit) else { return false }
            if octet.count > 1 && octet.first == UInt8(ascii: "0") { return false }
            return octet.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
        }
    }

    package static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    package static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    package static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3).
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="` (RFC 3986 §2.2).
    package static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }
}
