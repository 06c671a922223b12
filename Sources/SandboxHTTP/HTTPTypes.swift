// SPDX-License-Identifier: MIT
// Basic HTTP vocabulary: methods, versions, statuses, header fields (RFC 9110).

/// An HTTP request method. Any RFC 9110 token is a valid method; the constants cover the common ones.
package struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }
    package var description: String { rawValue }

    package static let get: HTTPMethod = "GET"
    package static let head: HTTPMethod = "HEAD"
    package static let post: HTTPMethod = "POST"
    package static let put: HTTPMethod = "PUT"
    package static let patch: HTTPMethod = "PATCH"
    package static let delete: HTTPMethod = "DELETE"
    package static let options: HTTPMethod = "OPTIONS"
    package static let connect: HTTPMethod = "CONNECT"
    package static let trace: HTTPMethod = "TRACE"
}

/// The protocol version of a request line. Only HTTP/1.0 and HTTP/1.1 are served (RFC 9112 §2.3).
package struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
    package var major: Int
    package var minor: Int
    package init(major: Int, minor: Int) { self.major = major; self.minor = minor }
    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)
    package var description: String { "HTTP/\(major).\(minor)" }
}

/// A response status code with its reason phrase.
package struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    package var code: Int
    package var reasonPhrase: String
    package init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? HTTPStatus.standardReasonPhrase(code)
    }
    package var description: String { "\(code) \(reasonPhrase)" }

    package static let `continue` = HTTPStatus(code: 100)
    package static let ok = HTTPStatus(code: 200)
    package static let created = HTTPStatus(code: 201)
    package static let accepted = HTTPStatus(code: 202)
    package static let noContent = HTTPStatus(code: 204)
    package static let seeOther = HTTPStatus(code: 303)
    package static let badRequest = HTTPStatus(code: 400)
    package static let unauthorized = HTTPStatus(code: 401)
    package static let forbidden = HTTPStatus(code: 403)
    package static let notFound = HTTPStatus(code: 404)
    package static let methodNotAllowed = HTTPStatus(code: 405)
    package static let requestTimeout = HTTPStatus(code: 408)
    package static let conflict = HTTPStatus(code: 409)
    package static let contentTooLarge = HTTPStatus(code: 413)
    package static let unsupportedMediaType = HTTPStatus(code: 415)
    package static let expectationFailed = HTTPStatus(code: 417)
    package static let unprocessableContent = HTTPStatus(code: 422)
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    package static let internalServerError = HTTPStatus(code: 500)
    package static let notImplemented = HTTPStatus(code: 501)
    package static let badGateway = HTTPStatus(code: 502)
    package static let serviceUnavailable = HTTPStatus(code: 503)
    package static let gatewayTimeout = HTTPStatus(code: 504)
    package static let httpVersionNotSupported = HTTPStatus(code: 505)

    /// RFC 9110 §15 reason phrases.
    package static func standardReasonPhrase(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 425: "Too Early"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(code)"
        }
    }
}

/// Header fields in the order they arrived. Names compare case-insensitively (RFC 9110 §5.1);
/// repeated fields are kept as separate entries.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
        package init(name: String, value: String) { self.name = name; self.value = value }
    }

    package private(set) var fields: [Field] = []

    package init() {}
    package init(_ pairs: [(String, String)]) { fields = pairs.map { Field(name: $0.0, value: $0.1) } }
    package init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    package var count: Int { fields.count }
    package var isEmpty: Bool { fields.isEmpty }
    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? {
        for field in fields where Self.sameName(field.name, name) { return field.value }
        return nil
    }

    /// Every value of `name`, in order.
    package func values(for name: String) -> [String] {
        var found: [String] = []
        for field in fields where Self.sameName(field.name, name) { found.append(field.value) }
        return found
    }

    package func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones of the same name.
    package mutating func add(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// Replaces every field of `name` with one field.
    package mutating func set(name: String, value: String) {
        remove(name: name)
        fields.append(Field(name: name, value: value))
    }

    package mutating func remove(name: String) {
        guard fields.contains(where: { Self.sameName($0.name, name) }) else { return }
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// The comma-separated list elements of every `name` field, trimmed and lower-cased (RFC 9110 §5.6.1).
    package func tokens(for name: String) -> [String] {
        guard contains(name) else { return [] }
        return values(for: name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingOWS().lowercasedASCII() }
            .filter { !$0.isEmpty }
    }

    /// Whether a list element of a `name` field is `token` (lower-case), as ``tokens(for:)`` reads them; allocates nothing.
    package func containsToken(_ token: StaticString, in name: String) -> Bool {
        for field in fields where Self.sameName(field.name, name) {
            var value = field.value
            let found = value.withUTF8 { bytes in HTTPHeaders.listContains(bytes, token) }
            if found { return true }
        }
        return false
    }

    /// Whether the comma-separated list `bytes` has an element (OWS trimmed, ASCII case ignored) equal to `token`.
    private static func listContains(_ bytes: UnsafeBufferPointer<UInt8>, _ token: StaticString) -> Bool {
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
            var first = start, last = end
            while first < last && (bytes[first] == .space || bytes[first] == .tab) { first += 1 }
            while last > first && (bytes[last - 1] == .space || bytes[last - 1] == .tab) { last -= 1 }
            if last - first == token.utf8CodeUnitCount {
                var equal = true
                for offset in 0..<(last - first) where lowered(bytes[first + offset]) != token.utf8Start[offset] {
                    equal = false
                    break
                }
                if equal { return true }
            }
            start = end + 1
        }
        return false
    }

    @inline(__always)
    private static func lowered(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    /// Field names compare case-insensitively: the byte counts first (O(1) for native strings), then the bytes.
    @inline(__always)
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var lhs = lhs, rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                for index in 0..<left.count {
                    let a = left[index], b = right[index]
                    if a != b && !(a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A) { return false }
                }
                return true
            }
        }
    }
}

extension String {
    /// `hasPrefix(prefix)`, comparing bytes where that gives the same answer: while the bytes compared and the one
    /// after them are ASCII but LF (each its own character, unchanged by normalization).
    package func hasPathPrefix(_ prefix: String) -> Bool {
        var text = self, prefix = prefix
        let answer: Bool? = text.withUTF8 { text in
            prefix.withUTF8 { start -> Bool? in
                guard text.count >= start.count else { return start.contains { $0 >= 0x80 } ? nil : false }
                for index in 0..<start.count {
                    let byte = start[index], own = text[index]
                    if own >= 0x80 || byte >= 0x80 { return nil }
                    if own != byte { return false }
                }
                if text.count > start.count, text[start.count] >= 0x80 || text[start.count] == .lf { return nil }
                return true
            }
        }
        return answer ?? hasPrefix(prefix)
    }
}

extension StringProtocol {
    /// ASCII case-insensitive comparison, the rule for header names and tokens.
    package func equalsCaseInsensitiveASCII(_ other: some StringProtocol) -> Bool {
        var lhs = utf8.makeIterator(), rhs = other.utf8.makeIterator()
        while true {
            switch (lhs.next(), rhs.next()) {
            case (nil, nil): return true
            case let (a?, b?):
                if a == b { continue }
                if a | 0x20 == b | 0x20, (a | 0x20) >= 0x61, (a | 0x20) <= 0x7A { continue }
                return false
            default: return false
            }
        }
    }

    func lowercasedASCII() -> String {
        String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Drops optional whitespace (SP / HTAB) from both ends.
    func trimmingOWS() -> Substring {
        var s = Substring(self)
        while let first = s.first, first == " " || first == "\t" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" { s.removeLast() }
        return s
    }
}

// The state file keeps answers (``HTTPResponse``): their status and headers.
extension HTTPStatus: Codable {}
extension HTTPHeaders: Codable {}
extension HTTPHeaders.Field: Codable {}
