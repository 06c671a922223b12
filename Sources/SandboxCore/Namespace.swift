// SPDX-License-Identifier: MIT
import Foundation

/// Isolation unit: every session, token, order, clock offset and journal entry belongs to one namespace,
/// so parallel test suites sharing a sandbox never see each other's state.
///
/// Taken from the `Sandbox-Namespace` header, else the HTTP Basic user name, else the Bearer token, else
/// `default`.
///
/// A name is at most ``maxLength`` UTF-8 bytes: every journal entry, ledger and page row carries it, so a client
/// must not be able to make it large. A longer `Sandbox-Namespace` header is refused before any route runs
/// (``refusal(_:)``, answered in the path's error format); a longer Basic user, Bearer token or any other name
/// stands for the namespace ``bounded(_:)`` makes of it: its first bytes, `~` and a hash of the whole name.
@usableFromInline
package struct Namespace: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline package let name: String
    /// `name` as it is when it has at most ``maxLength`` bytes, else ``bounded(_:)`` of it.
    package init(_ name: String) {
        // O(1) for a native string: the check every request pays.
        self.name = name.utf8.count <= Namespace.maxLength ? name : Namespace.bounded(name)
    }
    @usableFromInline package var description: String { name }

    package static let `default` = Namespace("default")
    package static let headerName = "Sandbox-Namespace"
    /// The longest name, in UTF-8 bytes.
    package static let maxLength = 200

    /// The namespace the `Sandbox-Namespace` header names, if it names one (a name too long is bounded here; the
    /// sandbox refuses such a request before it gets this far, see ``refusal(_:)``).
    package init?(header request: HTTPRequest) {
        guard var name = request.headers[Namespace.headerName] else { return nil }
        // The HTTP parser strips a value's surrounding spaces and tabs (RFC 9110 §5.5); requests built in
        // code may still carry them, so trim, but only when needed (this runs for every request).
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        if let first = name.utf8.first, let last = name.utf8.last, blank(first) || blank(last) {
            name = name.trimmingCharacters(in: .whitespaces)
        }
        guard !name.isEmpty else { return nil }
        self.init(name)
    }

    package init(for request: HTTPRequest) {
        if let named = Namespace(header: request) {
            self = named
        } else if let user = BasicCredentials(request)?.user, !user.isEmpty {
            self.init(user)
        } else if let token = Namespace.bearerToken(request) {
            self.init(token)
        } else {
            self = .default
        }
    }
}

extension Namespace {
    /// A name of more than ``maxLength`` bytes as one of exactly ``maxLength``: its first 183 bytes (cut back to a
    /// whole character), `~` and the 16 hex digits of its 64-bit FNV-1a hash, so two long names that share their
    /// first bytes stay apart (a namespace is a label, not a secret: any client may name any namespace). Applying it
    /// again changes nothing.
    package static func bounded(_ name: String) -> String {
        let utf8 = name.utf8
        guard utf8.count > maxLength else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        let suffix = "~" + String(repeating: "0", count: 16 - hex.utf8.count) + hex
        var end = utf8.index(utf8.startIndex, offsetBy: maxLength - suffix.utf8.count)
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self) + suffix
    }

    /// Why the request cannot be served: its `Sandbox-Namespace` header is longer than ``maxLength`` bytes (a
    /// namespace it names must be one the client can name again, so it is refused rather than cut); nil otherwise.
    /// Runs before the route of every request (``Router/setRequestCheck(_:)``): one header look-up and a byte count.
    package static func refusal(_ request: HTTPRequest) -> NamespaceRefusal? {
        guard let header = request.headers[headerName], header.utf8.count > maxLength else { return nil }
        // The parser strips surrounding blanks; a request built in code may carry them (``init(header:)`` trims).
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let length = header.utf8.drop(while: blank).reversed().drop(while: blank).count
        return length > maxLength ? NamespaceRefusal(length: length) : nil
    }

    /// Throws ``refusal(_:)``: the check a router runs before every route.
    package static func check(_ request: HTTPRequest) throws(NamespaceRefusal) {
        if let refusal = refusal(request) { throw refusal }
    }

    /// The token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive), nil when
    /// missing, another scheme or empty. Runs for every request, so it compares bytes.
    package static func bearerToken(_ request: HTTPRequest) -> String? {
        request.headers["Authorization"].flatMap(bearerToken(fromHeader:))
    }

    /// The token of one `Authorization` field value `Bearer <token>`, as ``bearerToken(_:)`` reads it.
    package static func bearerToken(fromHeader header: String) -> String? {
        let utf8 = header.utf8
        guard utf8.count > 7, utf8.prefix(6).lazy.map({ $0 | 0x20 }).elementsEqual("bearer".utf8),
              utf8.dropFirst(6).first == UInt8(ascii: " ") else { return nil }
        let token = utf8.dropFirst(7).drop { $0 == UInt8(ascii: " ") }
        let trimmed = token.reversed().drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard !trimmed.isEmpty else { return nil }
        return String(decoding: token.prefix(trimmed.count), as: UTF8.self)
    }
}

/// A `Sandbox-Namespace` header longer than ``Namespace/maxLength`` bytes: 400 before any route runs. Each
/// provider's error format answers it in the provider's own format under its paths (its ``ProviderErrorFormat``);
/// elsewhere (the control API, `/__sandbox/…`) it answers as the control API's errors do:
/// `{"error":"Bad Request","message":"…","status":400}`.
package struct NamespaceRefusal: Error, HTTPResponseError, Sendable, Equatable {
    /// The header's length in UTF-8 bytes.
    package var length: Int

    package init(length: Int) { self.length = length }

    package var message: String {
        "\(Namespace.headerName): \(length) bytes; a namespace name has at most \(Namespace.maxLength) bytes (UTF-8)"
    }

    package var httpError: HTTPError { HTTPError(.badRequest, message) }

    package func response(for request: HTTPRequest) -> HTTPResponse { DefaultErrorRenderer().render(httpError, for: request) }
}

/// `Authorization: Basic base64(user:password)` (RFC 7617).
package struct BasicCredentials: Sendable, Equatable {
    package var user: String
    package var password: String

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// nil when the header is missing, not Basic, not base64, or has no colon.
    /// Runs for every request (namespace, journal), so it reads the header's bytes in place.
    package init?(_ request: HTTPRequest) {
        guard var header = request.headers["Authorization"] else { return nil }
        // A client sends the same header with each request: the last one parsed is kept with what it gave.
        if let last = Self.lastParsed.withLock({ $0 }), last.header == header {
            guard let credentials = last.credentials else { return nil }
            self = credentials
            return
        }
        let credentials = header.withUTF8 { BasicCredentials(header: $0) }
        if header.utf8.count <= Self.lastParsedLimit { Self.lastParsed.withLock { $0 = (header, credentials) } }
        guard let credentials else { return nil }
        self = credentials
    }

    /// The last `Authorization` header parsed (up to ``lastParsedLimit`` bytes) and its credentials, nil when it
    /// held none: parsing (base64, two strings) cost about 2,500 instructions a request, comparing costs a few dozen.
    private static let lastParsed = Locked<(header: String, credentials: BasicCredentials?)?>(nil)
    private static let lastParsedLimit = 512

    private init?(header utf8: UnsafeBufferPointer<UInt8>) {
        // The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces follow it.
        guard utf8.count > 6, utf8[0] | 0x20 == UInt8(ascii: "b"), utf8[1] | 0x20 == UInt8(ascii: "a"),
              utf8[2] | 0x20 == UInt8(ascii: "s"), utf8[3] | 0x20 == UInt8(ascii: "i"), utf8[4] | 0x20 == UInt8(ascii: "c"),
              utf8[5] == UInt8(ascii: " ") else { return nil }
        var start = 6
        while start < utf8.count, utf8[start] == UInt8(ascii: " ") { start += 1 }
        guard let decoded = BasicCredentials.base64Decode(utf8[start...]), let colon = decoded.firstIndex(of: UInt8(ascii: ":")),
              let user = BasicCredentials.string(decoded[..<colon]),
              let password = BasicCredentials.string(decoded[(colon + 1)...]) else { return nil }
        self.init(user: user, password: password)
    }

    /// Valid UTF-8 as a string, else nil; ASCII (what credentials are) without a decoder's scalar-by-scalar pass.
    private static func string(_ bytes: ArraySlice<UInt8>) -> String? {
        var ascii = true
        for byte in bytes where byte >= 0x80 { ascii = false; break }
        return ascii ? String(decoding: bytes, as: UTF8.self) : String(validUTF8: bytes)
    }

    /// RFC 4648 §4 base64 with padding (as RFC 7617 sends it; missing padding is tolerated); nil for any
    /// other character. Written out because it runs for every request, twice.
    static func base64Decode(_ text: [UInt8]) -> [UInt8]? { text.withUnsafeBufferPointer { base64Decode($0[...]) } }

    static func base64Decode(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0, bits = 0, padding = 0, characters = 0
        for byte in text {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }  // data after padding
            characters += 1
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // The last group has 2 or 3 characters (or none); padding, if any, completes it to 4.
        let tail = characters % 4
        guard tail != 1, padding == 0 || (tail != 0 && tail + padding == 4) else { return nil }
        return out
    }
}

/// In the state file a namespace is its name.
extension Namespace: Codable {
    @usableFromInline package init(from decoder: any Decoder) throws { self.init(try decoder.singleValueContainer().decode(String.self)) }
    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
