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
        guard let name = request.headers[Namespace.headerName]?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            return nil
        }
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
    public init?(_ request: HTTPRequest) {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let decoded = String(data: data, encoding: .utf8),
              let colon = decoded.firstIndex(of: ":")
        else { return nil }
        self.init(user: String(decoded[..<colon]), password: String(decoded[decoded.index(after: colon)...]))
    }
}
