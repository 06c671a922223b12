// SPDX-License-Identifier: MIT

/// Which forwarded headers a trusted proxy in front of the sandbox sets (`--trust-proxy`), and so count for hrefs.
public struct TrustedForwardedHeaders: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// RFC 7239 `Forwarded`.
    public static let forwarded = TrustedForwardedHeaders(rawValue: 1 << 0)
    /// `X-Forwarded-Proto` and `X-Forwarded-Host`.
    public static let xForwarded = TrustedForwardedHeaders(rawValue: 1 << 1)
    public static let all: TrustedForwardedHeaders = [.forwarded, .xForwarded]
}

extension HTTPRequest {
    /// The scheme and authority the client used to reach this server (`https://sandbox.example.test:8443`).
    ///
    /// Without a trusted proxy (the default): `Host` over http. `Forwarded` and `X-Forwarded-*` are ignored, since
    /// any client can send them: a payment SDK may send `Forwarded: for=<payer ip>; proto=https` on every call,
    /// which would turn every href https on a plain-http sandbox.
    ///
    /// With ``trustedForwardedHeaders`` (`--trust-proxy`): the proxy's values, from the headers named there. Each
    /// proxy appends its element to `Forwarded` (RFC 7239 §4) and its value to an `X-Forwarded-*` list, so what the
    /// proxy next to the sandbox says is the LAST element / value; anything before it came from further out, possibly
    /// from the client. So: the last `Forwarded` element's `proto` / `host`, else the last value of
    /// `X-Forwarded-Proto` / `X-Forwarded-Host`, else `Host` over http. (docker/nginx.conf replaces the X-Forwarded
    /// ones and removes `Forwarded`, and compose trusts only the X-Forwarded ones.)
    ///
    /// A scheme other than http/https or a host that is not a plain `host[:port]` is ignored, so a header cannot
    /// inject text into the hrefs built on it. nil when no valid host is known.
    ///
    /// ``publicOriginOverride`` wins over all of this (without a trailing `/`): the configured public base URL, or the
    /// URL an in-process client used. Neither comes from the request's headers.
    package var publicOrigin: String? {
        if let override = publicOriginOverride, !override.isEmpty {
            return override.hasSuffix("/") ? String(override.dropLast()) : override
        }
        // No trusted proxy (the default): `Host` over http, made in one string.
        if trustedForwardedHeaders.isEmpty { return headers["Host"].flatMap(Self.httpOrigin(host:)) }
        var scheme: String?, host: String?
        if trustedForwardedHeaders.contains(.forwarded) {
            // Several field lines of one name are one comma-separated list (RFC 9110 §5.3).
            if let last = Self.lastForwardedElement(headers.values(for: "Forwarded").joined(separator: ",")) {
                for pair in Self.split(last, on: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    var value = parts[1].trimmingSpaces
                    if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
                    switch parts[0].trimmingSpaces.lowercased() {
                    case "proto": scheme = Self.validScheme(value)
                    case "host": host = Self.validHost(value)
                    default: break
                    }
                }
            }
        }
        if trustedForwardedHeaders.contains(.xForwarded) {
            scheme = scheme ?? Self.validScheme(Self.lastListValue(headers.values(for: "X-Forwarded-Proto")))
            host = host ?? Self.validHost(Self.lastListValue(headers.values(for: "X-Forwarded-Host")))
        }
        host = host ?? headers["Host"].flatMap { Self.validHost(Substring($0)) }
        guard let host else { return nil }
        return (scheme ?? "http") + "://" + host
    }

    /// The last element of a `Forwarded` field value (commas inside quoted strings do not separate elements).
    private static func lastForwardedElement(_ value: String) -> Substring? {
        split(Substring(value), on: ",").last { !$0.trimmingSpaces.isEmpty }
    }

    /// The last non-empty value of the comma-separated lists in `fields` (an `X-Forwarded-*` header's lines).
    private static func lastListValue(_ fields: [String]) -> Substring {
        fields.joined(separator: ",").split(separator: ",").last { !$0.trimmingSpaces.isEmpty } ?? ""
    }

    /// `text` split on `separator` outside RFC 9110 quoted strings (with `\` escapes).
    private static func split(_ text: Substring, on separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex, quoted = false, escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped { escaped = false; continue }
            if quoted && character == "\\" { escaped = true; continue }
            if character == "\"" { quoted.toggle(); continue }
            if !quoted && character == separator {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        parts.append(text[start...])
        return parts
    }

    private static func validScheme(_ text: Substring) -> String? {
        let scheme = text.trimmingSpaces.lowercased()
        return scheme == "http" || scheme == "https" ? scheme : nil
    }

    /// `host [ ":" port ]`: a name of letters, digits and `.-_`, or a well-formed `[IPv6]` literal (RFC 3986 §3.2.2;
    /// not IPvFuture, whose sub-delims could break out of an href), and a port of digits ≤ 65535 (§3.2.3).
    private static func validHost(_ text: Substring) -> String? {
        var text = text
        return text.withUTF8 { validHost(bytes: $0) }
    }

    /// `http://` and ``validHost(_:)`` of `value`, written into one new string; a name is checked here on the value's
    /// bytes (an IP literal as ``validHost(_:)`` checks it).
    static func httpOrigin(host value: String) -> String? {
        var value = value
        return value.withUTF8 { bytes -> String? in
            var start = 0, end = bytes.count
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            let host = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard host.first != UInt8(ascii: "[") else { return validHost(bytes: bytes).map { "http://" + $0 } }
            guard isNameAndPort(host) else { return nil }
            let scheme: StaticString = "http://"
            return String(unsafeUninitializedCapacity: scheme.utf8CodeUnitCount + host.count) { out in
                out.baseAddress!.initialize(from: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
                (out.baseAddress! + scheme.utf8CodeUnitCount).initialize(from: host.baseAddress!, count: host.count)
                return scheme.utf8CodeUnitCount + host.count
            }
        }
    }

    /// What ``validHost(bytes:)`` takes that is not an IP literal: 1 to 255 bytes, a name of letters, digits and `.-_`,
    /// then nothing or `:` and a port of digits ≤ 65535.
    private static func isNameAndPort(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !host.isEmpty, host.count <= 255 else { return false }
        let nameEnd = host.firstIndex(of: UInt8(ascii: ":")) ?? host.count
        guard nameEnd > 0, host[..<nameEnd].allSatisfy({ URIAuthority.isAlpha($0) || URIAuthority.isDigit($0) || $0 == UInt8(ascii: ".")
                                                         || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return false }
        var port = 0
        for byte in host[min(nameEnd + 1, host.count)...] {
            guard URIAuthority.isDigit(byte) else { return false }
            port = port * 10 + Int(byte - UInt8(ascii: "0"))
            if port > 65535 { return false }
        }
        return true
    }

    /// ``validHost(_:)`` on the value's bytes: spaces and tabs trimmed at both ends, as `trimmingSpaces` does
    /// (anything else that is not ASCII fails the checks below either way).
    private static func validHost(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        let host = Array(bytes[start..<end])
        guard !host.isEmpty, host.count <= 255, let (name, port) = URIAuthority.splitHostAndPort(host[...]),
              port.map(URIAuthority.isPort) ?? true
        else { return nil }
        if name.first == UInt8(ascii: "[") {
            guard URIAuthority.isIPLiteral(name, allowsFuture: false) else { return nil }
        } else {
            guard !name.isEmpty, name.allSatisfy({ URIAuthority.isAlpha($0) || URIAuthority.isDigit($0) || $0 == UInt8(ascii: ".")
                                                   || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
            else { return nil }
        }
        return String(decoding: host, as: UTF8.self)
    }
}

private extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
