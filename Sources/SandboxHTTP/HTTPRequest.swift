// SPDX-License-Identifier: MIT
import Foundation

/// A fully received HTTP request: head, body and any chunked trailers.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The request-target exactly as it appeared on the request line.
    package var target: String
    /// The percent-decoded path ("/payments/v1/sessions"); "*" for `OPTIONS *`.
    package var path: String
    /// The path as sent, still percent-encoded; routing splits this on "/" before decoding each segment.
    package var rawPath: String
    /// Query parameters in order, percent-decoded, "+" read as a space (HTML form rules).
    package var query: [QueryItem]
    package var version: HTTPVersion
    package var headers: HTTPHeaders
    package var body: Data
    /// Trailer fields of a chunked body (RFC 9112 §7.1.2).
    package var trailers: HTTPHeaders
    /// Values bound by the route pattern (":name" segments).
    package var parameters: RouteParameters
    /// A short id unique within this server, for logs and correlation ids.
    package var id: String
    /// The forwarded headers a trusted proxy sets (``HTTPServerConfiguration/trustedForwardedHeaders``);
    /// ``publicOrigin`` reads only these.
    package var trustedForwardedHeaders: TrustedForwardedHeaders = []
    /// The origin (or base URL) ``publicOrigin`` returns whatever the headers say: the configured one
    /// (``HTTPServerConfiguration/publicBaseURL``, set on every request by the server and by in-process dispatch), or
    /// for an in-process request the scheme and authority of the URL its client used, which the dispatch keeps.
    package var publicOriginOverride: String?

    package struct QueryItem: Sendable, Equatable {
        package var name: String
        package var value: String
        package init(name: String, value: String) { self.name = name; self.value = value }
    }

    package init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:],
        body: Data = Data(), trailers: HTTPHeaders = [:], id: String = "test"
    ) throws(HTTPRequestTargetError) {
        let parsed = try RequestTarget.parse(target, method: method)
        self.method = method
        self.target = target
        self.path = parsed.path
        self.rawPath = parsed.rawPath
        self.query = parsed.query
        self.version = version
        self.headers = headers
        self.body = body
        self.trailers = trailers
        self.parameters = RouteParameters()
        self.id = id
    }

    /// The first query value named `name`.
    package func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Whether the connection stays open after this request (RFC 9112 §9.3).
    package var wantsKeepAlive: Bool {
        if version == .http1_0 { return headers.containsToken("keep-alive", in: "Connection") }
        return !headers.containsToken("close", in: "Connection")
    }
}

/// Values bound by a route's ":name" segments, percent-decoded.
package struct RouteParameters: Sendable, Equatable {
    package private(set) var values: [(name: String, value: String)] = []
    package init() {}
    package subscript(name: String) -> String? { values.first { $0.name == name }?.value }
    mutating func append(name: String, value: String) { values.append((name, value)) }
    func appending(name: String, value: String) -> RouteParameters {
        var copy = self
        copy.append(name: name, value: value)
        return copy
    }
    /// The value of `name`, or a 500 if the route has no such parameter (a programming error in a route).
    package func require(_ name: String) throws -> String {
        guard let value = self[name] else { throw HTTPError(.internalServerError, "route has no parameter \(name)") }
        return value
    }
    package static func == (lhs: RouteParameters, rhs: RouteParameters) -> Bool {
        lhs.values.elementsEqual(rhs.values) { $0.name == $1.name && $0.value == $1.value }
    }
}

package struct HTTPRequestTargetError: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}

/// Splits a request-target into path and query (RFC 9112 §3.2): origin-form, absolute-form,
/// asterisk-form (OPTIONS only) and authority-form (CONNECT only).
package enum RequestTarget {
    struct Parsed { var rawPath: String; var path: String; var query: [HTTPRequest.QueryItem] }

    static func parse(_ target: String, method: HTTPMethod) throws(HTTPRequestTargetError) -> Parsed {
        if target == "*" {
            guard method == .options else { throw HTTPRequestTargetError(reason: "asterisk-form is only for OPTIONS") }
            return Parsed(rawPath: "*", path: "*", query: [])
        }
        if method == .connect {
            // authority-form: host:port. Routed as is; nothing here tunnels.
            return Parsed(rawPath: target, path: target, query: [])
        }
        // The common target, a path with nothing to split or decode, is its own raw and decoded path.
        if isPlainPath(target) { return Parsed(rawPath: target, path: target, query: []) }
        var rest = Substring(target)
        // RFC 9112 §3.2: a request-target carries no fragment. Clients strip it; if one comes anyway it is
        // dropped rather than read as part of the path or the last query value (llhttp accepts "#" too).
        // Searched as bytes: the Character view's grapheme breaking is wasted on an ASCII request-target.
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        if rest.utf8.first != UInt8(ascii: "/") {
            // absolute-form: scheme "://" authority path-abempty [ "?" query ]
            guard let schemeEnd = rest.range(of: "://"),
                  rest[..<schemeEnd.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
                  !rest[..<schemeEnd.lowerBound].isEmpty
            else { throw HTTPRequestTargetError(reason: "request-target must start with \"/\"") }
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            guard authorityEnd != rest.startIndex else { throw HTTPRequestTargetError(reason: "absolute-form without a host") }
            rest = rest[authorityEnd...]
            if !rest.hasPrefix("/") { rest = "/" + rest }
        }
        let queryStart = rest.utf8.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = String(rest[..<(queryStart ?? rest.endIndex)])
        guard let path = percentDecode(rawPath, plusAsSpace: false) else {
            throw HTTPRequestTargetError(reason: "invalid percent-encoding in path")
        }
        var query: [HTTPRequest.QueryItem] = []
        if let queryStart {
            for pair in rest[rest.index(after: queryStart)...].split(separator: "&", omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: "=")
                let rawName = pair[..<(equals ?? pair.endIndex)]
                let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
                guard let name = percentDecode(rawName, plusAsSpace: true),
                      let value = percentDecode(rawValue, plusAsSpace: true)
                else { throw HTTPRequestTargetError(reason: "invalid percent-encoding in query") }
                query.append(.init(name: name, value: value))
            }
        }
        return Parsed(rawPath: rawPath, path: path, query: query)
    }

    /// Origin-form without `?`, `#` or `%`.
    private static func isPlainPath(_ target: String) -> Bool {
        var target = target
        return target.withUTF8 { bytes in
            guard bytes.first == UInt8(ascii: "/") else { return false }
            for byte in bytes where byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "%") { return false }
            return true
        }
    }

    /// Decodes %XX escapes; nil for a broken escape or bytes that are not UTF-8.
    static func percentDecode(_ text: some StringProtocol, plusAsSpace: Bool) -> String? {
        let utf8 = text.utf8
        if !utf8.contains(UInt8(ascii: "%")) && !(plusAsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace: bytes.append(UInt8(ascii: " "))
            default: bytes.append(byte)
            }
        }
        return String(validUTF8: bytes)
    }

    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
