// SPDX-License-Identifier: MIT
import Foundation

/// Isolation unit: every session, token, order, clock offset and journal entry belongs to one namespace,
/// so parallel test suites sharing a sandbox never see each other's state.
///
/// Taken from the `Sandbox-Namespace` header, else the HTTP Basic user name, else the Bearer token, else
/// `default`.
package struct Namespace: Hashable, Sendable, CustomStringConvertible {
    package let name: String
    package init(_ name: String) { self.name = name }
    package var description: String { name }

    package static let `default` = Namespace("default")
    package static let headerName = "Sandbox-Namespace"

    /// The namespace the `Sandbox-Namespace` header names, if it names one.
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

/// `Authorization: Basic base64(user:password)` (RFC 7617).
package struct BasicCredentials: Sendable, Equatable {
    package var user: String
    package var password: String

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// nil when the header is missing, not Basic, not base64, or has no colon.
    /// Runs for every request (namespace, journal), so it avoids Foundation's string helpers.
    package init?(_ request: HTTPRequest) {
        guard let header = request.headers["Authorization"] else { return nil }
        let utf8 = header.utf8
        // The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces follow it.
        guard utf8.count > 6, utf8.prefix(5).lazy.map({ $0 | 0x20 }).elementsEqual("basic".utf8),
              utf8.dropFirst(5).first == UInt8(ascii: " ") else { return nil }
        let token = utf8.dropFirst(6).drop { $0 == UInt8(ascii: " ") }
        guard let decoded = BasicCredentials.base64Decode(token), let colon = decoded.firstIndex(of: UInt8(ascii: ":")),
              let user = String(validUTF8: decoded[..<colon]),
              let password = String(validUTF8: decoded[(colon + 1)...]) else { return nil }
        self.init(user: user, password: password)
    }

    /// RFC 4648 §4 base64 with padding (as RFC 7617 sends it; missing padding is tolerated); nil for any
    /// other character. Written out because it runs for every request, twice.
    static func base64Decode(_ text: some Collection<UInt8>) -> [UInt8]? {
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
    package init(from decoder: any Decoder) throws { self.init(try decoder.singleValueContainer().decode(String.self)) }
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
