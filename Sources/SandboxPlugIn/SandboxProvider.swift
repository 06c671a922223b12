// SPDX-License-Identifier: MIT
import Foundation

/// A faked API plugged into the sandbox. It only declares: the sandbox reads each declaration and applies it to its
/// router, journal, scenario engine and control API itself, so making a provider and asking it changes nothing.
///
/// A provider is made from its configuration and a ``SandboxProviderContext`` and owns its stores. Its vocabulary
/// and content-rule scenarios belong to its type: the scenario engine loads with every provider's before any
/// provider is made, and is then in the context its routes play through.
package protocol SandboxProvider: Sendable {
    /// The operations and outcomes its scenario files may name.
    static var scenarioVocabulary: ScenarioVocabulary { get }
    /// Its scenarios of content rules (rules on its own test data), consulted in this order (``ScenarioEngine``).
    static var contentRuleScenarios: [String] { get }

    /// The path prefixes it answers under, each with its error format there: unknown paths, wrong methods, bad
    /// framing and timeouts under them answer in that format.
    var pathPrefixes: [SandboxPathPrefix] { get }
    /// Its per-namespace state: cleared by `POST /__sandbox/reset`, counted by `GET /__sandbox/state`.
    var states: [any NamespacedState] { get }
    /// Prefixes under `/__sandbox/` that are its own endpoints (a hosted page's actions): journaled, unlike the
    /// sandbox's control endpoints.
    var journaledSandboxPrefixes: [String] { get }
    /// Prefixes under `/__sandbox/` it sends a consumer's browser to (a hosted page's buttons, a `redirect_url`): a
    /// browser cannot send the control token, so they stay open under one. Each must act on one object whose random
    /// id only its link carries.
    var browserPrefixes: [String] { get }
    /// Its routes under `/__sandbox/` as the control API's OpenAPI 3.1 document describes them
    /// (`GET /__sandbox/openapi.json`): a JSON object with `paths` (path items keyed by path, `{name}` for a `:name`
    /// segment) and, if they need them, `components` of their own. A test holds the document to the routes. None by
    /// default.
    static var controlAPIPaths: String { get }
    /// Adds its routes to `router`, and nothing else.
    func addRoutes(to router: inout Router)
}

extension SandboxProvider {
    package static var controlAPIPaths: String { "{}" }
}

/// A path prefix a provider answers under and the format of its errors there.
package struct SandboxPathPrefix: Sendable {
    package let prefix: String
    package let errors: any ProviderErrorFormat

    package init(_ prefix: String, errors: any ProviderErrorFormat) {
        self.prefix = prefix
        self.errors = errors
    }
}

/// What the sandbox gives a provider it makes: the shared namespaces and their clocks (``NamespaceRegistry``), the injected ids, the
/// journal (for calls the provider makes itself, such as callbacks), the loaded scenarios, the callback outbox, and
/// the bound on the objects of the whole server (``ObjectRetention``), which every store tells what it creates and drops.
package struct SandboxProviderContext: Sendable {
    package let registry: NamespaceRegistry
    package let ids: any IDGenerator
    package let journal: Journal
    package let scenarios: ScenarioEngine
    package let retention: ObjectRetention
    /// Where every callback the provider sends is kept (``CallbackSender``).
    package let outbox: CallbackOutbox

    /// `retention`: by default one without a bound, of this provider alone.
    package init(registry: NamespaceRegistry, ids: any IDGenerator, journal: Journal, scenarios: ScenarioEngine,
                 retention: ObjectRetention? = nil, outbox: CallbackOutbox? = nil) {
        self.registry = registry
        self.ids = ids
        self.journal = journal
        self.scenarios = scenarios
        self.retention = retention ?? ObjectRetention(journal: journal, clock: registry.baseClock)
        self.outbox = outbox ?? CallbackOutbox(registry: registry)
    }
}
