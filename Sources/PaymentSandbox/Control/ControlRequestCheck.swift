// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP

/// The access check of `/__sandbox/` (registered by ``PaymentSandbox`` for ``ControlToken/protectedPrefix``), with or
/// without a control token. A browser on the developer's machine must not be able to drive the control API for a
/// web page of another site, so, in this order:
///
/// 1. **Host** (against DNS rebinding: a page of `evil.example` whose name then resolves to 127.0.0.1 reads and posts
///    to the sandbox as its own origin, but its requests still say `Host: evil.example`). `Host`, and behind a trusted
///    proxy the forwarded host too (``HTTPServerConfiguration/trustedForwardedHeaders``), must be a name the sandbox
///    serves (``ControlHosts``), else 403.
/// 2. The control token, when one is configured (``ControlToken``), else nothing.
/// 3. **Writes** (every method but GET, HEAD, OPTIONS and TRACE, the safe ones of RFC 9110 §9.2.1), against the
///    requests a page of any site can make without CORS (an HTML form, `fetch` with `no-cors`; the sandbox answers no
///    CORS preflight, so only these "simple" requests can reach it cross-site, Fetch standard §4.1 "CORS-safelisted"):
///    - a body needs a JSON `Content-Type` (`application/json` or `application/…+json`, any parameters, any case),
///      which no form and no simple request can send: else 415;
///    - a request that says it comes from another site (`Sec-Fetch-Site: cross-site`, or an `Origin` that is `null`
///      or not the origin the request was sent to) is refused with a 403, with a body or without.
///    A call from a test, a script or curl sends no `Origin` and passes.
///
/// Open to any Host, method and body, as before: `GET /__sandbox/health` (Docker's HEALTHCHECK) and the addresses a
/// consumer's browser is sent to (``openPrefixes``: each provider's ``SandboxProvider/browserPrefixes``, such as a
/// hosted page's form posts or a `redirect_url`), which act on one session or order whose random id only its link carries. `/__sandbox/echo` is
/// open to any Host and skips the write rules (it changes nothing and shows only the request it was sent), but keeps
/// the control token. The page `/__sandbox/ui` gets the Host check and the token but not the write rules: its forms
/// are form-encoded and carry a `csrf` value (SandboxUI.swift). Under a control token the page has its own check
/// (``SandboxUIAccess``, the longer prefix), which the token already closes to a page that does not know it.
///
/// A request handed over in-process (``PaymentSandbox/respond(to:)``: `SandboxClient`, `SandboxURLProtocol`) skips the
/// Host check (``checkingNoHost()``): no browser sends it, and its `Host` is whatever its URL names (the registered
/// `api.playground.klarna.com`). The other steps apply as over a socket.
struct ControlRequestCheck: Sendable {
    let hosts: ControlHosts
    /// The origin of ``SandboxConfiguration/publicBaseURL`` (`https://localhost:8443`), also the request's own.
    let publicOrigin: ControlHosts.Origin?
    let token: ControlToken?
    /// Paths under `/__sandbox/` a consumer's browser is sent to: the providers' ``SandboxProvider/browserPrefixes``.
    let openPrefixes: [String]
    /// Off for ``PaymentSandbox/respond(to:)``: a request handed over in-process comes from no browser.
    private(set) var checksHost = true

    init(configuration: SandboxConfiguration, openPrefixes: [String]) {
        self.openPrefixes = openPrefixes
        hosts = ControlHosts(allowedHosts: configuration.allowedHosts, publicBaseURL: configuration.publicBaseURL)
        publicOrigin = configuration.publicBaseURL.flatMap(ControlHosts.Origin.init)
        token = configuration.controlToken.map(ControlToken.init)
    }

    /// This check without step 1 (Host).
    func checkingNoHost() -> ControlRequestCheck {
        var check = self
        check.checksHost = false
        return check
    }

    func check(_ request: inout HTTPRequest) throws {
        // On the path as sent, as ControlToken does: a percent-encoded variant of an open path is not open.
        let rawPath = request.rawPath
        if rawPath == "/__sandbox/health" || openPrefixes.contains(where: rawPath.hasPrefix) { return }
        let echo = rawPath == "/__sandbox/echo" || rawPath.hasPrefix("/__sandbox/echo/")
        if checksHost && !echo { try checkHost(request) }
        try token?.check(&request)
        // The page's forms are form-encoded, with their own CSRF value; the router chose this check on the decoded path.
        if echo || request.path.hasPrefix(SandboxUI.pathPrefix) || Self.isSafe(request.method) { return }
        if !request.body.isEmpty { try checkJSONContentType(request) }
        try checkSameOrigin(request)
    }

    static let safeMethods: Set<HTTPMethod> = [.get, .head, .options, .trace]

    /// ``safeMethods`` contains `method` (without hashing it).
    private static func isSafe(_ method: HTTPMethod) -> Bool {
        method == .get || method == .head || method == .options || method == .trace
    }

    // MARK: Host

    private func checkHost(_ request: HTTPRequest) throws {
        // HTTP/1.1 requires Host (the parser refuses a request without it, RFC 9112 §3.2); an HTTP/1.0 request
        // without one comes from no browser.
        if let host = request.headers["Host"], !hosts.allows(authority: host) { throw refusal(host: host, what: "Host") }
        if let forwarded = forwardedAuthority(request), !hosts.allows(authority: forwarded) {
            throw refusal(host: forwarded, what: "the forwarded host")
        }
    }

    /// The host a trusted proxy forwarded (`X-Forwarded-Host`, `Forwarded: host=`), when it trusts one and it differs.
    private func forwardedAuthority(_ request: HTTPRequest) -> String? {
        guard !request.trustedForwardedHeaders.isEmpty else { return nil }
        var own = request
        own.publicOriginOverride = nil
        guard let origin = own.publicOrigin, let range = origin.range(of: "://") else { return nil }
        let authority = String(origin[range.upperBound...])
        return authority == request.headers["Host"] ? nil : authority
    }

    private func refusal(host: String, what: String) -> ControlRequestRefusal {
        let name = ControlHosts.Authority(host)?.host ?? host
        return ControlRequestRefusal(status: .forbidden, message: "the control API answers only to the names the sandbox serves, "
            + "and \(what) \"\(host)\" is none of them (IP addresses, localhost, *.localhost, names without a dot, the --public-url host "
            + "and the --allowed-host names are): start the sandbox with --allowed-host \(name) "
            + "(PAYMENT_SANDBOX_ALLOWED_HOSTS) to answer to it, or call it by one of those")
    }

    // MARK: Writes

    private func checkJSONContentType(_ request: HTTPRequest) throws {
        let types = request.headers.values(for: "Content-Type")
        guard types.count == 1, Self.isJSON(types[0]) else {
            let given = types.isEmpty ? "no Content-Type" : "Content-Type \"\(types.joined(separator: ", "))\""
            throw ControlRequestRefusal(status: .unsupportedMediaType, message: "a control call with a body takes JSON: send it with "
                + "\"Content-Type: application/json\" (this one has \(given); curl -d sends application/x-www-form-urlencoded: add "
                + "-H 'Content-Type: application/json'). Only JSON, which no web page can post without the sandbox's consent, is taken")
        }
    }

    /// `application/json` or `application/<anything>+json` (RFC 6839 §3.1), parameters ignored, in any case.
    static func isJSON(_ contentType: String) -> Bool {
        if let ascii = isJSONASCII(contentType) { return ascii }
        return isJSONText(contentType)
    }

    /// ``isJSON(_:)`` on characters: for any value.
    static func isJSONText(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType.hasPrefix("application/") else { return false }
        let subtype = mediaType.dropFirst("application/".count)
        return subtype == "json" || (subtype.hasSuffix("+json") && subtype.count > "+json".count)
    }

    /// ``isJSON(_:)`` on the bytes of a value of printable ASCII and tabs (one character a byte, whitespace only space and
    /// tab: the same answer); nil for any other value.
    /// Reads the value's contiguous bytes: the generic slicing of a `String.UTF8View` cost a control write ~8,000
    /// instructions.
    private static func isJSONASCII(_ contentType: String) -> Bool? {
        var contentType = contentType
        return contentType.withUTF8 { bytes -> Bool? in
            guard bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }) else { return nil }
            var start = 0, end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            let prefix: StaticString = "application/"
            guard end - start >= prefix.utf8CodeUnitCount, ASCII.equalsLowered(bytes, start, prefix) else { return false }
            let subtype = start + prefix.utf8CodeUnitCount
            if end - subtype == 4 && ASCII.equalsLowered(bytes, subtype, "json") { return true }
            return end - subtype > 5 && ASCII.equalsLowered(bytes, end - 5, "+json")
        }
    }

    private func checkSameOrigin(_ request: HTTPRequest) throws {
        if request.headers.values(for: "Sec-Fetch-Site").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "cross-site" }) {
            throw crossSite("Sec-Fetch-Site: cross-site")
        }
        for origin in request.headers.values(for: "Origin") where !isOwnOrigin(origin, request) {
            throw crossSite("Origin: \(origin)")
        }
    }

    /// Whether `origin` is where the request was sent: its `Host`, the forwarded host of a trusted proxy, or the
    /// configured public URL. `null` (a sandboxed frame, a `data:` page) is never.
    private func isOwnOrigin(_ text: String, _ request: HTTPRequest) -> Bool {
        guard let origin = ControlHosts.Origin(text) else { return false }
        if let host = request.headers["Host"].flatMap(ControlHosts.Authority.init),
           host.host == origin.host && (host.port ?? origin.defaultPort) == origin.port {
            return true
        }
        var own = request
        own.publicOriginOverride = nil
        if !request.trustedForwardedHeaders.isEmpty, let forwarded = own.publicOrigin.flatMap(ControlHosts.Origin.init),
           forwarded == origin {
            return true
        }
        return publicOrigin == origin
    }

    private func crossSite(_ what: String) -> ControlRequestRefusal {
        ControlRequestRefusal(status: .forbidden, message: "the control API takes no writes from a page of another site (\(what)): "
            + "send the call from a test, a script or curl, without an Origin header of another site, or use the page /__sandbox/ui")
    }
}

/// The names `/__sandbox/` answers to (``ControlRequestCheck``'s Host check). DNS rebinding needs a DNS name that the
/// attacker's name server answers, so these are safe to accept: IP literals (v4 dotted, v6 in brackets), `localhost`
/// and `*.localhost` (RFC 6761 §6.3: never sent to DNS), names without a dot (Docker/compose service names such as
/// `sandbox`; a browser resolves them through the hosts file or the local search domains); also the host of
/// ``SandboxConfiguration/publicBaseURL`` and the names of ``SandboxConfiguration/allowedHosts`` (`*` for any).
struct ControlHosts: Sendable {
    let anyHost: Bool
    let names: Set<String>

    init(allowedHosts: [String], publicBaseURL: String?) {
        anyHost = allowedHosts.contains { $0.trimmingCharacters(in: .whitespaces) == "*" }
        var names = Set(allowedHosts.compactMap { Authority($0.trimmingCharacters(in: .whitespaces))?.host })
        if let host = publicBaseURL.flatMap(Origin.init)?.host { names.insert(host) }
        self.names = names
    }

    /// Whether a `Host` value (`host[:port]`) names the sandbox.
    func allows(authority text: String) -> Bool {
        if anyHost { return true }
        if let answer = ASCIIAuthority.allows(text, names: names) { return answer }
        return allowsText(text)
    }

    /// ``allows(authority:)`` on characters (``Authority``): for any value.
    func allowsText(_ text: String) -> Bool {
        if anyHost { return true }
        guard let authority = Authority(text) else { return false }
        let host = authority.host
        return host.hasPrefix("[") || Self.isIPv4(host) || host == "localhost" || host.hasSuffix(".localhost")
            || !host.contains(".") || names.contains(host)
    }

    /// Four decimal octets (RFC 3986 §3.2.2 IPv4address); a browser sends an IPv4 host in this form only.
    static func isIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy(\.isASCIIDigit) && Int(part).map { $0 <= 255 } == true
        }
    }

    /// `host[:port]` of a `Host` field (RFC 9110 §7.2): the host lowercased, without a final dot (`localhost.` is
    /// `localhost`); an IPv6 literal keeps its brackets. nil for anything else.
    struct Authority: Equatable {
        var host: String
        var port: Int?

        init?(_ text: String) {
            var rest = Substring(text.lowercased())
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let literal = rest[rest.index(after: rest.startIndex)..<close]
                guard literal.contains(":"), literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
                host = String(rest[...close])
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ":") ?? rest.endIndex
                var name = rest[..<end]
                if name.hasSuffix(".") { name = name.dropLast() }
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-._~!$&'()*+,;=%".contains($0) }) else { return nil }
                host = String(name)
                rest = rest[end...]
            }
            if rest.isEmpty { port = nil; return }
            guard rest.hasPrefix(":") else { return nil }
            let digits = rest.dropFirst()
            if digits.isEmpty { port = nil; return }
            guard digits.count <= 5, digits.allSatisfy(\.isASCIIDigit), let number = Int(digits), number <= 65535 else { return nil }
            port = number
        }
    }

    /// An http(s) origin (`scheme://host[:port]`, RFC 6454 §6.1; a base URL's path is dropped), its port made explicit.
    struct Origin: Equatable, Sendable {
        var scheme: String
        var host: String
        var port: Int

        var defaultPort: Int { scheme == "https" ? 443 : 80 }

        init?(_ text: String) {
            let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
            let scheme: String
            if lowered.hasPrefix("http://") { scheme = "http" } else if lowered.hasPrefix("https://") { scheme = "https" } else { return nil }
            let rest = lowered.dropFirst(scheme.count + 3)
            let authorityText = rest.prefix { $0 != "/" }
            guard let authority = Authority(String(authorityText)) else { return nil }
            self.scheme = scheme
            host = authority.host
            port = authority.port ?? (scheme == "https" ? 443 : 80)
        }
    }
}

/// ``ControlHosts/Authority`` and the Host decisions on the bytes of a printable ASCII value, where a byte is a
/// character and lowercasing, letters and digits are ASCII's: the same answers without Unicode string handling.
enum ASCIIAuthority {
    enum Parsed { case notASCII, invalid, host([UInt8]) }

    /// The host ``ControlHosts/Authority/init(_:)`` reads from `text` (lowercased, without a final dot), or why not.
    static func host(of text: String) -> Parsed {
        let bytes = text.utf8
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return .notASCII }
        var rest = bytes.map(ASCII.lower)[...]
        var host: [UInt8]
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return .invalid }
            let literal = rest[(rest.startIndex + 1)..<close]
            guard literal.contains(UInt8(ascii: ":")), literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return .invalid }
            host = Array(rest[...close])
            rest = rest[(close + 1)...]
        } else {
            let end = rest.firstIndex(of: UInt8(ascii: ":")) ?? rest.endIndex
            var name = rest[..<end]
            if name.last == UInt8(ascii: ".") { name = name.dropLast() }
            guard !name.isEmpty, name.allSatisfy(isNameByte) else { return .invalid }
            host = Array(name)
            rest = rest[end...]
        }
        return validPort(rest) ? .host(host) : .invalid
    }

    /// ``ControlHosts/allows(authority:)`` of a printable ASCII value, on its bytes where they are (no lowercased copy,
    /// no arrays): the host ``host(of:)`` reads, tested as there. nil when the value is not printable ASCII.
    static func allows(_ text: String, names: Set<String>) -> Bool? {
        var text = text
        return text.withUTF8 { bytes -> Bool? in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            guard let end = hostEnd(bytes) else { return false }
            let host = UnsafeBufferPointer(rebasing: bytes[..<end])
            if host.first == UInt8(ascii: "[") || isIPv4(host) || (end == 9 && ASCII.equalsLowered(host, 0, "localhost")) { return true }
            if end >= 10 && ASCII.equalsLowered(host, end - 10, ".localhost") { return true }
            return !host.contains(UInt8(ascii: ".")) || names.contains(String(decoding: host.map(ASCII.lower), as: UTF8.self))
        }
    }

    /// Where the host ``host(of:)`` reads ends in `bytes` (it starts at 0; a final dot of a name is left out); nil
    /// when ``host(of:)`` finds the value invalid.
    private static func hostEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let literal = bytes[1..<close]
            guard literal.contains(UInt8(ascii: ":")), literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return nil }
            return validPort(bytes[(close + 1)...]) ? close + 1 : nil
        }
        let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
        let nameEnd = end > 0 && bytes[end - 1] == UInt8(ascii: ".") ? end - 1 : end
        guard nameEnd > 0, bytes[..<nameEnd].allSatisfy({ isNameByte(ASCII.lower($0)) }) else { return nil }
        return validPort(bytes[end...]) ? nameEnd : nil
    }

    /// ``isIPv4(_:)`` without splitting.
    static func isIPv4(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
        var parts = 0, digits = 0, value = 0
        for byte in host {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                parts += 1
                digits = 0
                value = 0
            } else {
                guard isDigit(byte), digits < 3 else { return false }
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                if value > 255 { return false }
            }
        }
        return parts == 3 && digits > 0
    }

    /// Empty, `:`, or `:` and up to 5 digits at most 65535.
    private static func validPort<Bytes: Collection<UInt8>>(_ rest: Bytes) -> Bool {
        if rest.isEmpty { return true }
        guard rest.first == UInt8(ascii: ":") else { return false }
        let digits = rest.dropFirst()
        guard digits.count <= 5, digits.allSatisfy(isDigit) else { return false }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 65535
    }

    /// ``ControlHosts/isIPv4(_:)`` on bytes.
    static func isIPv4(_ host: [UInt8]) -> Bool {
        let parts = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy(isDigit) && part.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
        }
    }

    static func hasSuffix(_ bytes: [UInt8], _ suffix: String) -> Bool {
        bytes.count >= suffix.utf8.count && bytes.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }
    /// A letter, a digit or one of `-._~!$&'()*+,;=%` (after lowercasing).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || "-._~!$&'()*+,;=%".utf8.contains(byte)
    }
}

enum ASCII {
    static func lower(_ byte: UInt8) -> UInt8 { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte }

    /// Whether the bytes at `start` lowercased are `lowercase` (the caller checked there are enough).
    static func equalsLowered(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ lowercase: StaticString) -> Bool {
        for offset in 0..<lowercase.utf8CodeUnitCount where lower(bytes[start + offset]) != lowercase.utf8Start[offset] { return false }
        return true
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// A refusal of ``ControlRequestCheck`` (403 or 415) in the control API's error format (DefaultErrorRenderer), as
/// ``ControlTokenRefusal`` answers, under every prefix of `/__sandbox/` (the Klarna SDK stand-ins' too).
struct ControlRequestRefusal: HTTPResponseError {
    var status: HTTPStatus
    var message: String

    func response(for request: HTTPRequest) -> HTTPResponse {
        DefaultErrorRenderer().render(HTTPError(status, message), for: request)
    }
}
