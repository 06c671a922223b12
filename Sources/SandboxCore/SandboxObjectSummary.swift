// SPDX-License-Identifier: MIT
import Foundation

/// One object a provider keeps for a namespace, as the control page (`/__sandbox/ui`) lists it: plain text and times
/// on the namespace's clock, so the page needs to know nothing of the provider.
package struct SandboxObjectSummary: Sendable, Equatable {
    /// What it is, in the provider's words: "payment session", "order", ...
    package var kind: String
    package var id: String
    /// The provider's status word as its API shows it (or the sandbox's, where the API has none).
    package var status: String
    /// When it was made, on the namespace's clock; nil when the store does not keep it.
    package var created: Date?
    /// When it expires, or when the sandbox forgets it where the API names no expiry; nil when never.
    package var expires: Date?

    package init(kind: String, id: String, status: String, created: Date?, expires: Date?) {
        self.kind = kind
        self.id = id
        self.status = status
        self.created = created
        self.expires = expires
    }
}

extension NamespacedState {
    /// A state that lists nothing (the default, for states that hold no objects of their own).
    package func objects(_ namespace: Namespace) -> [SandboxObjectSummary] { [] }
    package var namespacesWithState: [Namespace] { [] }
}
