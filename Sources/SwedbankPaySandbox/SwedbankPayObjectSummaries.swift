// SPDX-License-Identifier: MIT
import Foundation

// The Swedbank Pay ledgers' objects as the control page lists them (``SandboxObjectSummary``), oldest first.

extension SwedbankPayOrderLedger {
    /// Payment orders have no documented expiry: `expires` is when the sandbox forgets one
    /// (``SwedbankPayConfiguration/retentionAfterLastChange`` after its last change). Tokens a payment generated
    /// follow them, with no expiry of their own here.
    func objectSummaries(_ namespace: Namespace) -> [SandboxObjectSummary] {
        let retention = configuration.retentionAfterLastChange
        var out = orders.values.sorted { ($0.created, $0.id) < ($1.created, $1.id) }.map { order in
            SandboxObjectSummary(kind: "Swedbank Pay payment order", id: order.resourceID, status: order.status.rawValue,
                                 created: order.created, expires: order.updated + retention)
        }
        out += tokens.values.sorted { ($0.kind.rawValue, $0.token) < ($1.kind.rawValue, $1.token) }.map { token in
            SandboxObjectSummary(kind: "Swedbank Pay \(token.kind.field)", id: token.token,
                                 status: token.deleted ? "Deleted" : "Active", created: nil, expires: nil)
        }
        return out
    }
}

extension SwedbankPayPaymentSessionStore {
    /// The payment sessions (the Mobile SDKs' API) by token, with the phase they are in; they live as long as
    /// their payment order.
    static func objectSummaries(_ sessions: [PaymentSessionRecord]) -> [SandboxObjectSummary] {
        sessions.sorted { $0.token < $1.token }.map { record in
            SandboxObjectSummary(kind: "Swedbank Pay payment session", id: record.token,
                                 status: phaseName(record.phase), created: nil, expires: nil)
        }
    }
}
