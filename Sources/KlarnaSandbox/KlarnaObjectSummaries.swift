// SPDX-License-Identifier: MIT
import Foundation

// The Klarna ledgers' objects as the control page lists them (``SandboxObjectSummary``), oldest first.

extension PaymentsLedger {
    /// Sessions (klarna-api.md §2.8: 48 h after the last update), authorization tokens (§2.4: 60 minutes, until an
    /// order is made with them) and customer tokens (§5b: no expiry). Orders are listed by Order Management.
    func objectSummaries(_ namespace: Namespace) -> [SandboxObjectSummary] {
        let now = registry.now(namespace)
        let lifetime = configuration.authorizationLifetime
        var out = sessions.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map { session in
            SandboxObjectSummary(kind: "Klarna payment session", id: session.id,
                                 status: session.expiresAt <= now ? "expired" : session.status,
                                 created: session.createdAt, expires: session.expiresAt)
        }
        out += authorizations.values.sorted { ($0.authorizedAt, $0.token) < ($1.authorizedAt, $1.token) }.map { authorization in
            let expires = authorization.authorizedAt + lifetime
            let status = authorization.cancelled ? "cancelled" : authorization.orderID != nil ? "used for an order"
                : expires <= now ? "expired" : "authorized"
            return SandboxObjectSummary(kind: "Klarna authorization token", id: authorization.token, status: status,
                                        created: authorization.authorizedAt, expires: authorization.orderID == nil ? expires : nil)
        }
        out += customerTokens.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map { token in
            SandboxObjectSummary(kind: "Klarna customer token", id: token.id, status: token.status, created: token.createdAt, expires: nil)
        }
        return out
    }
}

extension HPPLedger {
    func objectSummaries(_ namespace: Namespace) -> [SandboxObjectSummary] {
        sessions.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map { session in
            SandboxObjectSummary(kind: "Klarna HPP session", id: session.id, status: session.status.rawValue,
                                 created: session.createdAt, expires: session.expiresAt)
        }
    }
}

extension OrderManagementLedger {
    /// `expires_at`: the end of the authorization (klarna-api.md §5).
    func objectSummaries(_ namespace: Namespace) -> [SandboxObjectSummary] {
        let now = registry.now(namespace)
        return orders.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map { order in
            SandboxObjectSummary(kind: "Klarna order", id: order.id, status: order.status(at: now),
                                 created: order.createdAt, expires: order.expiresAt)
        }
    }
}
