// SPDX-License-Identifier: MIT
import Foundation

/// Settings of the faked Hosted Payment Page.
public struct KlarnaHPPConfiguration: Sendable {
    /// "The HPP Session will expire 1 hour before the Payment Session" (klarna-api.md §4, §2.8).
    public var expiryBeforePaymentSession: TimeInterval = 3600
    /// status_update calls in all: "up to 3 times" after the first, "all 4 calls" (klarna-api.md §4.5).
    public var callbackAttempts = 4
    /// "If no response is received within 3 seconds" (§4.5): real time, per call.
    public var callbackTimeout: TimeInterval = 3
    /// Klarna does not document the delay between retries (§4.5). Waited on the namespace's sandbox clock,
    /// so with a manual clock a test releases each retry with `POST /__sandbox/clock`.
    public var callbackRetryDelay: TimeInterval = 10
    /// How often (real time) waiting callbacks look at a base clock other than the system's (a test's `ManualClock`);
    /// a move of a namespace's clock wakes them at once.
    public var callbackClockPollInterval: Duration = .milliseconds(50)
    /// How long an expired session is kept (for its "expired" page) before it is forgotten.
    public var expiredSessionRetention: TimeInterval = 24 * 3600

    public init() {}
}

/// A status change of an HPP session: what GET shows right after it and where its status_update goes.
struct HPPStatusChange: Sendable {
    var namespace: Namespace
    var session: KlarnaHPPSessionRead
    /// merchant_urls.status_update with its placeholders filled; nil when none was given.
    var statusUpdateURL: String?
}

/// What a consumer action needs to know about its session, copied out of the lock.
struct HPPConsumerContext: Sendable {
    var namespace: Namespace
    var sessionID: String
    var paymentSessionID: String
    var status: KlarnaHPPStatus
    var expired: Bool
    var options: KlarnaHPPOptions
    var merchantURLs: KlarnaHPPMerchantURLs
    /// Sent by SMS, e-mail or token: not an eCommerce redirect flow (see `cancel` in KlarnaHPPRoutes).
    var distributed: Bool
    var read: KlarnaHPPSessionRead
}

/// Klarna HPP's ledger of one namespace. A plain value that ``KlarnaHPPStore`` keeps in a ``NamespacedStore``
/// (as Klarna Payments' ledger).
struct HPPLedger: NamespaceStateValue {
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: KlarnaHPPConfiguration
    /// Its sessions, as counted against the server's bound on objects (``ObjectRetention``).
    let retained: RetainedObjectKind

    // A class so operations change it in place; it never leaves the lock (value copies go out).
    final class Session {
        let id: String
        let paymentSessionID: String
        let merchantURLs: KlarnaHPPMerchantURLs
        let options: KlarnaHPPOptions
        let profileID: String?
        let createdAt: Date
        let expiresAt: Date
        var status = KlarnaHPPStatus.waiting
        var updatedAt: Date
        var authorizationToken, orderID, klarnaReference: String?
        var distributions: [KlarnaHPPDistribution] = []
        /// A consumer action (pay, cancel, ...) is between its start and its end.
        var actionInFlight = false

        init(id: String, paymentSessionID: String, request: KlarnaHPPCreateRequest, createdAt: Date, expiresAt: Date) {
            self.id = id
            self.paymentSessionID = paymentSessionID
            merchantURLs = request.merchantURLs
            options = request.options
            profileID = request.profileID
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            updatedAt = createdAt
        }

        /// Every stored property of `other`, for the state file (``SavedStateCopyable``).
        init(copying other: Session) {
            id = other.id
            paymentSessionID = other.paymentSessionID
            merchantURLs = other.merchantURLs
            options = other.options
            profileID = other.profileID
            createdAt = other.createdAt
            expiresAt = other.expiresAt
            status = other.status
            updatedAt = other.updatedAt
            authorizationToken = other.authorizationToken
            orderID = other.orderID
            klarnaReference = other.klarnaReference
            distributions = other.distributions
            actionInFlight = other.actionInFlight
        }

        var read: KlarnaHPPSessionRead {
            KlarnaHPPSessionRead(sessionID: id, status: status, updatedAt: updatedAt, expiresAt: expiresAt,
                                 authorizationToken: authorizationToken, orderID: orderID, klarnaReference: klarnaReference)
        }
    }

    var sessions: [String: Session] = [:]
    /// At most once a minute of the namespace's clock; creations alone do not make a sweep due.
    var sweep = SweepSchedule(creationsPerSweep: .max, tracksExpiry: false)

    var isEmpty: Bool { sessions.isEmpty }

    // MARK: Merchant API (§4.1–4.4)

    mutating func create(_ namespace: Namespace, _ request: KlarnaHPPCreateRequest, paymentSessionID: String,
                         paymentSessionExpiresAt: Date, baseURL: String) throws(KlarnaError) -> KlarnaHPPSessionCreated {
        let now = registry.now(namespace)
        let expiresAt = paymentSessionExpiresAt - configuration.expiryBeforePaymentSession
        // "A Consumer will be able to pay on HPP until 1 hour before the Payment Session expiration" (klarna-api.md §2.8).
        guard now < expiresAt else { throw .hppPaymentSessionExpired }
        sweepExpired(namespace, now: now)
        let session = Session(id: ids.uuid(), paymentSessionID: paymentSessionID, request: request, createdAt: now, expiresAt: expiresAt)
        sessions[session.id] = session
        retained.created(namespace, session.id)
        return KlarnaHPPSessionCreated(sessionID: session.id, baseURL: baseURL, distributionToken: ids.uuid(), expiresAt: expiresAt)
    }

    /// A session within its lifetime; expired ones answer 404 like unknown ones (klarna-api.md §3.3).
    func liveSession(_ namespace: Namespace, _ id: String, notFound: KlarnaError = .hppSessionNotFound) throws(KlarnaError) -> Session {
        guard let session = sessions[id], registry.now(namespace) < session.expiresAt else { throw notFound }
        return session
    }

    func read(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> KlarnaHPPSessionRead {
        try liveSession(namespace, id).read
    }

    func paymentSessionID(_ namespace: Namespace, _ id: String) -> String? { sessions[id]?.paymentSessionID }

    /// Records a distribution; nothing is sent (inferred). DISABLED: 400 (§4.3).
    mutating func distribute(_ namespace: Namespace, _ id: String, _ distribution: KlarnaHPPDistribution) throws(KlarnaError) -> KlarnaHPPDistribution {
        let session = try liveSession(namespace, id, notFound: .hppDistributionNotFound)
        guard session.status != .disabled else { throw .hppBadDistribution("The session is disabled") }
        var recorded = distribution
        recorded.distributedAt = registry.now(namespace)
        session.distributions.append(recorded)
        return recorded
    }

    /// DELETE (§4.4): DISABLED; COMPLETED is 400. Already DISABLED or CANCELLED: 204 with no change and no
    /// callback (inferred).
    mutating func disable(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> HPPStatusChange? {
        let session = try liveSession(namespace, id)
        switch session.status {
        case .completed: throw .hppAlreadyCompleted
        case .disabled, .cancelled: return nil
        default: return change(namespace, session, to: .disabled)
        }
    }

    // MARK: The consumer's side

    /// Finds a session by id in any namespace: the consumer's browser carries neither credentials nor a
    /// namespace header (ids are UUIDs), as KP's order redirect does.
    func holds(_ id: String) -> Bool { sessions[id] != nil }

    func context(_ namespace: Namespace, _ id: String) -> HPPConsumerContext? {
        guard let session = sessions[id] else { return nil }
        return HPPConsumerContext(namespace: namespace, sessionID: id, paymentSessionID: session.paymentSessionID,
                                  status: session.status, expired: registry.now(namespace) >= session.expiresAt,
                                  options: session.options, merchantURLs: session.merchantURLs,
                                  distributed: !session.distributions.isEmpty, read: session.read)
    }

    /// The consumer opens the page: WAITING, FAILED, BACK and ERROR become IN_PROGRESS (§4.2).
    mutating func open(_ namespace: Namespace, _ id: String) -> HPPStatusChange? {
        guard let session = try? liveSession(namespace, id), !session.actionInFlight,
              [.waiting, .failed, .back, .error].contains(session.status) else { return nil }
        return change(namespace, session, to: .inProgress)
    }

    /// Starts a consumer action: the session must be live, not final and not busy with another action. A
    /// session nobody opened yet is opened first (a backend test acting without a browser), which is a change
    /// of its own.
    mutating func beginAction(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> (HPPConsumerContext, HPPStatusChange?) {
        let session = try liveSession(namespace, id)
        guard !session.status.isFinal else { throw .hppFinal(session.status) }
        guard !session.actionInFlight else {
            throw KlarnaError(.conflict, code: "CONFLICT", messages: ["Another consumer action on this HPP session is in progress."])
        }
        session.actionInFlight = true
        let opened = session.status == .inProgress ? nil : change(namespace, session, to: .inProgress)
        // Built after the change: the context is not expired (checked above).
        return (context(namespace, id)!, opened)
    }

    /// Ends a consumer action with its outcome (nil: no change). A DELETE that came in meanwhile wins: a final
    /// status stays (the KP authorization, if any, is left unused).
    mutating func endAction(_ namespace: Namespace, _ id: String, status: KlarnaHPPStatus?, authorizationToken: String? = nil,
                            orderID: String? = nil, klarnaReference: String? = nil) -> HPPStatusChange? {
        guard let session = sessions[id] else { return nil }
        session.actionInFlight = false
        guard let status, !session.status.isFinal else { return nil }
        session.authorizationToken = authorizationToken
        session.orderID = orderID
        session.klarnaReference = klarnaReference
        return change(namespace, session, to: status)
    }

    private func change(_ namespace: Namespace, _ session: Session, to status: KlarnaHPPStatus) -> HPPStatusChange {
        session.status = status
        session.updatedAt = registry.now(namespace)
        let read = session.read
        return HPPStatusChange(namespace: namespace, session: read,
                               statusUpdateURL: session.merchantURLs.statusUpdate.map { HPPPlaceholders.fill($0, read) })
    }

    // MARK: Housekeeping

    /// Sessions expired for longer than the retention are dropped, at most once a minute of the namespace's clock.
    private mutating func sweepExpired(_ namespace: Namespace, now: Date) {
        guard !sessions.isEmpty, sweep.creationIsDue(now: now) else { return }
        let keepAfter = now - configuration.expiredSessionRetention
        let before = sessions
        sessions = sessions.filter { $0.value.expiresAt > keepAfter }
        if sessions.count < before.count { retained.removed(namespace, before.keys.filter { sessions[$0] == nil }) }
    }

    /// Its sessions as counted toward the server's bound after a restore.
    func heldObjects(_ namespace: Namespace) -> [HeldObject] {
        sessions.values.map { HeldObject(created: $0.createdAt, kind: retained, namespace: namespace, id: $0.id) }
    }

    func snapshot(_ namespace: Namespace) -> JSONText {
        let sessions = self.sessions.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        let now = registry.now(namespace)
        return .object([
            ("sessions", .array(sessions.map { session in
                var w = KlarnaJSONWriter()
                w.add("session_id", session.id); w.add("status", session.status.rawValue)
                w.add("payment_session_id", session.paymentSessionID)
                w.add("place_order_mode", session.options.placeOrderMode.rawValue)
                w.add("payment_method_categories", session.options.paymentMethodCategories)
                w.add("profile_id", session.profileID)
                w.add("created_at", KlarnaJSON.timestamp(session.createdAt))
                w.add("updated_at", KlarnaJSON.timestamp(session.updatedAt))
                w.add("expires_at", KlarnaJSON.timestamp(session.expiresAt))
                w.add("expired", now >= session.expiresAt)
                w.add("authorization_token", session.authorizationToken); w.add("order_id", session.orderID)
                w.add("klarna_reference", session.klarnaReference)
                w.add("distributions", json: .array(session.distributions.map(\.json)))
                return w.json
            })),
            // Every distribution of the namespace, oldest first: the sandbox sends no SMS or e-mail.
            ("distributions", .array(sessions.flatMap { session in
                session.distributions.map { distribution in
                    guard case .object(var members) = distribution.json else { return distribution.json }
                    members.append(("session_id", .string(session.id)))
                    return .object(members.sorted { $0.0 < $1.0 })
                }
            })),
        ])
    }
}

/// Klarna HPP sessions, per namespace (klarna-api.md §4). Like ``KlarnaPaymentsStore``: short synchronous
/// operations under a namespace's lock, namespaces spread over several locks.
package final class KlarnaHPPStore: NamespacedState, Sendable {
    package let stateName = "klarna_hpp"
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: KlarnaHPPConfiguration
    private let ledgers: NamespacedStore<HPPLedger>
    private let retained: RetainedObjectKind
    /// Bumped by reset: status callbacks still waiting to retry for the namespace then stop.
    private let generations = Locked<[Namespace: Int]>([:])

    /// `retention`: the server's bound on objects (by default one of this store alone, without a bound).
    package init(registry: NamespaceRegistry, ids: any IDGenerator, configuration: KlarnaHPPConfiguration = KlarnaHPPConfiguration(),
                 retention: ObjectRetention = ObjectRetention()) {
        self.registry = registry
        self.ids = ids
        self.configuration = configuration
        let retained = retention.kind(provider: "klarna", name: "hpp_session")
        self.retained = retained
        let ledgers = NamespacedStore { HPPLedger(registry: registry, ids: ids, configuration: configuration, retained: retained) }
        self.ledgers = ledgers
        retained.onEviction(holds: { namespace, id in ledgers.withState(namespace) { $0.sessions[id] != nil } },
                            evict: { namespace, id in ledgers.withState(namespace) { $0.sessions.removeValue(forKey: id) != nil } })
    }

    /// Every session held, for counting toward the server's bound after a restore (``ObjectRetention/retain(_:)``).
    package func heldObjects() -> [HeldObject] {
        ledgers.flatMap { namespace, ledger in ledger.heldObjects(namespace) }
    }

    func create(_ namespace: Namespace, _ request: KlarnaHPPCreateRequest, paymentSessionID: String, paymentSessionExpiresAt: Date,
                baseURL: String) throws(KlarnaError) -> KlarnaHPPSessionCreated {
        defer { retained.retention.evictOverflow() }
        return try ledgers.withState(namespace) { (state) throws(KlarnaError) in
            try state.create(namespace, request, paymentSessionID: paymentSessionID, paymentSessionExpiresAt: paymentSessionExpiresAt,
                              baseURL: baseURL)
        }
    }

    func read(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> KlarnaHPPSessionRead {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.read(namespace, id) }
    }

    func paymentSessionID(_ namespace: Namespace, _ id: String) -> String? {
        ledgers.withState(namespace) { $0.paymentSessionID(namespace, id) }
    }

    func distribute(_ namespace: Namespace, _ id: String, _ distribution: KlarnaHPPDistribution) throws(KlarnaError) -> KlarnaHPPDistribution {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.distribute(namespace, id, distribution) }
    }

    func disable(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> HPPStatusChange? {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.disable(namespace, id) }
    }

    /// The session's namespace and state, looked up in every namespace.
    func consumerContext(_ id: String) -> HPPConsumerContext? {
        ledgers.first { namespace, state in state.holds(id) ? state.context(namespace, id) : nil }
    }

    /// The namespace of a session id, whichever namespace it is in.
    func namespace(ofSession id: String) -> Namespace? {
        ledgers.first { namespace, state in state.holds(id) ? namespace : nil }
    }

    func open(_ namespace: Namespace, _ id: String) -> HPPStatusChange? { ledgers.withState(namespace) { $0.open(namespace, id) } }

    func beginAction(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> (HPPConsumerContext, HPPStatusChange?) {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.beginAction(namespace, id) }
    }

    func endAction(_ namespace: Namespace, _ id: String, status: KlarnaHPPStatus?, authorizationToken: String? = nil,
                   orderID: String? = nil, klarnaReference: String? = nil) -> HPPStatusChange? {
        ledgers.withState(namespace) {
            $0.endAction(namespace, id, status: status, authorizationToken: authorizationToken, orderID: orderID,
                         klarnaReference: klarnaReference)
        }
    }

    func generation(_ namespace: Namespace) -> Int { generations.withLock { $0[namespace] ?? 0 } }

    package func reset(_ namespace: Namespace) {
        generations.withLock { $0[namespace, default: 0] += 1 }
        // Under the namespace's lock, so an eviction meanwhile finds the objects either held and counted or gone.
        _ = ledgers.reset(namespace) { _ in retained.removedAll(namespace) }
    }

    package func snapshot(_ namespace: Namespace) -> JSONText { ledgers.withState(namespace) { $0.snapshot(namespace) } }

    package func objects(_ namespace: Namespace) -> [SandboxObjectSummary] { ledgers.withState(namespace) { $0.objectSummaries(namespace) } }

    package var namespacesWithState: [Namespace] { ledgers.namespaces }
}

/// The merchant URL placeholders of HPP: double braces (klarna-api.md §4.1; KP's own use single braces).
enum HPPPlaceholders {
    /// `{{session_id}}`, `{{authorization_token}}`, `{{order_id}}`; one that does not apply becomes empty
    /// (undocumented: inferred).
    static func fill(_ template: String, _ session: KlarnaHPPSessionRead) -> String {
        guard template.contains("{{") else { return template }
        return template.replacingOccurrences(of: "{{session_id}}", with: session.sessionID)
            .replacingOccurrences(of: "{{authorization_token}}", with: session.authorizationToken ?? "")
            .replacingOccurrences(of: "{{order_id}}", with: session.orderID ?? "")
    }
}

// MARK: The state file

// Synthesized, so a field added to a session is kept too.
extension HPPLedger.Session: Codable {}

/// Copied under the store's lock for the state file to encode outside it (`init(copying:)`).
extension HPPLedger.Session: SavedStateCopyable {
    func savedCopy() -> HPPLedger.Session { HPPLedger.Session(copying: self) }
}

extension HPPLedger: SavableNamespaceState {
    var savedObjectCount: Int { sessions.count }

    static var savedCollections: [SavedCollection<Self>] { [.objects("sessions", \.sessions)] }

    struct SavedRest: Codable { var sweep: SweepSchedule }
    var savedRest: SavedRest { SavedRest(sweep: sweep) }

    /// A consumer action that was between its start and its end when the file was written never ends: its session
    /// takes actions again.
    mutating func restore(_ rest: SavedRest) {
        for session in sessions.values { session.actionInFlight = false }
        sweep = rest.sweep
    }
}

extension KlarnaHPPStore: StreamedSavedSection {
    package func savedSection() throws -> SavedStoreSection? { try ledgers.savedSection() }
    package func savedSectionJobs(tally: SavedSectionTally) -> AnyIterator<SavedStateJob> { ledgers.savedSectionJobs(tally: tally) }
    package func restoreSavedSection(from reader: SavedStateReader) throws { try ledgers.restoreSection(from: reader) }
    package func discardRestored() { ledgers.discardRestored() }
    /// The restored objects count toward the server's bound once every store is restored (``heldObjects()``).
    package func restoreSection(from decoder: any Decoder) throws {
        try ledgers.restoreSection(from: decoder)
    }
}
