// SPDX-License-Identifier: MIT

extension HTTPRequest {
    /// The scheme and authority the client used to reach this server (`https://sandbox.example.test:8443`), as the
    /// proxy in front of it reports them: RFC 7239 `Forwarded` (its first element, the client's side), else the first
    /// values of `X-Forwarded-Proto` / `X-Forwarded-Host`, else `Host` over http. A scheme other than http/https or a
    /// host that is not a plain `host[:port]` is ignored, so a header cannot inject text into the hrefs built on it.
    /// nil when no valid host is known.
    public var publicOrigin: String? {
        var scheme: String?, host: String?
        if let forwarded = headers["Forwarded"], let first = forwarded.split(separator: ",").first {
            for pair in first.split(separator: ";") {
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
        scheme = scheme ?? headers["X-Forwarded-Proto"].flatMap { Self.validScheme($0.split(separator: ",").first ?? "") }
        host = host ?? headers["X-Forwarded-Host"].flatMap { Self.validHost($0.split(separator: ",").first ?? "") }
            ?? headers["Host"].flatMap { Self.validHost(Substring($0)) }
        guard let host else { return nil }
        return "\(scheme ?? "http")://\(host)"
    }

    private static func validScheme(_ text: Substring) -> String? {
        let scheme = text.trimmingSpaces.lowercased()
        return scheme == "http" || scheme == "https" ? scheme : nil
    }

    /// A reg-name or IP literal with an optional port: letters, digits, `.-_:[]` only.
    private static func validHost(_ text: Substring) -> String? {
        let host = text.trimmingSpaces
        guard !host.isEmpty, host.utf8.count <= 255, host.utf8.allSatisfy({ byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                true
            default:
                false
            }
        }) else { return nil }
        return String(host)
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
