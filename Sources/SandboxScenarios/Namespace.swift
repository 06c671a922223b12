// SPDX-License-Identifier: MIT
import Foundation

/// Isolation unit: every session, token, order, clock offset and journal entry belongs to one namespace,
/// so parallel test suites sharing a sandbox never see each other's state.
///
/// Taken from the `Sandbox-Namespace` header, else the HTTP Basic user name, else `default`.
public struct Namespace: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }

    public static let `default` = Namespace("default")
    public static let headerName = "Sandbox-Namespace"

    /// The namespace the `Sandbox-Namespace` header names, if it names one.
    public init?(header request: HTTPRequest) {
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

    public init(for request: HTTPRequest) {
        if let named = Namespace(header: request) {
            self = named
        } else if let user = BasicCredentials(request)?.user, !user.isEmpty {
            self.init(user)
        } else {
            self = .default
        }
    }
}

/// `Authorization: Basic base64(user:password)` (RFC 7617).
public struct BasicCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// nil when the header is missing, not Basic, not base64, or has no colon.
    /// Runs for every request (namespace, journal), so it avoids Foundation's string helpers.
    public init?(_ request: HTTPRequest) {
        guard let header = request.headers["Authorization"] else { return nil }
        let utf8 = header.utf8
        // The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces follow it.
        guard utf8.count > 6, utf8.prefix(5).lazy.map({ $0 | 0x20 }).elementsEqual("basic".utf8),
              utf8.dropFirst(5).first == UInt8(ascii: " ") else { return nil }
        let token = utf8.dropFirst(6).drop { $0 == UInt8(ascii: " ") }
        guard let data = Data(base64Encoded: Data(token)), let colon = data.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        guard let user = String(data: data[..<colon], encoding: .utf8),
              let password = String(data: data[(colon + 1)...], encoding: .utf8) else { return nil }
        self.init(user: user, password: password)
    }
}
