// SPDX-License-Identifier: MIT
import Foundation

/// The payment orders of one namespace and the rules that change them: a plain value that ``SwedbankPayOrderStore``
/// keeps in a ``NamespacedStore``, which runs every operation under a lock.
struct SwedbankPayOrderLedger: NamespaceStateValue {
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: SwedbankPayConfiguration
    /// Its orders and tokens, as counted against the server's bound on objects (``ObjectRetention``).
    let retained: SwedbankPayOrderRetainedKinds

    var orders: [String: Order] = [:]
    /// Attempt and transaction numbers: 11 digits, increasing per namespace (swedbankpay-api.md §1.4 shows
    /// `40129782830`; the generation is inferred).
    var lastNumber = 40_129_782_829
    /// Orders are dropped by their last change, not by an expiry kept here: no expiry bound.
    var sweep = SweepSchedule(tracksExpiry: false)
    /// Stored-card tokens by value; a deleted one stays, refused as inactive (swedbankpay-api.md §2.2).
    var tokens: [String: StoredToken] = [:]
    /// What a merchant sends alike in each order (its URLs, payee id, description, user agent), kept once.
    var interner = StringInterner()

    var isEmpty: Bool { orders.isEmpty && tokens.isEmpty }

    /// A token a paid card attempt generated (swedbankpay-api.md §1.2 `generate…Token`), as `paid.tokens[]` lists it.
    struct StoredToken: Sendable {
        var token: String
        var kind: SwedbankPayTokenKind
        var instrument: String
        /// The masked PAN (`name` in `paid.tokens[]`).
        var name: String
        var cardBrand: String
        /// `MM/YYYY`.
        var expiryDate: String
        var payerReference: String?
        var deleted = false
    }

    /// One `historyList` entry (swedbankpay-api.md §1.4), 40 bytes: its name is one of the fifteen the ledger writes and
    /// `initiatedBy` one of three, each kept in a byte.
    struct HistoryEntry: Sendable {
        enum Name: String, Sendable, CaseIterable, Codable {
            case paymentCreated = "PaymentCreated", paymentLoaded = "PaymentLoaded"
            case paymentInstrumentSelected = "PaymentInstrumentSelected", paymentAttemptStarted = "PaymentAttemptStarted"
            case paymentAttemptFailed = "PaymentAttemptFailed", paymentAttemptAborted = "PaymentAttemptAborted"
            case paymentPaid = "PaymentPaid", paymentFailed = "PaymentFailed", paymentAborted = "PaymentAborted"
            case paymentCaptured = "PaymentCaptured", paymentPartialCaptured = "PaymentPartialCaptured"
            case paymentCancelled = "PaymentCancelled", paymentPartialCancelled = "PaymentPartialCancelled"
            case paymentReversed = "PaymentReversed", paymentPartialReversed = "PaymentPartialReversed"
        }

        enum Initiator: String, Sendable, Codable {
            case merchant = "Merchant", consumer = "Consumer", system = "System"
        }

        var created: Date
        var instrument: String?
        var number: Int?
        var prefill: Bool?
        var event: Name
        var initiator: Initiator
        var name: String { event.rawValue }
        var initiatedBy: String { initiator.rawValue }

        /// `name` is one of ``Name``'s and `initiatedBy` `Merchant`, `Consumer` or `System`: every caller passes one of these.
        init(created: Date, name: String, instrument: String? = nil, number: Int? = nil, prefill: Bool? = nil, initiatedBy: String) {
            guard let event = Name(rawValue: name) else { preconditionFailure("history entry \(name) is not one the ledger writes") }
            self.created = created
            self.instrument = instrument
            self.number = number
            self.prefill = prefill
            self.event = event
            initiator = Initiator(rawValue: initiatedBy) ?? .system
        }
    }

    struct Attempt: Sendable {
        var id: SwedbankPayAttemptID
        var instrument: String
        /// The `/psp/<instrument>/payments/<paymentID>` of the v3.0 callback (inferred: one per attempt).
        var paymentID: String
        var started: Date
        /// Last: packed after the date instead of padded to 8 bytes between the strings.
        var prefill: Bool

        init(id: SwedbankPayAttemptID, instrument: String, prefill: Bool, paymentID: String, started: Date) {
            self.id = id
            self.instrument = instrument
            self.paymentID = paymentID
            self.started = started
            self.prefill = prefill
        }
    }

    struct FailedAttempt: Sendable {
        var created: Date
        var instrument: String
        var number: Int
        var status: SwedbankPayFailedAttemptStatus
        var problem: SwedbankPayProblem
    }

    struct Payment: Sendable {
        var attempt: Attempt
        var transactionType: SwedbankPayTransactionType
        var amount: Int
        /// `paid.details`, kept as compact JSON text (a few short strings).
        var detailsJSON: CompactJSON
        var details: JSONText { detailsJSON.node.jsonText }
        var created: Date
        /// The Authorization or Sale that paid: what a v3.0 callback's `transaction` names (§1.8).
        var transactionID: String
        var transactionNumber: Int
    }

    /// A financial transaction: the Sale of a Swish/Trustly payment, captures, cancellations, reversals.
    struct Transaction: Sendable {
        var id: String
        var type: String
        var number: Int
        var amount: Int
        var vatAmount: Int
        var description: String
        var payeeReference: String
        var receiptReference: String?
        var created: Date
    }

    /// A class, changed in place under the store's lock and never handed out (reads copy it into a view or JSON).
    final class Order {
        let id: String
        let token: String
        let scenario: String?
        let created: Date
        var updated: Date
        var request: SwedbankPayCreateOrderRequest
        let initiatingSystemUserAgent: String
        let availableInstruments: [String]
        // The one-byte members side by side (no padding between them).
        let version: SwedbankPayAPIVersion
        var status = SwedbankPayOrderStatus.initialized
        var swishPending = false
        var integration = "HostedView"
        /// Open only between a payer's steps: boxed, 8 bytes the rest of the order's life.
        @Boxed var currentAttempt: Attempt? = nil
        var payment: Payment?
        var capturedAmount = 0
        var cancelledAmount = 0
        var reversedAmount = 0
        @Boxed var abortReason: String? = nil
        /// Rare (a failed Recur or UnscheduledPurchase): boxed, 8 bytes when absent.
        @Boxed var failure: SwedbankPayProblem? = nil
        @Boxed var cancelReason: String? = nil
        var failedAttempts: [FailedAttempt] = []
        private(set) var history: [HistoryEntry] = []
        var transactions: [Transaction] = []
        /// The tokens the paid attempt generated (`paid.tokens`).
        var generatedTokens: [StoredToken] = []
        /// The token a Recur, UnscheduledPurchase or one-click Purchase was paid with.
        @Boxed var usedToken: StoredToken? = nil

        init(id: String, token: String, version: SwedbankPayAPIVersion, scenario: String?, created: Date,
             request: SwedbankPayCreateOrderRequest, initiatingSystemUserAgent: String, availableInstruments: [String]) {
            self.id = id
            self.token = token
            self.version = version
            self.scenario = scenario
            self.created = created
            self.updated = created
            self.request = request
            self.initiatingSystemUserAgent = initiatingSystemUserAgent
            self.availableInstruments = availableInstruments
        }

        /// Every stored property of `other`, for the state file (``SavedStateCopyable``).
        init(copying other: Order) {
            id = other.id
            token = other.token
            scenario = other.scenario
            created = other.created
            updated = other.updated
            request = other.request
            initiatingSystemUserAgent = other.initiatingSystemUserAgent
            availableInstruments = other.availableInstruments
            version = other.version
            status = other.status
            swishPending = other.swishPending
            integration = other.integration
            _currentAttempt = other._currentAttempt
            payment = other.payment
            capturedAmount = other.capturedAmount
            cancelledAmount = other.cancelledAmount
            reversedAmount = other.reversedAmount
            _abortReason = other._abortReason
            _failure = other._failure
            _cancelReason = other._cancelReason
            failedAttempts = other.failedAttempts
            history = other.history
            transactions = other.transactions
            generatedTokens = other.generatedTokens
            _usedToken = other._usedToken
        }

        var resourceID: String { "/psp/paymentorders/\(id)" }

        /// Appends to ``history`` with its buffer exactly as long as the list: it grows by one to three entries a step
        /// and is kept for the order's life, where doubling would leave up to half of it empty.
        func addHistory(_ entry: HistoryEntry) {
            history.reserveCapacity(history.count + 1)
            history.append(entry)
        }

        /// A = the paid amount; C, X, R as captured, cancelled and reversed (inferred bookkeeping).
        var remainingCaptureAmount: Int {
            guard let payment, payment.transactionType == .authorization else { return 0 }
            return max(0, payment.amount - capturedAmount - cancelledAmount)
        }
        var remainingCancellationAmount: Int { remainingCaptureAmount }
        var remainingReversalAmount: Int { max(0, capturedAmount - reversedAmount) }

        /// Which post-purchase and PATCH operations are available now (swedbankpay-api.md §1.3 "How availability
        /// follows the order's state").
        func isAvailable(_ rel: String) -> Bool {
            switch (status, rel) {
            case (.initialized, "update-order"), (.initialized, "abort"): return !swishPending
            case (.initialized, "abort-paymentattempt"): return true
            case (.paid, "capture"): return remainingCaptureAmount > 0
            case (.paid, "cancel"): return remainingCancellationAmount > 0
            case (.paid, "reversal"): return remainingReversalAmount > 0
            default: return false
            }
        }

        func view(_ namespace: Namespace) -> SwedbankPayOrderView {
            SwedbankPayOrderView(
                namespace: namespace, orderID: id, token: token, version: version, status: status, operation: request.operation,
                currency: request.currency, amount: request.amount, vatAmount: request.vatAmount, description: request.description,
                language: request.language, urls: request.urls, payeeInfo: request.payeeInfo, payer: request.payer,
                availableInstruments: availableInstruments, restrictedToInstruments: request.restrictedToInstruments,
                instrument: request.instrument, disableStoredPaymentDetails: request.disableStoredPaymentDetails,
                enablePaymentDetailsConsentCheckbox: request.enablePaymentDetailsConsentCheckbox, integration: integration,
                scenario: scenario, currentAttempt: currentAttempt?.id, currentAttemptInstrument: currentAttempt?.instrument,
                swishPending: swishPending, paidInstrument: payment?.attempt.instrument, paidTransactionType: payment?.transactionType,
                requestJSON: request.compactJSON, created: created, updated: updated)
        }
    }

    // MARK: Create and read

    /// Adds an order; returns the tokens of orders a sweep dropped meanwhile.
    mutating func create(_ namespace: Namespace, orderID: String, token: String, _ request: SwedbankPayCreateOrderRequest,
                         version: SwedbankPayAPIVersion, scenario: String?, initiatingSystemUserAgent: String) -> [String] {
        let now = registry.now(namespace)
        var request = request
        request.intern(&interner)
        let order = Order(id: orderID, token: token, version: version, scenario: scenario, created: now, request: request,
                          initiatingSystemUserAgent: interner(initiatingSystemUserAgent),
                          availableInstruments: Self.availableInstruments(configuration.instruments, request))
        order.addHistory(HistoryEntry(created: now, name: "PaymentCreated", initiatedBy: "Merchant"))
        let dropped = sweepOccasionally(namespace, now: now)
        orders[orderID] = order
        retained.orders.created(namespace, orderID)
        return dropped
    }

    /// The configured instruments ∩ `restrictedToInstruments`, Swish only for SEK (inferred). Verify, Recur and
    /// UnscheduledPurchase are card only (the developer portal's Verify page: `["CreditCard"]`).
    /// When that is all of them, the configured array itself (every such order shares it).
    static func availableInstruments(_ configured: [String], _ request: SwedbankPayCreateOrderRequest) -> [String] {
        let available = configured.filter { instrument in
            (request.orderOperation == .purchase || instrument == "CreditCard")
                && (instrument != "Swish" || request.currency == "SEK")
                && (request.restrictedToInstruments.map { $0.contains(instrument) } ?? true)
        }
        return available.count == configured.count ? configured : available
    }

    func order(_ namespace: Namespace, _ orderID: String) throws(SwedbankPayProblem) -> Order {
        guard let order = orders[orderID] else { throw .orderNotFound(orderID) }
        return order
    }

    private mutating func nextNumber(_ namespace: Namespace) -> Int {
        lastNumber += 1
        return lastNumber
    }

    // MARK: Attempts (the session API)

    mutating func beginAttempt(_ order: Order, instrument: String, prefill: Bool, now: Date, namespace: Namespace)
    throws(SwedbankPayProblem) -> SwedbankPayAttemptID {
        guard order.status == .initialized else { throw .notAvailable("start a payment attempt", order) }
        let attempt = Attempt(id: SwedbankPayAttemptID(number: nextNumber(namespace)), instrument: instrument, prefill: prefill,
                              paymentID: ids.uuid(), started: now)
        // A new attempt replaces one still open (inferred: the payer chose again).
        order.currentAttempt = attempt
        order.addHistory(HistoryEntry(created: now, name: "PaymentInstrumentSelected", instrument: instrument, initiatedBy: "Consumer"))
        order.addHistory(HistoryEntry(created: now, name: "PaymentAttemptStarted", instrument: instrument, number: attempt.id.number,
                                      prefill: prefill, initiatedBy: "Consumer"))
        return attempt.id
    }

    mutating func attemptPaid(_ order: Order, _ attemptID: SwedbankPayAttemptID, transactionType: SwedbankPayTransactionType,
                              details: JSONText, now: Date, namespace: Namespace) throws(SwedbankPayProblem) -> ((), SwedbankPayCallbackEvent?) {
        guard order.status == .initialized, let attempt = order.currentAttempt, attempt.id == attemptID else {
            throw .notAvailable("complete this payment attempt", order)
        }
        order.currentAttempt = nil
        order.swishPending = false
        order.status = .paid
        let transactionID = ids.uuid(), transactionNumber = nextNumber(namespace)
        // A Verify order's card is checked, not charged: nothing to capture (the developer portal's Verify page).
        let transactionType = order.request.orderOperation == .verify ? .verification : transactionType
        order.payment = Payment(attempt: attempt, transactionType: transactionType, amount: order.request.amount, detailsJSON: CompactJSON(description: JSONWriter.compactText(JSONNode(details))).interned(&interner), created: now,
                                transactionID: transactionID, transactionNumber: transactionNumber)
        generateTokens(order, namespace, instrument: attempt.instrument, details: details)
        order.addHistory(HistoryEntry(created: now, name: "PaymentPaid", instrument: attempt.instrument, number: attempt.id.number,
                                      initiatedBy: "Consumer"))
        if transactionType == .sale {
            // Swish and Trustly are captured at once (swedbankpay-api.md §1.3): C = A, a Sale transaction (inferred).
            order.capturedAmount = order.request.amount
            order.transactions.append(Transaction(
                id: transactionID, type: "Sale", number: transactionNumber, amount: order.request.amount, vatAmount: order.request.vatAmount,
                description: order.request.description, payeeReference: order.request.payeeInfo.payeeReference, created: now))
        }
        let segment = transactionType == .sale ? "sales" : "authorizations"
        return ((), callback(order, namespace, attempt: attempt, segment: segment, transaction: (transactionID, transactionNumber),
                             postPurchase: false, reason: "attempt \(attempt.id) paid"))
    }

    /// The tokens the order asked for, once a card pays it (developer portal, mobile SDK "Payment Tokens For Unscheduled Or
    /// Recurring Purchases": `paid.tokens` after a Purchase or Verify). Cards only (the Recur page's badge; inferred for
    /// the wallets).
    private mutating func generateTokens(_ order: Order, _ namespace: Namespace, instrument: String, details: JSONText) {
        guard instrument == "CreditCard", !order.request.generateTokens.isEmpty else { return }
        var fields: [String: String] = [:]
        if case .object(let members) = details { for case let (key, .string(value)) in members { fields[key] = value } }
        for kind in SwedbankPayTokenKind.allCases where order.request.generateTokens.contains(kind) {
            let token = StoredToken(token: ids.uuid(), kind: kind, instrument: instrument, name: fields["maskedPan"] ?? "492500******0004",
                                    cardBrand: fields["cardBrand"] ?? "Visa", expiryDate: fields["expiryDate"] ?? "12/2033",
                                    payerReference: order.request.payer?.payerReference)
            tokens[token.token] = token
            retained.tokens.created(namespace, token.token)
            order.generatedTokens.append(token)
        }
    }

    /// The active token a Recur, UnscheduledPurchase or one-click Purchase names: 404 `inputerror` when there is none of
    /// that kind, 422 `paymenttokeninactive` once deleted (swedbankpay-api.md §2.2).
    func activeToken(_ namespace: Namespace, _ kind: SwedbankPayTokenKind, _ value: String) throws(SwedbankPayProblem) -> StoredToken {
        guard let token = tokens[value], token.kind == kind else { throw .tokenNotFound(kind) }
        guard !token.deleted else { throw .tokenInactive(kind) }
        return token
    }

    /// `PATCH /psp/paymentorders/<kind>Tokens/<token>` `{"state": "Deleted"}` (developer portal
    /// page on deleting tokens); deleting again changes nothing (inferred).
    mutating func deleteToken(_ namespace: Namespace, _ kind: SwedbankPayTokenKind, _ value: String) throws(SwedbankPayProblem) -> StoredToken {
        guard var token = tokens[value], token.kind == kind else { throw .tokenNotFound(kind) }
        token.deleted = true
        tokens[value] = token
        return token
    }

    /// A Recur or UnscheduledPurchase: paid at once with the stored card, an Authorization to capture or cancel later
    /// (the developer portal's Recur page, "After The Recurring Purchase"); or, declined, Failed with
    /// the acquirer's problem: one attempt only (swedbankpay-api.md §1.5 `Failed`). No callback for cards ("For
    /// recurring transactions, the callback will only be sent for Trustly transactions, not card").
    mutating func payWithToken(_ order: Order, _ token: StoredToken, declined: SwedbankPayProblem?, now: Date, namespace: Namespace) {
        order.usedToken = token
        let attempt = Attempt(id: SwedbankPayAttemptID(number: nextNumber(namespace)), instrument: token.instrument, prefill: false,
                              paymentID: ids.uuid(), started: now)
        order.addHistory(HistoryEntry(created: now, name: "PaymentAttemptStarted", instrument: token.instrument, number: attempt.id.number,
                                      prefill: false, initiatedBy: "Merchant"))
        if let declined {
            order.failedAttempts.append(FailedAttempt(created: now, instrument: token.instrument, number: attempt.id.number, status: .failed,
                                                      problem: declined))
            order.addHistory(HistoryEntry(created: now, name: "PaymentAttemptFailed", instrument: token.instrument,
                                          number: attempt.id.number, initiatedBy: "Merchant"))
            order.status = .failed
            order.failure = declined
            order.addHistory(HistoryEntry(created: now, name: "PaymentFailed", initiatedBy: "System"))
            return
        }
        order.status = .paid
        let details = JSONText.object([("cardBrand", .string(token.cardBrand)), ("maskedPan", .string(token.name)),
                                       ("expiryDate", .string(token.expiryDate)), ("transactionInitiator", .string("MERCHANT"))])
        order.payment = Payment(attempt: attempt, transactionType: .authorization, amount: order.request.amount, detailsJSON: CompactJSON(description: JSONWriter.compactText(JSONNode(details))).interned(&interner), created: now,
                                transactionID: ids.uuid(), transactionNumber: nextNumber(namespace))
        order.addHistory(HistoryEntry(created: now, name: "PaymentPaid", instrument: token.instrument, number: attempt.id.number,
                                      initiatedBy: "Merchant"))
    }

    mutating func endAttempt(_ order: Order, _ attemptID: SwedbankPayAttemptID, status: SwedbankPayFailedAttemptStatus,
                             problem: SwedbankPayProblem, now: Date, namespace: Namespace) throws(SwedbankPayProblem) -> ((), SwedbankPayCallbackEvent?) {
        guard order.status == .initialized, let attempt = order.currentAttempt, attempt.id == attemptID else {
            throw .notAvailable("fail this payment attempt", order)
        }
        return ((), endCurrentAttempt(order, status: status, problem: problem, now: now, namespace: namespace, initiatedBy: "Consumer"))
    }

    /// Ends the open attempt as a failed attempt: history, failedAttempts and a callback (swedbankpay-api.md §1.4, §1.8).
    private mutating func endCurrentAttempt(_ order: Order, status: SwedbankPayFailedAttemptStatus, problem: SwedbankPayProblem,
                                            now: Date, namespace: Namespace, initiatedBy: String) -> SwedbankPayCallbackEvent? {
        guard let attempt = order.currentAttempt else { return nil }
        order.currentAttempt = nil
        order.swishPending = false
        order.failedAttempts.append(FailedAttempt(created: now, instrument: attempt.instrument, number: attempt.id.number, status: status,
                                                  problem: problem))
        order.addHistory(HistoryEntry(created: now, name: status == .aborted ? "PaymentAttemptAborted" : "PaymentAttemptFailed",
                                      instrument: attempt.instrument, number: attempt.id.number, initiatedBy: initiatedBy))
        // The failed Sale or Authorization is not kept: its id and number only name it in a v3.0 callback.
        return callback(order, namespace, attempt: attempt, segment: attempt.instrument == "Swish" ? "sales" : "authorizations",
                        transaction: (ids.uuid(), nextNumber(namespace)), postPurchase: false,
                        reason: "attempt \(attempt.id) \(status.rawValue.lowercased())")
    }

    /// Merchant `Abort` (PATCH) or the payer's abort (session `abort-payment`, the pages' cancel).
    mutating func abort(_ order: Order, reason: String, by initiatedBy: String, now: Date, namespace: Namespace)
    throws(SwedbankPayProblem) -> SwedbankPayCallbackEvent? {
        guard order.isAvailable("abort") else { throw .notAvailable("abort", order) }
        // An open attempt ends as an aborted attempt (inferred); its callback only when the payer aborts
        // (inferred: no callback on a merchant abort).
        let event = endCurrentAttempt(order, status: .aborted, problem: .attemptAborted(reason), now: now, namespace: namespace,
                                      initiatedBy: initiatedBy)
        order.status = .aborted
        order.abortReason = reason
        order.addHistory(HistoryEntry(created: now, name: "PaymentAborted", initiatedBy: initiatedBy))
        return initiatedBy == "Merchant" ? nil : event
    }

    /// Session `session_end_reached`: the order is Failed (inferred).
    mutating func fail(_ order: Order, problem: SwedbankPayProblem, now: Date, namespace: Namespace)
    throws(SwedbankPayProblem) -> ((), SwedbankPayCallbackEvent?) {
        guard order.status == .initialized else { throw .notAvailable("fail", order) }
        let event = endCurrentAttempt(order, status: .failed, problem: problem, now: now, namespace: namespace, initiatedBy: "System")
        order.status = .failed
        order.failure = problem
        order.addHistory(HistoryEntry(created: now, name: "PaymentFailed", initiatedBy: "System"))
        return ((), event)
    }

    // MARK: PATCH (swedbankpay-api.md §1.6)

    mutating func patch(_ order: Order, _ patch: SwedbankPayOrderPatch, now: Date, namespace: Namespace)
    throws(SwedbankPayProblem) -> SwedbankPayCallbackEvent? {
        switch patch {
        case let .updateOrder(amount, vatAmount, orderItems):
            guard order.isAvailable("update-order") else { throw .notAvailable("update-order", order) }
            order.request.amount = amount
            order.request.vatAmount = vatAmount
            if let orderItems { order.request.orderItems = orderItems }
            order.request.json = Self.replacing(order.request.json, [("amount", .int(amount)), ("vatAmount", .int(vatAmount))]
                                                + (orderItems.map { [("orderItems", JSONText.array($0.map(\.jsonText)))] } ?? []))
            return nil
        case let .abort(reason):
            return try abort(order, reason: reason ?? "CancelledByConsumer", by: "Merchant", now: now, namespace: namespace)
        case let .abortPaymentAttempt(reason):
            guard order.isAvailable("abort-paymentattempt") else { throw .notAvailable("abort-paymentattempt", order) }
            // No open attempt: nothing to do (inferred).
            return endCurrentAttempt(order, status: .aborted, problem: .attemptAborted(reason ?? "AbortedByMerchant"), now: now,
                                     namespace: namespace, initiatedBy: "Merchant")
        }
    }

    /// `object` with `changes` set (kept in place when present, appended otherwise).
    static func replacing(_ object: JSONNode, _ changes: [(String, JSONText)]) -> JSONNode {
        guard var members = object.members else { return object }
        for (key, value) in changes {
            let node = JSONNode(value)
            if let index = members.lastIndex(where: { $0.key == key }) {
                members[index].value = node
            } else {
                members.append(JSONNode.Member(key: key, keyPosition: JSONPosition(line: 1, column: 1), value: node))
            }
        }
        return JSONNode(.object(members))
    }

    // MARK: Captures, cancellations, reversals (swedbankpay-api.md §1.7)

    mutating func postPurchase(_ order: Order, _ kind: SwedbankPayPostPurchase, _ request: SwedbankPayTransactionRequest, refused: Bool,
                               now: Date, namespace: Namespace) throws(SwedbankPayProblem) -> (Transaction, SwedbankPayCallbackEvent?) {
        if refused { throw .refusedByScenario(kind.rawValue) }
        guard order.isAvailable(kind.rawValue), let payment = order.payment else { throw .notAvailable(kind.rawValue, order) }
        // "payeeReference must be unique per transaction" (§1.7; the problem is inferred). The order's own may be reused.
        if order.transactions.contains(where: { $0.payeeReference == request.payeeReference && $0.type != "Sale" }) {
            throw .input([.init(name: "Transaction.PayeeReference",
                                description: "The payeeReference \(request.payeeReference) has already been used.")])
        }
        let amount: Int, vatAmount: Int, historyName: String
        switch kind {
        case .capture:
            amount = request.amount ?? 0
            vatAmount = request.vatAmount ?? 0
            guard amount <= order.remainingCaptureAmount else {
                throw .input([.init(name: "Transaction.Amount", description: "Amount exceeds remainingCaptureAmount (\(order.remainingCaptureAmount)).")])
            }
            order.capturedAmount += amount
            historyName = order.capturedAmount + order.cancelledAmount >= payment.amount && order.cancelledAmount == 0
                ? "PaymentCaptured" : "PaymentPartialCaptured"
        case .cancel:
            // A cancellation releases all that is left; the request has no amount (§1.7).
            amount = order.remainingCancellationAmount
            vatAmount = 0
            order.cancelledAmount += amount
            order.cancelReason = request.description
            historyName = order.capturedAmount == 0 ? "PaymentCancelled" : "PaymentPartialCancelled"
            if order.capturedAmount == 0 { order.status = .cancelled }  // §1.5: the full authorization cancelled
        case .reversal:
            amount = request.amount ?? 0
            vatAmount = request.vatAmount ?? 0
            guard amount <= order.remainingReversalAmount else {
                throw .input([.init(name: "Transaction.Amount", description: "Amount exceeds remainingReversalAmount (\(order.remainingReversalAmount)).")])
            }
            order.reversedAmount += amount
            let complete = order.remainingReversalAmount == 0 && order.remainingCaptureAmount == 0
            historyName = complete ? "PaymentReversed" : "PaymentPartialReversed"
            if complete { order.status = .reversed }  // §1.7: "Reversed" once remainingReversalAmount is 0 (partial: inferred Paid)
        }
        let transaction = Transaction(id: ids.uuid(), type: kind.transactionType, number: nextNumber(namespace), amount: amount,
                                      vatAmount: vatAmount, description: request.description, payeeReference: request.payeeReference,
                                      receiptReference: request.receiptReference, created: now)
        order.transactions.append(transaction)
        order.addHistory(HistoryEntry(created: now, name: historyName, instrument: payment.attempt.instrument,
                                      number: transaction.number, initiatedBy: "Merchant"))
        let event = callback(order, namespace, attempt: payment.attempt, segment: kind.collection, transaction: (transaction.id, transaction.number),
                             postPurchase: true, reason: "\(kind.rawValue) \(transaction.number)")
        return (transaction, event)
    }

    // MARK: Callbacks (swedbankpay-api.md §1.8)

    /// The callback of an event on `order`, or nil without `urls.callbackUrl`. v3.1: `{orderReference?,
    /// paymentOrder{id, instrument, number}}`; v3.0: `{paymentOrder{id, instrument}, payment{id, number},
    /// transaction{id, number}}`.
    /// `transaction`: the Authorization, Sale, Capture, Cancellation or Reversal the event is about.
    private func callback(_ order: Order, _ namespace: Namespace, attempt: Attempt, segment: String, transaction: (id: String, number: Int),
                          postPurchase: Bool, reason: String) -> SwedbankPayCallbackEvent? {
        guard let url = order.request.urls.callbackUrl else { return nil }
        // "For recurring transactions, the callback will only be sent for Trustly transactions, not card" (developer
        // portal's Recur page, urls.callbackUrl): none for a card Recur or UnscheduledPurchase,
        // nor for its captures, cancellations and reversals (inferred).
        if order.request.orderOperation.isMerchantInitiated && attempt.instrument != "Trustly" { return nil }
        let body: JSONText
        switch order.version {
        case .v3_1:
            // `number`: "the attempt number which triggered the callback" (§1.8); post-purchase: the transaction's (inferred).
            let number = postPurchase ? transaction.number : attempt.id.number
            var members: [(String, JSONText)] = []
            if let reference = order.request.payeeInfo.orderReference { members.append(("orderReference", .string(reference))) }
            members.append(("paymentOrder", .object([("id", .string(order.resourceID)), ("instrument", .string(attempt.instrument)),
                                                      ("number", .int(number))])))
            body = .object(members)
        case .v3_0:
            let payment = "/psp/\(Self.instrumentSegment(attempt.instrument))/payments/\(attempt.paymentID)"
            body = .object([
                ("paymentOrder", .object([("id", .string(order.resourceID)), ("instrument", .string(attempt.instrument))])),
                ("payment", .object([("id", .string(payment)), ("number", .int(attempt.id.number))])),
                ("transaction", .object([("id", .string("\(payment)/\(segment)/\(transaction.id)")), ("number", .int(transaction.number))])),
            ])
        }
        return SwedbankPayCallbackEvent(namespace: namespace, url: url, body: body.data,
                                        note: "callback v\(order.version.rawValue) of \(order.resourceID): \(reason)")
    }

    /// The instrument segment of v3.0 payment ids (swedbankpay-api.md §1.7 shows creditcard; others inferred).
    static func instrumentSegment(_ instrument: String) -> String {
        switch instrument {
        case "CreditCard", "ApplePay", "GooglePay", "ClickToPay": "creditcard"
        case let other where other.hasPrefix("Invoice"): "invoice"
        case let other where other.hasPrefix("CreditAccount"): "creditaccount"
        default: instrument.lowercased()
        }
    }

    // MARK: Housekeeping

    /// Orders `retentionAfterLastChange` past their last change are dropped, so memory stays bounded. Runs on
    /// create, every 1024 creates in the namespace or when its clock has moved a minute past the last sweep.
    private mutating func sweepOccasionally(_ namespace: Namespace, now: Date) -> [String] {
        guard !isEmpty, sweep.creationIsDue(now: now) else { return [] }
        let retention = configuration.retentionAfterLastChange
        var dropped: [String] = [], droppedIDs: [String] = []
        for (id, order) in orders where order.updated + retention <= now {
            dropped.append(order.token)
            droppedIDs.append(id)
            orders[id] = nil
        }
        retained.orders.removed(namespace, droppedIDs)
        if dropped.count >= 4096 { FreedMemory.returnToSystem() }
        return dropped
    }

    /// Its orders and tokens as counted toward the server's bound after a restore. A token counts as made with its
    /// order's payment, else (the order gone) with the namespace's newest order.
    func heldObjects(_ namespace: Namespace) -> [HeldObject] {
        var held: [HeldObject] = []
        var tokensLeft = tokens
        for order in orders.values {
            held.append(HeldObject(created: order.created, kind: retained.orders, namespace: namespace, id: order.id))
            for token in order.generatedTokens where tokensLeft.removeValue(forKey: token.token) != nil {
                held.append(HeldObject(created: order.payment?.created ?? order.created, kind: retained.tokens, namespace: namespace, id: token.token))
            }
        }
        let newest = orders.values.lazy.map(\.created).max() ?? .distantPast
        held += tokensLeft.keys.map { HeldObject(created: newest, kind: retained.tokens, namespace: namespace, id: $0) }
        return held
    }

    /// The session tokens of its orders (to forget them when the namespace is reset).
    var sessionTokens: [String] { orders.values.map(\.token) }

    func snapshot(_ namespace: Namespace) -> JSONText {
        let orders = Array(self.orders.values)
        return .object([
            ("payment_orders", .array(orders.sorted { ($0.created, $0.id) < ($1.created, $1.id) }.map { order in
                .object([("id", .string(order.resourceID)), ("status", .string(order.status.rawValue)),
                         ("version", .string(order.version.rawValue)), ("token", .string(order.token)),
                         ("scenario", order.scenario.map(JSONText.string) ?? .null),
                         ("amount", .int(order.request.amount)), ("currency", .string(order.request.currency)),
                         ("captured_amount", .int(order.capturedAmount)), ("cancelled_amount", .int(order.cancelledAmount)),
                         ("reversed_amount", .int(order.reversedAmount)), ("swish_pending", .bool(order.swishPending)),
                         ("current_attempt", order.currentAttempt.map { .int($0.id.number) } ?? .null),
                         ("failed_attempts", .int(order.failedAttempts.count)),
                         ("created", .string(SwedbankPayTimestamp.string(order.created))),
                         ("updated", .string(SwedbankPayTimestamp.string(order.updated)))])
            })),
        ])
    }
}

extension SwedbankPayProblem {
    /// 404 for an unknown order id or one of another namespace (swedbankpay-api.md §2.2 `notfound`).
    static func orderNotFound(_ orderID: String) -> SwedbankPayProblem {
        SwedbankPayProblem("notfound", status: .notFound, title: "Not Found", detail: "Payment order /psp/paymentorders/\(orderID) was not found.")
    }

    static func notFound(path: String) -> SwedbankPayProblem {
        SwedbankPayProblem("notfound", status: .notFound, title: "Not Found", detail: "No resource at \(path).")
    }

    /// 403 for an operation the order's state does not offer (swedbankpay-api.md §2.2 `forbidden`; detail inferred).
    static func notAvailable(_ operation: String, _ order: SwedbankPayOrderLedger.Order) -> SwedbankPayProblem {
        var state = "status \(order.status.rawValue)"
        if let payment = order.payment { state += ", transactionType \(payment.transactionType.rawValue)" }
        if order.swishPending { state += ", a Swish payment pending" }
        return SwedbankPayProblem("forbidden", status: .forbidden, title: "Forbidden",
                                  detail: "The operation \(operation) is not available for this payment order (\(state)).")
    }

    /// A scenario's `refused` outcome on capture, cancel or reversal.
    static func refusedByScenario(_ operation: String) -> SwedbankPayProblem {
        SwedbankPayProblem("forbidden", status: .forbidden, title: "Forbidden", detail: "Refused by sandbox scenario")
    }

    /// The problem of an aborted attempt in failedAttempts (inferred: type and wording).
    static func attemptAborted(_ reason: String) -> SwedbankPayProblem {
        SwedbankPayProblem("paymentorders/paymentattemptaborted", status: .conflict, title: "Payment attempt aborted",
                           detail: "The payment attempt was aborted.", problems: [.init(name: "AbortReason", description: reason)])
    }

    /// 404 `inputerror` for a token that does not exist, verbatim the developer portal's example for a RecurrenceToken
    /// (swedbankpay-api.md §2.2).
    static func tokenNotFound(_ kind: SwedbankPayTokenKind) -> SwedbankPayProblem {
        SwedbankPayProblem("paymentorders/inputerror", status: .notFound, title: "Error in input data",
                           detail: "Input validation failed, error description in problems node!",
                           problems: [.init(name: kind.problemName, description: "The given \(kind.problemName) does not exist.")])
    }

    /// 422 `paymenttokeninactive` for a deleted token (the same page's TokenInactive example).
    static func tokenInactive(_ kind: SwedbankPayTokenKind) -> SwedbankPayProblem {
        SwedbankPayProblem("paymentorders/paymenttokeninactive", status: HTTPStatus(code: 422), title: "Payment token is inactive",
                           detail: "The given \(kind.problemName) is inactive.",
                           problems: [.init(name: kind.problemName, description: "The given \(kind.problemName) is inactive.")])
    }

    /// 400 with one `problems[]` entry per violation (swedbankpay-api.md §2.1).
    static func input(_ problems: [Detail]) -> SwedbankPayProblem {
        SwedbankPayProblem("paymentorders/inputerror", status: .badRequest, title: "Error in input data",
                           detail: "Input validation failed, error description in problems node!", problems: problems)
    }
}

// MARK: The state file

// Synthesized, so a field added to an order or its parts is kept too.
extension SwedbankPayOrderLedger.StoredToken: Codable {}
extension SwedbankPayOrderLedger.HistoryEntry: Codable {}
extension SwedbankPayOrderLedger.Attempt: Codable {}
extension SwedbankPayOrderLedger.FailedAttempt: Codable {}
extension SwedbankPayOrderLedger.Payment: Codable {}
extension SwedbankPayOrderLedger.Transaction: Codable {}
extension SwedbankPayOrderLedger.Order: Codable {}

/// Copied under the store's lock for the state file to encode outside it (`init(copying:)`).
extension SwedbankPayOrderLedger.Order: SavedStateCopyable {
    func savedCopy() -> SwedbankPayOrderLedger.Order { SwedbankPayOrderLedger.Order(copying: self) }
}

extension SwedbankPayOrderLedger: SavableNamespaceState {
    var savedObjectCount: Int { orders.count + tokens.count }

    static var savedCollections: [SavedCollection<Self>] { [.objects("orders", \.orders), .objects("tokens", \.tokens)] }

    struct SavedRest: Codable {
        var lastNumber: Int
        var sweep: SweepSchedule
    }
    var savedRest: SavedRest { SavedRest(lastNumber: lastNumber, sweep: sweep) }

    mutating func restore(_ rest: SavedRest) {
        lastNumber = rest.lastNumber
        sweep = rest.sweep
    }
}
