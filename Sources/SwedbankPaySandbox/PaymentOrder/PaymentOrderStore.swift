// SPDX-License-Identifier: MIT
import Foundation

/// Swedbank Pay payment orders, per namespace (swedbankpay-api.md §1).
///
/// The interface the payment-session API and the pages drive orders through: find an order by its session token
/// (`lookup(token:)`), read it (`snapshot`), and move a payment attempt along (`beginAttempt`, then `attemptPaid`:
/// Paid, its paid node and callback; or `attemptFailed`: a failed attempt and its callback, the order still
/// Initialized), or end the order (`abortByPayer`, `failOrder`). Every method is safe to call from any thread and
/// takes the namespace's lock once.
/// `attemptPaid`/`attemptFailed` return false (and change nothing) when the attempt is not the order's current
/// one or the order is no longer Initialized. `attemptPaid`'s `details` is the `paid.details` object (swedbankpay-api.md §1.4).
package final class SwedbankPayOrderStore: NamespacedState, Sendable {
    package let stateName = "swedbankpay_paymentorders"
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: SwedbankPayConfiguration
    private let ledgers: NamespacedStore<SwedbankPayOrderLedger>
    /// Session token → where its order lives: the session API and the pages carry no namespace.
    private let tokens: Locked<[String: (namespace: Namespace, orderID: String)]>
    let retained: SwedbankPayOrderRetainedKinds
    /// Bumped by reset: callbacks waiting to retry for the namespace then stop.
    private let generations: Locked<[Namespace: Int]>
    let callbacks: SwedbankPayCallbacks

    /// `journal`: where callback calls are recorded (nil: not recorded). `retention`: the server's bound on objects (by
    /// default one of this store alone, without a bound). `outbox`: where callbacks are kept; `scenarios`: what plays
    /// them (nil: sent as they are).
    package init(registry: NamespaceRegistry, ids: any IDGenerator, configuration: SwedbankPayConfiguration = SwedbankPayConfiguration(),
                journal: Journal? = nil, retention: ObjectRetention = ObjectRetention(),
                outbox: CallbackOutbox? = nil, scenarios: ScenarioEngine? = nil) {
        self.registry = registry
        self.ids = ids
        self.configuration = configuration
        let retained = SwedbankPayOrderRetainedKinds(retention)
        self.retained = retained
        let ledgers = NamespacedStore { SwedbankPayOrderLedger(registry: registry, ids: ids, configuration: configuration, retained: retained) }
        self.ledgers = ledgers
        let tokens = Locked<[String: (namespace: Namespace, orderID: String)]>([:])
        self.tokens = tokens
        retained.orders.onEviction(holds: { namespace, id in ledgers.withState(namespace) { $0.orders[id] != nil } }) { namespace, id in
            guard let token = ledgers.withState(namespace, { $0.orders.removeValue(forKey: id)?.token }) else { return false }
            tokens.withLock { $0[token] = nil }
            return true
        }
        retained.tokens.onEviction(holds: { namespace, token in ledgers.withState(namespace) { $0.tokens[token] != nil } },
                                   evict: { namespace, token in ledgers.withState(namespace) { $0.tokens.removeValue(forKey: token) != nil } })
        let generations = Locked<[Namespace: Int]>([:])
        self.generations = generations
        callbacks = SwedbankPayCallbacks(registry: registry, configuration: configuration, journal: journal, outbox: outbox,
                                         scenarios: scenarios,
                                         scenarioOf: { namespace, id in ledgers.withState(namespace) { try? $0.order(namespace, id).scenario } }) { namespace in
            generations.withLock { $0[namespace] ?? 0 }
        }
    }

    /// Runs `change` on the order under its namespace's lock, then sends the callback it asks for.
    private func change<T: Sendable>(_ namespace: Namespace, _ orderID: String,
                           _ change: (inout SwedbankPayOrderLedger, SwedbankPayOrderLedger.Order, Date) throws(SwedbankPayProblem) -> (T, SwedbankPayCallbackEvent?))
    throws(SwedbankPayProblem) -> T {
        let (result, event) = try ledgers.withState(namespace) { (ledger) throws(SwedbankPayProblem) in
            let order = try ledger.order(namespace, orderID)
            let now = registry.now(namespace)
            let outcome = try change(&ledger, order, now)
            if order.updated < now { order.updated = now }
            return outcome
        }
        if let event { callbacks.send(event) }
        return result
    }

    // MARK: The session API's interface

    package func lookup(token: String) -> (namespace: Namespace, orderID: String)? { tokens.withLock { $0[token] } }

    /// The session token no longer leads to its order (its payment session was evicted): the session API answers it
    /// as unknown, the order stays.
    package func forgetSessionToken(_ token: String) { tokens.withLock { $0[token] = nil } }

    /// Every order and token held, for counting toward the server's bound after a restore (``ObjectRetention/retain(_:)``).
    package func heldObjects() -> [HeldObject] {
        ledgers.flatMap { namespace, ledger in ledger.heldObjects(namespace) }
    }

    package func snapshot(_ namespace: Namespace, orderID: String) -> SwedbankPayOrderView? {
        ledgers.withState(namespace) { try? $0.order(namespace, orderID).view(namespace) }
    }

    package func beginAttempt(_ namespace: Namespace, orderID: String, instrument: String, prefill: Bool)
    throws(SwedbankPayProblem) -> SwedbankPayAttemptID {
        try change(namespace, orderID) { (ledger, order, now) throws(SwedbankPayProblem) in
            (try ledger.beginAttempt(order, instrument: instrument, prefill: prefill, now: now, namespace: namespace), nil)
        }
    }

    @discardableResult
    package func attemptPaid(_ namespace: Namespace, orderID: String, _ attempt: SwedbankPayAttemptID,
                            transactionType: SwedbankPayTransactionType, details: JSONText) -> Bool {
        // The tokens a card payment generates count at once; their evictions wait for the caller's evictOverflow (the
        // payment session's transition, which calls this under its own lock, where an eviction could need that lock).
        (try? change(namespace, orderID) { (ledger, order, now) throws(SwedbankPayProblem) in
            try ledger.attemptPaid(order, attempt, transactionType: transactionType, details: details, now: now, namespace: namespace)
        }) != nil
    }

    @discardableResult
    package func attemptFailed(_ namespace: Namespace, orderID: String, _ attempt: SwedbankPayAttemptID,
                              status: SwedbankPayFailedAttemptStatus, problem: SwedbankPayProblem) -> Bool {
        (try? change(namespace, orderID) { (ledger, order, now) throws(SwedbankPayProblem) in
            try ledger.endAttempt(order, attempt, status: status, problem: problem, now: now, namespace: namespace)
        }) != nil
    }

    package func abortByPayer(_ namespace: Namespace, orderID: String) throws(SwedbankPayProblem) {
        try change(namespace, orderID) { (ledger, order, now) throws(SwedbankPayProblem) in
            ((), try ledger.abort(order, reason: "Payment aborted by payer", by: "Consumer", now: now, namespace: namespace))
        }
    }

    @discardableResult
    package func failOrder(_ namespace: Namespace, orderID: String, problem: SwedbankPayProblem) -> Bool {
        (try? change(namespace, orderID) { (ledger, order, now) throws(SwedbankPayProblem) in
            try ledger.fail(order, problem: problem, now: now, namespace: namespace)
        }) != nil
    }

    package func setIntegration(_ namespace: Namespace, orderID: String, _ value: String) {
        _ = try? change(namespace, orderID) { (_, order, _) throws(SwedbankPayProblem) in
            order.integration = value
            return ((), nil)
        }
    }

    package func setSwishPending(_ namespace: Namespace, orderID: String, _ pending: Bool) {
        _ = try? change(namespace, orderID) { (_, order, _) throws(SwedbankPayProblem) in
            order.swishPending = pending
            return ((), nil)
        }
    }

    package func addHistory(_ namespace: Namespace, orderID: String, name: String, instrument: String? = nil) {
        _ = try? change(namespace, orderID) { (_, order, now) throws(SwedbankPayProblem) in
            order.addHistory(.init(created: now, name: name, instrument: instrument, number: nil, prefill: nil, initiatedBy: "Consumer"))
            return ((), nil)
        }
    }

    // MARK: The merchant API (PaymentOrderRoutes)

    /// A new Initialized order; returns its id.
    func create(_ namespace: Namespace, _ request: SwedbankPayCreateOrderRequest, version: SwedbankPayAPIVersion, scenario: String?,
                initiatingSystemUserAgent: String) -> String {
        let orderID = ids.uuid()
        let token = SwedbankPayASCII.removingDashes(ids.uuid() + ids.uuid())
        ledgers.withState(namespace) { ledger in
            let dropped = ledger.create(namespace, orderID: orderID, token: token, request, version: version, scenario: scenario,
                                        initiatingSystemUserAgent: initiatingSystemUserAgent)
            tokens.withLock { index in
                for gone in dropped { index[gone] = nil }
                index[token] = (namespace, orderID)
            }
        }
        retained.orders.retention.evictOverflow()
        return orderID
    }

    /// A Recur or UnscheduledPurchase: created and paid (or, `declined`, Failed) at once with `token`; returns its id.
    func createPaid(_ namespace: Namespace, _ request: SwedbankPayCreateOrderRequest, version: SwedbankPayAPIVersion, scenario: String?,
                    initiatingSystemUserAgent: String, token: SwedbankPayOrderLedger.StoredToken, declined: SwedbankPayProblem?) -> String {
        let orderID = create(namespace, request, version: version, scenario: scenario, initiatingSystemUserAgent: initiatingSystemUserAgent)
        ledgers.withState(namespace) { ledger in
            guard let order = try? ledger.order(namespace, orderID) else { return }
            ledger.payWithToken(order, token, declined: declined, now: registry.now(namespace), namespace: namespace)
        }
        return orderID
    }

    /// The active token of that kind, else 404 `inputerror` / 422 `paymenttokeninactive`.
    func activeToken(_ namespace: Namespace, _ kind: SwedbankPayTokenKind, _ value: String) throws(SwedbankPayProblem)
    -> SwedbankPayOrderLedger.StoredToken {
        try ledgers.withState(namespace) { (ledger) throws(SwedbankPayProblem) in try ledger.activeToken(namespace, kind, value) }
    }

    /// Marks the token deleted; later orders naming it get 422 (the developer portal's page on deleting tokens).
    func deleteToken(_ namespace: Namespace, _ kind: SwedbankPayTokenKind, _ value: String) throws(SwedbankPayProblem)
    -> SwedbankPayOrderLedger.StoredToken {
        try ledgers.withState(namespace) { (ledger) throws(SwedbankPayProblem) in try ledger.deleteToken(namespace, kind, value) }
    }

    func scenarioOf(_ namespace: Namespace, orderID: String) -> String? {
        ledgers.withState(namespace) { try? $0.order(namespace, orderID).scenario }
    }

    func versionOf(_ namespace: Namespace, orderID: String) -> SwedbankPayAPIVersion? {
        ledgers.withState(namespace) { try? $0.order(namespace, orderID).version }
    }

    /// The payment order document (swedbankpay-api.md §1.3) with `expand`ed nodes and operations on `base`.
    func document(_ namespace: Namespace, orderID: String, base: String, expand: Set<String>) throws(SwedbankPayProblem) -> Data {
        try ledgers.withState(namespace) { (ledger) throws(SwedbankPayProblem) in
            try ledger.order(namespace, orderID).document(base: base, expand: expand)
        }
    }

    /// `GET …/:node`: `{"paymentOrder": "/psp/paymentorders/<id>", "<nodeKey>": {…}}` (swedbankpay-api.md §1.4; the wrapper inferred).
    func node(_ namespace: Namespace, orderID: String, segment: String) throws(SwedbankPayProblem) -> JSONText {
        try ledgers.withState(namespace) { (ledger) throws(SwedbankPayProblem) in
            let order = try ledger.order(namespace, orderID)
            guard let node = SwedbankPayOrderLedger.Order.nodes.first(where: { $0.segment == segment }) else {
                throw SwedbankPayProblem.notFound(path: "/psp/paymentorders/\(orderID)/\(segment)")
            }
            return .object([("paymentOrder", .string(order.resourceID)), (node.key, order.expandedNode(node.key))])
        }
    }

    /// PATCH (swedbankpay-api.md §1.6): `UpdateOrder`, `Abort`, `PaymentAttemptAborted`.
    func patch(_ namespace: Namespace, orderID: String, _ patch: SwedbankPayOrderPatch) throws(SwedbankPayProblem) {
        try change(namespace, orderID) { (ledger, order, now) throws(SwedbankPayProblem) in
            ((), try ledger.patch(order, patch, now: now, namespace: namespace))
        }
    }

    /// POST captures / cancellations / reversals (swedbankpay-api.md §1.7). Returns the v3.0 transaction-shaped
    /// answer's parts (the v3.1 answer is the document).
    func postPurchase(_ namespace: Namespace, orderID: String, _ kind: SwedbankPayPostPurchase, _ request: SwedbankPayTransactionRequest,
                      refused: Bool) throws(SwedbankPayProblem) -> SwedbankPayOrderLedger.Transaction {
        try change(namespace, orderID) { (ledger, order, now) throws(SwedbankPayProblem) in
            try ledger.postPurchase(order, kind, request, refused: refused, now: now, namespace: namespace)
        }
    }

    /// The v3.0 answer to a post-purchase call (swedbankpay-api.md §1.7).
    func transactionAnswer(_ namespace: Namespace, orderID: String, _ kind: SwedbankPayPostPurchase,
                           _ transaction: SwedbankPayOrderLedger.Transaction) -> JSONText {
        ledgers.withState(namespace) { ledger in
            (try? ledger.order(namespace, orderID).transactionAnswer(kind, transaction)) ?? .object([])
        }
    }

    func generation(_ namespace: Namespace) -> Int { generations.withLock { $0[namespace] ?? 0 } }

    package func reset(_ namespace: Namespace) {
        generations.withLock { $0[namespace, default: 0] += 1 }
        // Counted off under the namespace's lock, so an eviction meanwhile finds the objects either held and counted or gone.
        let dropped = ledgers.reset(namespace) { [retained] (ledger) -> [String] in
            retained.orders.removedAll(namespace)
            retained.tokens.removedAll(namespace)
            return ledger.sessionTokens
        } ?? []
        tokens.withLock { index in for token in dropped { index[token] = nil } }
    }

    package func snapshot(_ namespace: Namespace) -> JSONText { ledgers.withState(namespace) { $0.snapshot(namespace) } }

    package func objects(_ namespace: Namespace) -> [SandboxObjectSummary] { ledgers.withState(namespace) { $0.objectSummaries(namespace) } }

    package var namespacesWithState: [Namespace] { ledgers.namespaces }
}

/// The objects of the payment-order API that count against the server's bound on objects (``ObjectRetention``).
struct SwedbankPayOrderRetainedKinds: Sendable {
    let orders, tokens: RetainedObjectKind

    init(_ retention: ObjectRetention) {
        orders = retention.kind(provider: "swedbankpay", name: "payment_order")
        tokens = retention.kind(provider: "swedbankpay", name: "payment_token")
    }
}

/// One of the three post-purchase operations (swedbankpay-api.md §1.7).
enum SwedbankPayPostPurchase: String, Sendable {
    case capture, cancel, reversal

    /// The response key and the transaction `type` of the v3.0 answer.
    var key: String { self == .cancel ? "cancellation" : rawValue }
    var transactionType: String { self == .cancel ? "Cancellation" : rawValue.capitalized }
    var collection: String { self == .cancel ? "cancellations" : rawValue + "s" }
}

/// A parsed PATCH body (swedbankpay-api.md §1.6).
enum SwedbankPayOrderPatch: Sendable {
    case updateOrder(amount: Int, vatAmount: Int, orderItems: [JSONNode]?)
    case abort(reason: String?)
    case abortPaymentAttempt(reason: String?)
}

// MARK: The state file

extension SwedbankPayOrderStore: StreamedSavedSection {
    package func savedSection() throws -> SavedStoreSection? { try ledgers.savedSection() }
    package func savedSectionJobs(tally: SavedSectionTally) -> AnyIterator<SavedStateJob> { ledgers.savedSectionJobs(tally: tally) }

    /// Also indexes the restored orders' session tokens (the session API and the pages find orders by them).
    package func restoreSection(from decoder: any Decoder) throws {
        try ledgers.restoreSection(from: decoder)
        indexRestoredTokens()
        // The restored objects count toward the server's bound once every store is restored (``heldObjects()``).
    }

    package func restoreSavedSection(from reader: SavedStateReader) throws {
        try ledgers.restoreSection(from: reader)
        indexRestoredTokens()
    }

    package func discardRestored() {
        ledgers.discardRestored()
        tokens.withLock { $0.removeAll() }
    }

    private func indexRestoredTokens() {
        for namespace in ledgers.namespaces {
            let orders = ledgers.withState(namespace) { ledger in ledger.orders.values.map { ($0.token, $0.id) } }
            tokens.withLock { index in for (token, orderID) in orders { index[token] = (namespace, orderID) } }
        }
    }
}
