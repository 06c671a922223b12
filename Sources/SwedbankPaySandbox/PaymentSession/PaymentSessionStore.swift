// SPDX-License-Identifier: MIT
import Foundation

/// The payment sessions, per namespace and token: the state machine of swedbankpay-api.md §3.6 over the order store.
/// Each call takes the lock of its order's namespace, applies a Swish outcome that has come due, runs its transition
/// (calling the order store, whose lock is always taken after this one) and renders the document from the order as
/// it is afterwards.
package final class SwedbankPayPaymentSessionStore: NamespacedState, Sendable {
    package let stateName = "swedbankpay_paymentsessions"
    let orders: any PaymentSessionOrders
    /// Where the business decisions are taken, the only way to the scenario engine (the API's format; the pages
    /// play in theirs, ``ScenarioPlayer/answering(in:)``).
    let play: SwedbankPayScenarioPlayer
    let settings: SwedbankPayPaymentSessionSettings

    /// The payment sessions of one namespace, by token.
    struct Ledger: NamespaceStateValue {
        var sessions: [String: PaymentSessionRecord] = [:]
        /// By payer reference.
        var savedCards: [String: [SavedCard]] = [:]
        /// acsTransID → token, for the ACS pages (swedbankpay-api.md §3.6 C5).
        var challenges: [String: String] = [:]
        /// Sessions whose order the order store has forgotten are dropped when the count reaches this.
        var pruneAt = 1024

        var isEmpty: Bool { sessions.isEmpty && savedCards.isEmpty && challenges.isEmpty }
    }

    private let ledgers = NamespacedStore { Ledger() }
    /// Its sessions, as counted against the server's bound on objects (the order store's ``ObjectRetention``).
    private let retained: RetainedObjectKind

    /// Where the business decisions (swish.sale, card.*, web.pay) are written as `DECISION` entries: the request's
    /// own entry names only the API call's scenario decision.
    let journal: Journal?

    init(orders: any PaymentSessionOrders, engine: ScenarioEngine, settings: SwedbankPayPaymentSessionSettings = SwedbankPayPaymentSessionSettings(),
         journal: Journal? = nil) {
        self.orders = orders
        play = SwedbankPayScenarioPlayer(engine: engine, ids: orders.ids)
        self.settings = settings
        self.journal = journal
        retained = orders.retention.kind(provider: "swedbankpay", name: "payment_session")
        retained.onEviction(holds: { [ledgers] namespace, token in ledgers.withState(namespace) { $0.sessions[token] != nil } }) {
            [ledgers] namespace, token in
            guard ledgers.withState(namespace, { $0.sessions.removeValue(forKey: token) != nil }) else { return false }
            orders.forgetSessionToken(token)
            return true
        }
    }

    /// Every payment session held, for counting toward the server's bound after a restore
    /// (``ObjectRetention/retain(_:)``), as made with its order (a record keeps no creation time of its own).
    package func heldObjects() -> [HeldObject] {
        let sessions = ledgers.flatMap { namespace, ledger in ledger.sessions.values.map { (namespace, $0.token, $0.orderID) } }
        return sessions.map { namespace, token, orderID in
            HeldObject(created: orders.snapshot(namespace, orderID: orderID)?.created ?? .distantPast, kind: retained, namespace: namespace, id: token)
        }
    }

    /// The payment sessions over `orders`; `journal` gets the business decisions.
    package convenience init(orders: SwedbankPayOrderStore, scenarios: ScenarioEngine, journal: Journal,
                            settings: SwedbankPayPaymentSessionSettings = SwedbankPayPaymentSessionSettings()) {
        self.init(orders: orders as any PaymentSessionOrders, engine: scenarios, settings: settings, journal: journal)
    }

    package func reset(_ namespace: Namespace) {
        // Under the namespace's lock, so an eviction meanwhile finds the objects either held and counted or gone.
        _ = ledgers.reset(namespace) { _ in retained.removedAll(namespace) }
    }

    package func snapshot(_ namespace: Namespace) -> JSONText {
        let records = ledgers.withState(namespace) { Array($0.sessions.values) }.sorted { $0.token < $1.token }
        return .object([("payment_sessions", .array(records.map { record in
            .object([("token", .string(record.token)), ("order_id", .string(record.orderID)), ("prepared", .bool(record.prepared)),
                     ("phase", .string(Self.phaseName(record.phase))), ("failed_attempts", .int(record.failedAttempts))])
        }))])
    }

    package func objects(_ namespace: Namespace) -> [SandboxObjectSummary] {
        Self.objectSummaries(ledgers.withState(namespace) { Array($0.sessions.values) })
    }

    package var namespacesWithState: [Namespace] { ledgers.namespaces }

    static func phaseName(_ phase: SessionPhase) -> String {
        switch phase {
        case .idle: "idle"
        case .swish(let swish): swish.localStart ? "swish_launch" : "swish_polling"
        case .threeDSMethod: "three_ds_method"
        case .threeDSChallenge: "three_ds_challenge"
        case .wallet: "wallet_payload"
        }
    }

    // MARK: Context

    /// One call on a session as the store takes it: the public base URL of the document's links, the body as JSON
    /// (nil when empty or not JSON), and what the business decisions read of the request (the routes make it).
    struct Call: Sendable {
        let base: String
        let body: JSONNode?
        let facts: ScenarioRequestFacts
    }

    /// Who a token belongs to, for the scenario player and the journal.
    struct Context {
        var namespace: Namespace
        var orderID: String
        var view: SwedbankPayOrderView
    }

    func context(_ token: String) throws(SwedbankPayProblem) -> Context {
        guard let (namespace, orderID) = orders.lookup(token: token), let view = orders.snapshot(namespace, orderID: orderID) else {
            throw .paymentSessionNotFound
        }
        return Context(namespace: namespace, orderID: orderID, view: view)
    }

    /// The token behind a challenge's acsTransID (the ACS pages, swedbankpay-api.md §3.6 C5).
    func token(ofChallenge acsTransID: String) -> String? { ledgers.first { $1.challenges[acsTransID] } }

    /// The token of the session whose Swish attempt waits under this launch token (the Swish app stand-in).
    func token(ofSwishLaunch launchToken: String) -> String? {
        ledgers.first { _, state in
            state.sessions.first { _, record in
                if case .swish(let swish) = record.phase { swish.launchToken == launchToken } else { false }
            }?.key
        }
    }

    /// The challenge an ACS page shows: its session and card attempt, while the session still waits for it.
    func challenge(_ acsTransID: String) -> (token: String, attempt: CardAttempt)? {
        ledgers.first { _, state in
            guard let token = state.challenges[acsTransID], case .threeDSChallenge(let card)? = state.sessions[token]?.phase,
                  card.acsTransID == acsTransID else { return nil }
            return (token, card)
        }
    }

    // MARK: The transition driver

    /// What one call sees: its record (to change), the order as it is, the namespace's time, and the call; and
    /// how long its answer waits (the `delay_ms` of the business decisions it took, ``decide(_:_:methodName:card:msisdn:)``).
    struct Step {
        var record: PaymentSessionRecord
        let view: SwedbankPayOrderView
        let now: Date
        let call: Call
        let cards: [SavedCard]
        var delay: Duration?
        /// A business decision's `commit_then_drop`: the call takes effect as for `approve`, its answer is lost.
        var dropsAnswer = false
        /// A business decision's `http_error` or `drop_connection`: it answers the call, which then takes no effect
        /// (the change stops, the session is kept as it was).
        var answeredBy: ScenarioOutcome?
        /// The decisions' subject's `paymentorder` (``SwedbankPayPaymentSessionStore/subjectNode(_:)``), made once a call.
        var subjectOrder: JSONNode?
    }

    /// Runs `change` on the session and answers the document, with the delay of the decisions `change` took. A
    /// terminal order answers its terminal document without running it (inferred: the order state wins), except for
    /// `abort-payment`, which is 409 then (§3.6 G).
    func transition(_ token: String, rel: String, _ call: Call, onTerminalOrder: TerminalRule = .answerDocument,
                    _ change: (inout Step) throws -> Void) throws -> SessionResult<JSONText> {
        try transition(token, rel: rel, call, onTerminalOrder: onTerminalOrder, change) { $0.json }
    }

    /// ``transition(_:rel:_:onTerminalOrder:_:)`` for the pages: `render` sees the document's parts
    /// (order, session, saved cards) as they are afterwards. `known`: the token's context as the caller just read it.
    func transition<Rendered: Sendable>(_ token: String, rel: String, _ call: Call, onTerminalOrder: TerminalRule = .answerDocument,
                              known: Context? = nil,
                              _ change: (inout Step) throws -> Void, render: (PaymentSessionDocument) -> Rendered) throws -> SessionResult<Rendered> {
        let context = try known ?? self.context(token)
        let base = call.base
        defer { retained.retention.evictOverflow() }
        // The same text as `token`, the instance the order holds: the session keeps no copy of its own.
        let token = context.view.token
        return try ledgers.withState(context.namespace) { state throws -> SessionResult<Rendered> in
            var record = state.sessions[token] ?? PaymentSessionRecord(
                token: token, namespace: context.namespace, orderID: context.orderID,
                id: String(SwedbankPayASCII.removingDashes(orders.ids.uuid()).prefix(32)), instrument: context.view.instrument)
            var view = context.view
            let now = orders.registry.now(context.namespace)
            if settleSwish(&record, view: view, now: now) || settleAbandonedChallenge(&record, view: view, now: now) {
                view = orders.snapshot(context.namespace, orderID: context.orderID) ?? view
            }
            var delay: Duration?, dropsAnswer = false
            if view.status != .initialized {
                if onTerminalOrder == .notAllowed { throw SwedbankPayProblem.operationNotAllowed(rel) }
            } else {
                var step = Step(record: record, view: view, now: now, call: call, cards: cards(view, record, &state))
                try change(&step)
                if let answeredBy = step.answeredBy {
                    return SessionResult(render(PaymentSessionDocument(view: view, record: record, base: base, savedCards: step.cards)),
                                         delay: step.delay, answeredBy: answeredBy, orderStatus: view.status)
                }
                record = step.record
                delay = step.delay
                dropsAnswer = step.dropsAnswer
                if case .threeDSChallenge(let card) = record.phase { state.challenges[card.acsTransID] = token }
                view = orders.snapshot(context.namespace, orderID: context.orderID) ?? view
            }
            if state.sessions.updateValue(record, forKey: token) == nil { retained.created(context.namespace, token) }
            if state.sessions.count >= state.pruneAt { prune(&state, context.namespace) }
            return SessionResult(render(PaymentSessionDocument(view: view, record: record, base: base, savedCards: cards(view, record, &state))),
                                 delay: delay, dropsAnswer: dropsAnswer, orderStatus: view.status)
        }
    }

    enum TerminalRule { case answerDocument, notAllowed }

    /// Keeps memory bounded: the order store forgets old orders (and reset ones), so their sessions go too.
    private func prune(_ state: inout Ledger, _ namespace: Namespace) {
        let before = state.sessions
        state.sessions = state.sessions.filter { orders.lookup(token: $0.key) != nil }
        if state.sessions.count < before.count { retained.removed(namespace, before.keys.filter { state.sessions[$0] == nil }) }
        state.challenges = state.challenges.filter { state.sessions[$0.value] != nil }
        state.pruneAt = max(1024, state.sessions.count * 2)
    }

    /// The payer's saved cards, seeded on first use (inferred): only payer-aware orders (swedbankpay-api.md §1.2) that allow stored details.
    private func cards(_ view: SwedbankPayOrderView, _ record: PaymentSessionRecord, _ state: inout Ledger) -> [SavedCard] {
        guard let reference = view.payerReference, !reference.isEmpty, !view.disableStoredPaymentDetails,
              !record.hideStoredPaymentOptions else { return [] }
        if let cards = state.savedCards[reference] { return cards }
        let cards = SavedCard.seed(orders.ids)
        state.savedCards[reference] = cards
        return cards
    }

    // MARK: Outcomes

    /// A Swish attempt whose time has come shows its outcome (swedbankpay-api.md §3.6 A6, B3).
    private func settleSwish(_ record: inout PaymentSessionRecord, view: SwedbankPayOrderView, now: Date) -> Bool {
        guard case .swish(let swish) = record.phase, now >= swish.due else { return false }
        record.phase = .idle
        orders.setSwishPending(record.namespace, orderID: record.orderID, false)
        guard view.status == .initialized else { return true }
        if case .approve = swish.outcome {
            orders.attemptPaid(record.namespace, orderID: record.orderID, swish.attempt, transactionType: .sale,
                               details: .object([("msisdn", .string(swish.msisdn))]))
        } else if case .payerAborts = swish.outcome {
            try? orders.abortByPayer(record.namespace, orderID: record.orderID)  // the payer declined in the Swish app
        } else if let failure = Self.attemptFailure(swish.outcome) {
            fail(&record, swish.attempt, failure)
        }
        return true
    }

    /// A failed attempt: the session shows the problem until acknowledged; the merchant gets a failedAttempt with the
    /// originalDetail as its ExternalResponse problem (swedbankpay-api.md §3.6 H, §1.4).
    func fail(_ record: inout PaymentSessionRecord, _ attempt: SwedbankPayAttemptID?, _ failure: AttemptFailure) {
        record.phase = .idle
        record.failedAttempts += 1
        record.problem = SessionAttemptProblem(number: record.failedAttempts, problem: failure.problem, originalDetail: failure.originalDetail)
        guard let attempt else { return }
        var merchant = failure.problem
        merchant.problems = [.init(name: "ExternalResponse", description: failure.originalDetail ?? failure.problem.detail)]
        orders.attemptFailed(record.namespace, orderID: record.orderID, attempt, status: failure.status, problem: merchant)
    }

    struct AttemptFailure {
        var problem: SwedbankPayProblem
        var originalDetail: String?
        var status: SwedbankPayFailedAttemptStatus
    }

    static let authorizationDetail = "Unable to complete Authorization transaction, look at problem node!"
    static let authenticationDetail = "Unable to complete VerifyAuthentication transaction, look at problem node!"

    /// Outcome → exact problem (swedbankpay-api.md §2.2, §5). nil for outcomes that are not attempt failures.
    static func attemptFailure(_ outcome: SwedbankPayOutcome) -> AttemptFailure? {
        func make(_ type: String, _ status: HTTPStatus, _ title: String, _ detail: String, _ original: String?,
                  _ attempt: SwedbankPayFailedAttemptStatus = .failed) -> AttemptFailure {
            AttemptFailure(problem: SwedbankPayProblem(type, status: status, title: title, detail: detail), originalDetail: original, status: attempt)
        }
        switch outcome {
        case .swishDeclined: return make("swishdeclined", .forbidden, "Swish Declined", "Transaction declined.", "RF07")
        case .swishTimeout: return make("swishtimeout", .forbidden, "Swish Timeout", "Swish timed out before the payment was started.", "TM01")
        case .bankidCancelled:
            return make("bankidcancelled", .conflict, "BankID Cancelled", "The payer cancelled BankID signing.", "BANKIDCL", .aborted)
        case .clientAppLaunchFailed: return clientAppLaunchFailed(nil)
        case .threeDSDeclined: return threeDSDeclined
        case .cardDeclined:
            return make("creditcard/carddeclined", .forbidden, "Operation failed", authorizationDetail,
                        "REJECTED_BY_ACQUIRER-card declined, response-code: 05")
        case .insufficientFunds:
            return make("creditcard/acquirerinsufficientfunds", .forbidden, "Operation failed", authorizationDetail,
                        "INSUFFICIENT_FUNDS-insufficient funds, response-code: 61")
        case .cardExpired:
            return make("creditcard/acquirercardexpired", .forbidden, "Operation failed", authorizationDetail,
                        "CARD_EXPIRED-card expired, response-code: 54")
        case .failAttempt(let failure):
            return make(failure.problemType, HTTPStatus(code: failure.status), failure.title ?? "Operation failed",
                        failure.detail ?? authorizationDetail, failure.originalDetail)
        default: return nil
        }
    }

    static let threeDSDeclined = AttemptFailure(
        problem: SwedbankPayProblem("creditcard/3dsecuredeclined", status: .forbidden, title: "Operation failed", detail: authenticationDetail),
        originalDetail: "UserCancelled-CANCELED", status: .aborted)

    /// `three_ds_declined` when the payer pressed Approve: the same problem, the issuer's reason (inferred wording).
    static let threeDSRejectedByIssuer = AttemptFailure(
        problem: threeDSDeclined.problem, originalDetail: "AUTHENTICATION_REJECTED-transStatus N", status: .failed)

    static func clientAppLaunchFailed(_ errorCode: String?) -> AttemptFailure {
        AttemptFailure(problem: SwedbankPayProblem("paymentorders/clientapplaunchfailed", status: .forbidden, title: "Client app launch failed",
                                                   detail: "The Swish app could not be launched on the payer's device."),
                       originalDetail: errorCode, status: .failed)
    }

    /// The business decision (card.authenticate, card.authorize, web.pay) for this session's call; the subject
    /// is `{paymentorder, paymentMethod, card, msisdn, body}`. `delay_ms` delays its answer (``Step/delay``: a slow ACS
    /// or acquirer); `commit_then_drop` is `approve` with ``Step/dropsAnswer``. nil: the decision answers the call
    /// itself (``Step/answeredBy``), and the caller stops.
    func decide(_ operation: ScenarioOperation, _ step: inout Step, method: SessionMethod, card: (number: String, brand: String)? = nil,
                msisdn: String? = nil) throws -> SwedbankPayOutcome? {
        try decide(operation, &step, methodName: method.rawValue, card: card, msisdn: msisdn)
    }

    func decide(_ operation: ScenarioOperation, _ step: inout Step, methodName: String, card: (number: String, brand: String)? = nil,
                msisdn: String? = nil) throws -> SwedbankPayOutcome? {
        guard let decided = try decision(operation, &step, methodName: methodName, card: card, msisdn: msisdn) else { return nil }
        step.delay = Self.total(step.delay, decided.delay)
        if decided.dropAfterCommit { step.dropsAnswer = true }
        return decided.committed.swedbankPay ?? .approve
    }

    /// The decision, journaled as a `DECISION` entry; its `delay_ms` and `commit_then_drop` the caller applies
    /// (swish.sale: the payer's time in the Swish app). nil when it answers the call itself (`http_error`,
    /// `drop_connection`: ``Step/answeredBy``, after the delays of the call's decisions and its own).
    func decision(_ operation: ScenarioOperation, _ step: inout Step, methodName: String, card: (number: String, brand: String)? = nil,
                  msisdn: String? = nil) throws -> PlayedDecision? {
        let order = step.subjectOrder ?? Self.subjectNode(step.view.request)
        step.subjectOrder = order
        // As JSONNode of the subject's JSONText, the paymentorder first: every node at 1:1.
        var members = [Self.member("paymentorder", order), Self.member("paymentMethod", JSONNode(.string(methodName)))]
        members.reserveCapacity(5)
        if let card {
            members.append(Self.member("card", JSONNode(.object([Self.member("number", JSONNode(.string(card.number))),
                                                                 Self.member("brand", JSONNode(.string(card.brand)))]))))
        }
        members.append(Self.member("msisdn", JSONNode(msisdn.map(JSONNode.Value.string) ?? .null)))
        members.append(Self.member("body", step.call.body.map(Self.subjectNode) ?? JSONNode(.null)))
        let decided: PlayedDecision
        do {
            decided = try play.decide(operation, step.call.facts, in: step.record.namespace, subject: JSONNode(.object(members)),
                                      object: step.record.token, sticky: step.view.scenario)
        } catch {
            throw SwedbankPayProblem.unknownScenario(error)
        }
        journal?.record(step.record.namespace, method: "DECISION", path: step.call.facts.path, status: 0, event: decided.note)
        guard !decided.answersCall else {
            step.answeredBy = decided.outcome
            step.delay = Self.total(step.delay, decided.delay)
            step.dropsAnswer = false
            return nil
        }
        return decided
    }

    private static func member(_ key: String, _ value: JSONNode) -> JSONNode.Member {
        JSONNode.Member(key: key, keyPosition: JSONPosition(line: 1, column: 1), value: value)
    }

    /// `JSONNode(node.jsonText)` in one pass: every node at 1:1, numbers as ``JSONNode/jsonText`` reads them and
    /// ``JSONNode/init(_:)`` writes them again.
    static func subjectNode(_ node: JSONNode) -> JSONNode {
        switch node.value {
        case .null, .bool, .string: return JSONNode(node.value)
        case .number(let number, let text):
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let int = Int(text) {
                return JSONNode(.number(Double(int), text: String(int)))
            }
            return JSONNode(.number(number, text: "\(number)"))
        case .array(let elements): return JSONNode(.array(elements.map(subjectNode)))
        case .object(let members):
            return JSONNode(.object(members.map {
                JSONNode.Member(key: $0.key, keyPosition: JSONPosition(line: 1, column: 1), value: subjectNode($0.value))
            }))
        }
    }

    /// Two decisions' delays, one after the other; nil when neither has one.
    static func total(_ first: Duration?, _ second: Duration?) -> Duration? {
        guard first != nil || second != nil else { return nil }
        return (first ?? .zero) + (second ?? .zero)
    }
}

// MARK: The state file

extension SwedbankPayPaymentSessionStore.Ledger: SavableNamespaceState {
    var savedObjectCount: Int { sessions.count }

    static var savedCollections: [SavedCollection<Self>] {
        [.objects("sessions", \.sessions), .objects("savedCards", \.savedCards), .objects("challenges", \.challenges)]
    }

    struct SavedRest: Codable { var pruneAt: Int }
    var savedRest: SavedRest { SavedRest(pruneAt: pruneAt) }
    mutating func restore(_ rest: SavedRest) { pruneAt = rest.pruneAt }
}

extension SwedbankPayPaymentSessionStore: StreamedSavedSection {
    package func savedSection() throws -> SavedStoreSection? { try ledgers.savedSection() }
    package func savedSectionJobs(tally: SavedSectionTally) -> AnyIterator<SavedStateJob> { ledgers.savedSectionJobs(tally: tally) }
    package func restoreSavedSection(from reader: SavedStateReader) throws { try ledgers.restoreSection(from: reader) }
    package func discardRestored() { ledgers.discardRestored() }
    /// The restored objects count toward the server's bound once every store is restored (``heldObjects()``).
    package func restoreSection(from decoder: any Decoder) throws {
        try ledgers.restoreSection(from: decoder)
    }
}
