// SPDX-License-Identifier: MIT
import Foundation

/// Lifetimes of the faked Order Management API.
public struct KlarnaOrderManagementConfiguration: Sendable {
    /// An order can be captured until `created_at` plus this (klarna-api.md §2.8: typically 28 days).
    public var authorizationLifetime: TimeInterval = 28 * 24 * 3600

    public init() {}
}

/// Klarna Order Management state, per namespace: the orders that KP create-order and HPP sessions place,
/// with their captures and refunds (klarna-api.md §5).
public final class KlarnaOrderManagementStore: NamespacedState, Sendable {
    public let stateName = "klarna_ordermanagement"
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: KlarnaOrderManagementConfiguration

    public init(registry: NamespaceRegistry, ids: any IDGenerator,
                configuration: KlarnaOrderManagementConfiguration = KlarnaOrderManagementConfiguration()) {
        self.registry = registry
        self.ids = ids
        self.configuration = configuration
    }

    /// An order placed through KP create-order or an HPP session: AUTHORIZED, or CAPTURED in full when
    /// `captured` (KP `auto_capture`, HPP `CAPTURE_ORDER`). `scenario` is the KP session's sticky scenario.
    func place(_ namespace: Namespace, orderID: String, request: KlarnaCreateOrderRequest, fraudStatus: String,
               scenario: String?, captured: Bool) {
        // Filled in by the Order Management work (issue 4).
    }

    public func reset(_ namespace: Namespace) {}

    public func snapshot(_ namespace: Namespace) -> JSONText { .object([("orders", .array([]))]) }
}
