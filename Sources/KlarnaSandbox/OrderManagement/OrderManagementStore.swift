// SPDX-License-Identifier: MIT
import Foundation

/// Lifetimes and credentials of the faked Order Management API.
public struct KlarnaOrderManagementConfiguration: Sendable {
    /// An order can be captured until `created_at` plus this (klarna-api.md §2.8: typically 28 days). An
    /// extension sets `expires_at` to the day of the extension plus this (Klarna's extension docs).
    public var authorizationLifetime: TimeInterval = 28 * 24 * 3600
    /// Extensions are allowed within this time of the purchase (Klarna's extension docs: 180 days).
    public var maximumAuthorizationAge: TimeInterval = 180 * 24 * 3600
    /// Orders are forgotten this long after `expires_at`, so memory stays bounded (the sandbox's choice).
    public var retentionAfterExpiry: TimeInterval = 48 * 3600
    /// Which HTTP Basic credentials are accepted (§1.2): Klarna's API credentials are the same for every
    /// Klarna API, so the sandbox sets this from `KlarnaPaymentsConfiguration.credentials`.
    var credentials: KlarnaCredentialPolicy = .anyNonEmpty
    /// An increase of `order_amount` (PATCH …/authorization) is granted up to `original_order_amount` times
    /// this; beyond it Klarna's second risk assessment refuses ("Sometimes the increase might be rejected as we
    /// are not allowed to grant a customer an extended order amount", Klarna's update-order-amount docs). The
    /// limit itself is the sandbox's choice (inferred).
    public var grantableOrderAmountFactor: Double = 1.5
    /// What GET …/captures/{id}/extend-due-date-options offers while a capture's due date has not been extended
    /// (the days and fees are the sandbox's choice: Klarna's docs show `{"number_of_days": 2, "amount": 0}`
    /// and say the list may be empty).
    package var dueDateExtensionOptions: [KlarnaDueDateOption] = [
        KlarnaDueDateOption(numberOfDays: 7, fee: 0), KlarnaDueDateOption(numberOfDays: 14, fee: 0),
        KlarnaDueDateOption(numberOfDays: 30, fee: 0),
    ]

    public init() {}

    /// The largest `order_amount` an update may grant an order first placed for `original`.
    func grantableOrderAmount(original: Int) -> Int {
        min(OrderManagementValidation.maximumAmount, Int((Double(original) * grantableOrderAmountFactor).rounded(.down)))
    }
}

/// One option of `ExtendDueDateOptions`: extend by `numberOfDays` for a fee of `fee` minor units.
package struct KlarnaDueDateOption: Equatable, Sendable {
    package var numberOfDays: Int
    package var fee: Int

    package init(numberOfDays: Int, fee: Int) {
        self.numberOfDays = numberOfDays
        self.fee = fee
    }
}

/// The writes of Order Management, as idempotency keys are scoped (one key per order and operation).
enum OrderManagementWrite: String, Sendable, Codable {
    case capture, refund, cancel, acknowledge, release, extend
    case updateAuthorization = "update-authorization", merchantReferences = "merchant-references"
    case customerDetails = "customer-details", captureShippingInfo = "capture-shipping-info"
    case captureCustomerDetails = "capture-customer-details", triggerSendOut = "trigger-send-out"
    case extendDueDate = "extend-due-date", orderShippingInfo = "shipping-info"
}

/// What a write of Order Management made (§5): a capture or refund (201) or a change (204). Errors are thrown as
/// ``KlarnaError``; the routes render both.
enum OrderManagementWriteResult: Sendable {
    /// 201, empty body, `Capture-Id` or `Refund-Id` and `Location`.
    case created(OrderManagementCreated)
    /// 204.
    case changed
    /// An answer a state file of an earlier version kept as an HTTP response and that this version would not answer
    /// the same way (a 201 from before answers kept their ids): replayed as it was.
    case earlier(HTTPResponse)
}

/// A capture or refund a write made: its id, and the origin its `Location` names.
struct OrderManagementCreated: Sendable, Equatable {
    enum Kind: String, Sendable, Codable {
        case capture, refund

        /// The header that names the new id (§5).
        var idHeader: String { self == .capture ? "Capture-Id" : "Refund-Id" }
        /// The collection of the order its `Location` names.
        var collection: String { self == .capture ? "captures" : "refunds" }
    }

    var kind: Kind
    var id: String
    /// Where the request that made it reached this sandbox (``HTTPRequest/publicOrigin``, "" when unknown): a replay's
    /// `Location` names the first request's.
    var origin: String
}

/// The first answer to one Klarna-Idempotency-Key of one write on an order (§5), replayed byte for byte: the domain
/// result (a capture's or refund's id and origin, the origin one string per origin a namespace was reached at; a
/// change) or the error with the correlation id it first answered with. Kept small, as an order keeps it for its life.
struct IdempotentAnswer: Sendable {
    var operation: OrderManagementWrite
    var key: String
    var kept: Result<OrderManagementWriteResult, KlarnaError>

    /// `kept` as it is kept: a created's origin interned in `origins`, the namespace's origins; an error's
    /// correlation id already drawn.
    init(operation: OrderManagementWrite, key: String, kept: Result<OrderManagementWriteResult, KlarnaError>,
         origins: OrderManagementLedger.Origins) {
        self.operation = operation
        self.key = key
        if case .success(.created(var created)) = kept {
            created.origin = origins.intern(created.origin)
            self.kept = .success(.created(created))
        } else {
            self.kept = kept
        }
    }

    /// The first answer again: the result, or its error thrown.
    func replay() throws(KlarnaError) -> OrderManagementWriteResult { try kept.get() }
}

/// Order Management's ledger of one namespace: its orders and the rules that change them. A plain value that
/// ``KlarnaOrderManagementStore`` keeps in a ``NamespacedStore``, which runs every operation under a lock.
struct OrderManagementLedger: NamespaceStateValue {
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: KlarnaOrderManagementConfiguration
    /// Its orders, as counted against the server's bound on objects (``ObjectRetention``).
    let retained: RetainedObjectKind

    /// A class, changed in place under the store's lock and never handed out (reads copy it into a
    /// ``KlarnaOrderManagementOrder``), as KP's sessions.
    final class Order {
        let id: String
        /// As placed, then changed by updates: order lines, merchant references, addresses. Shared with the
        /// Klarna Payments order it was placed as, until an update changes it.
        @Shared var placed: KlarnaCreateOrderRequest
        let fraudStatus: String
        let klarnaReference: String
        let createdAt: Date
        var expiresAt: Date
        /// The KP session's sticky scenario.
        let scenario: String?
        let originalOrderAmount: Int
        var orderAmount: Int
        var capturedAmount = 0
        var refundedAmount = 0
        var cancelled = false
        /// After release-remaining-authorization: nothing more can be captured.
        var released = false
        /// Acknowledge has no visible effect: `Order` has no such field (§5; a KCO concept).
        var acknowledged = false
        var captures: [KlarnaCapture] = []
        var refunds: [KlarnaRefund] = []
        /// Send-outs triggered per capture id (POST …/trigger-send-out): visible in the control API's state only,
        /// `Capture` has no such field.
        var sendOuts: [String: Int] = [:]
        /// POST …/shipping-info: the order's own shipping info (OM-OAS `Order.shipping_info`).
        var shippingInfo: [KlarnaShippingInfo] = []
        /// The days a capture's due date was extended by (PATCH …/extend-due-date); once per capture (inferred).
        var dueDateExtensions: [String: Int] = [:]
        /// The first answer per operation and Klarna-Idempotency-Key (§5): a list, as an order sees a few writes.
        var answers: [IdempotentAnswer] = []

        init(id: String, placed: Shared<KlarnaCreateOrderRequest>, fraudStatus: String, createdAt: Date, expiresAt: Date,
             scenario: String?) {
            self.id = id
            _placed = placed
            self.fraudStatus = fraudStatus
            self.klarnaReference = Self.shortReference(id)
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.scenario = scenario
            originalOrderAmount = placed.wrappedValue.orderAmount ?? 0
            orderAmount = originalOrderAmount
        }

        /// The constants as the state file has them, for its reader (which sets the rest).
        init(id: String, placed: Shared<KlarnaCreateOrderRequest>, fraudStatus: String, klarnaReference: String, createdAt: Date,
             expiresAt: Date, scenario: String?, originalOrderAmount: Int) {
            self.id = id
            _placed = placed
            self.fraudStatus = fraudStatus
            self.klarnaReference = klarnaReference
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.scenario = scenario
            self.originalOrderAmount = originalOrderAmount
            orderAmount = originalOrderAmount
        }

        /// Every stored property of `other`, for the state file (``SavedStateCopyable``).
        init(copying other: Order) {
            id = other.id
            _placed = other._placed
            fraudStatus = other.fraudStatus
            klarnaReference = other.klarnaReference
            createdAt = other.createdAt
            expiresAt = other.expiresAt
            scenario = other.scenario
            originalOrderAmount = other.originalOrderAmount
            orderAmount = other.orderAmount
            capturedAmount = other.capturedAmount
            refundedAmount = other.refundedAmount
            cancelled = other.cancelled
            released = other.released
            acknowledged = other.acknowledged
            captures = other.captures
            refunds = other.refunds
            sendOuts = other.sendOuts
            shippingInfo = other.shippingInfo
            dueDateExtensions = other.dueDateExtensions
            answers = other.answers
        }

        /// Whether the authorization has lapsed: at `expires_at` ("The order can only be captured until this time", OM-OAS).
        func isExpired(at now: Date) -> Bool { now >= expiresAt }

        /// The status at `now` (§5 state rules). PART_CAPTURED and CAPTURED orders stay so after `expires_at`;
        /// an AUTHORIZED one reads EXPIRED (§5: "typically 28 days, after which the order is EXPIRED").
        /// CLOSED is never produced: Klarna does not say when it is used (§9.10).
        func status(at now: Date) -> String {
            if cancelled { return "CANCELLED" }
            if capturedAmount == 0 { return isExpired(at: now) ? "EXPIRED" : "AUTHORIZED" }
            // Inferred: release leaves the order CAPTURED (§9.10 leaves CAPTURED or CLOSED open).
            return released || capturedAmount >= orderAmount ? "CAPTURED" : "PART_CAPTURED"
        }

        /// `order_amount − captured_amount` while the authorization is open; 0 once cancelled, released or
        /// expired (inferred).
        func remainingAuthorizedAmount(at now: Date) -> Int {
            cancelled || released || isExpired(at: now) ? 0 : max(0, orderAmount - capturedAmount)
        }

        func read(at now: Date) -> KlarnaOrderManagementOrder {
            KlarnaOrderManagementOrder(
                orderId: id, status: status(at: now), fraudStatus: fraudStatus, orderAmount: orderAmount,
                originalOrderAmount: originalOrderAmount, capturedAmount: capturedAmount, refundedAmount: refundedAmount,
                remainingAuthorizedAmount: remainingAuthorizedAmount(at: now), placed: placed, klarnaReference: klarnaReference,
                createdAt: createdAt, expiresAt: expiresAt, captures: captures, refunds: refunds, shippingInfo: shippingInfo)
        }

        /// A short upper-case code like Klarna's `K4MADNY` (§5, §8), derived from the order id so that it
        /// takes no id from the generator (tests count on the generator's sequence).
        static func shortReference(_ orderID: String) -> String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
            for byte in orderID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let alphabet: StaticString = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
            return String(unsafeUninitializedCapacity: 8) { out in
                for index in 0..<8 { out[index] = alphabet.utf8Start[Int((hash >> UInt64(index * 5)) & 31)] }
                return 8
            }
        }
    }

    var orders: [String: Order] = [:]
    /// The origins its idempotent answers were reached at, each kept once (``IdempotentAnswer``); a class, as the
    /// writes that add to it run while an order of this ledger is being changed.
    let origins = Origins()

    final class Origins {
        /// The last few, most recent last.
        var strings: [String] = []

        /// `origin` as the string kept already, else kept (the oldest of four forgotten: answers keep their own).
        func intern(_ origin: String) -> String {
            if let kept = strings.first(where: { $0 == origin }) { return kept }
            if strings.count >= 4 { strings.removeFirst() }
            strings.append(origin)
            return origin
        }
    }
    /// Its expiry bound is when the first order is due to be dropped (extensions only move that later).
    var sweep = SweepSchedule()

    var isEmpty: Bool { orders.isEmpty }

    // MARK: Placing (KP create-order, HPP)

    mutating func place(_ namespace: Namespace, orderID: String, request: Shared<KlarnaCreateOrderRequest>, fraudStatus: String,
                        scenario: String?, captured: Bool) {
        let now = registry.now(namespace)
        let order = Order(id: orderID, placed: request, fraudStatus: fraudStatus, createdAt: now,
                          expiresAt: now + configuration.authorizationLifetime, scenario: scenario)
        if captured && order.orderAmount > 0 {
            // KP auto_capture / HPP CAPTURE_ORDER: fully captured at once (§5 last bullet, §2.5).
            addCapture(order, amount: order.orderAmount, request: nil, at: now)
        }
        orders[orderID] = order
        retained.created(namespace, orderID)
        sweep.noteExpiry(order.expiresAt + configuration.retentionAfterExpiry)
        sweepExpiredOccasionally(namespace)
    }

    private func addCapture(_ order: Order, amount: Int, request: KlarnaCaptureRequest?, at now: Date) {
        let capture = KlarnaCapture(
            captureId: ids.uuid(), klarnaReference: "\(order.klarnaReference)-\(order.captures.count + 1)",
            capturedAmount: amount, capturedAt: now, description: request?.description, reference: request?.reference,
            orderLines: request?.orderLines ?? [], refundedAmount: 0,
            billingAddress: order.placed.billingAddress, shippingAddress: order.placed.shippingAddress,
            shippingInfo: request?.shippingInfo ?? [])
        order.captures.append(capture)
        order.capturedAmount += amount
    }

    // MARK: Reads

    func order(_ namespace: Namespace, _ orderID: String) throws(KlarnaError) -> Order {
        guard let order = orders[orderID] else { throw .noSuchOrder(orderID) }
        return order
    }

    func readOrder(_ namespace: Namespace, _ orderID: String) throws(KlarnaError) -> KlarnaOrderManagementOrder {
        try order(namespace, orderID).read(at: registry.now(namespace))
    }

    func captures(_ namespace: Namespace, _ orderID: String) throws(KlarnaError) -> [KlarnaCapture] {
        try order(namespace, orderID).captures
    }

    func capture(_ namespace: Namespace, _ orderID: String, captureID: String) throws(KlarnaError) -> KlarnaCapture {
        guard let capture = try order(namespace, orderID).captures.first(where: { $0.captureId == captureID }) else {
            throw .noSuchCapture(captureID, orderID: orderID)
        }
        return capture
    }

    func refund(_ namespace: Namespace, _ orderID: String, refundID: String) throws(KlarnaError) -> KlarnaRefund {
        guard let refund = try order(namespace, orderID).refunds.first(where: { $0.refundId == refundID }) else {
            throw .noSuchRefund(refundID, orderID: orderID)
        }
        return refund
    }

    func scenarioOf(_ namespace: Namespace, orderID: String) -> String? { orders[orderID]?.scenario }

    // MARK: Writes (§5)

    /// Runs one write on an existing order, once per idempotency key: "Input values of the operation are
    /// disregarded when evaluating the idempotency of the operation, only the key matters" (§5). A repeated key
    /// gets the first answer again (its result, or its error with the same correlation id, inferred) and changes
    /// nothing. The check, the change and the keeping happen under one lock, so racing retries make one change.
    func write(_ namespace: Namespace, orderID: String, _ operation: OrderManagementWrite, idempotencyKey: String?,
               unknownOrder: (String) -> KlarnaError = KlarnaError.noSuchOrder,
               _ change: (Order, Date) throws(KlarnaError) -> OrderManagementWriteResult)
        throws(KlarnaError) -> OrderManagementWriteResult {
        guard let order = orders[orderID] else { throw unknownOrder(orderID) }
        guard let idempotencyKey else { return try change(order, registry.now(namespace)) }
        if let first = order.answers.first(where: { $0.operation == operation && $0.key == idempotencyKey }) {
            return try first.replay()
        }
        let answer: Result<OrderManagementWriteResult, KlarnaError>
        do {
            answer = .success(try change(order, registry.now(namespace)))
        } catch {
            // Kept with the correlation id it answers with now, so that a replay is the same bytes.
            var kept = error
            kept.correlationID = kept.correlationID ?? ids.errorID()
            answer = .failure(kept)
        }
        let kept = IdempotentAnswer(operation: operation, key: idempotencyKey, kept: answer, origins: origins)
        order.answers.append(kept)
        return try kept.replay()
    }

    /// Capture X: 0 < X ≤ remaining, before `expires_at`, not cancelled (§5, §3.2).
    func capture(_ order: Order, _ body: Result<KlarnaCaptureRequest, KlarnaError>, outcome: ScenarioOutcome, now: Date,
                 origin: String) throws(KlarnaError) -> OrderManagementWriteResult {
        let capture = try body.get()
        if outcome.klarna == .refused { throw .captureNotAllowed }
        // A 0 capture is allowed by CaptureObject but `Capture.captured_amount` has minimum 1 (OM-OAS):
        // refused, so that no stored capture breaks the schema (inferred).
        guard capture.capturedAmount > 0, !order.cancelled, !order.isExpired(at: now),
              capture.capturedAmount <= order.remainingAuthorizedAmount(at: now)
        else { throw .captureNotAllowed }
        addCapture(order, amount: capture.capturedAmount, request: capture, at: now)
        return .created(OrderManagementCreated(kind: .capture, id: order.captures[order.captures.count - 1].captureId, origin: origin))
    }

    /// Refund Y ≤ captured − refunded (§5; the upper bound inferred). The status does not change (there is no
    /// REFUNDED status); each capture's `refunded_amount` takes its share, oldest first (inferred).
    func refund(_ order: Order, _ body: Result<KlarnaRefundRequest, KlarnaError>, outcome: ScenarioOutcome, now: Date,
                origin: String) throws(KlarnaError) -> OrderManagementWriteResult {
        let refund = try body.get()
        if outcome.klarna == .refused { throw .refundNotAllowed }
        guard order.capturedAmount > 0 else { throw .refundWithoutCaptures }
        guard refund.refundedAmount > 0 else { throw .refundNotAllowed }
        guard refund.refundedAmount <= order.capturedAmount - order.refundedAmount else { throw .refundExceedsCaptured }
        var left = refund.refundedAmount
        for index in order.captures.indices where left > 0 {
            let share = min(left, order.captures[index].capturedAmount - order.captures[index].refundedAmount)
            order.captures[index].refundedAmount += share
            left -= share
        }
        let id = ids.uuid()
        order.refunds.append(KlarnaRefund(refundId: id, refundedAmount: refund.refundedAmount, refundedAt: now,
                                          description: refund.description, reference: refund.reference,
                                          orderLines: refund.orderLines ?? []))
        order.refundedAmount += refund.refundedAmount
        return .created(OrderManagementCreated(kind: .refund, id: id, origin: origin))
    }

    /// Cancel: only an AUTHORIZED order without captures (§3.2); after it nothing can change.
    func cancel(_ order: Order, outcome: ScenarioOutcome, now: Date) throws(KlarnaError) -> OrderManagementWriteResult {
        if outcome.klarna == .refused { throw .cancelRefused }
        guard order.capturedAmount == 0 else { throw .cancelWithCaptures }
        let status = order.status(at: now)
        guard status == "AUTHORIZED" else { throw .cancelNotAllowed(status) }
        order.cancelled = true
        return .changed
    }

    /// Acknowledge: a KCO push concept; our orders get no pushes, so it is recorded and changes nothing
    /// visible. Repeating it is fine (inferred).
    func acknowledge(_ order: Order, outcome: ScenarioOutcome) throws(KlarnaError) -> OrderManagementWriteResult {
        if outcome.klarna == .refused { throw .updateNotAllowed }
        order.acknowledged = true
        return .changed
    }

    /// Release: only PART_CAPTURED ("Can not release when order is cancelled or has no captures", OM-OAS;
    /// "Order is fully captured…", Klarna's docs). The order then reads CAPTURED with nothing remaining.
    func release(_ order: Order, outcome: ScenarioOutcome, now: Date) throws(KlarnaError) -> OrderManagementWriteResult {
        if outcome.klarna == .refused { throw .releaseNotAllowed("Order is not allowed to be released.") }
        switch order.status(at: now) {
        case "PART_CAPTURED" where order.remainingAuthorizedAmount(at: now) > 0: break
        case "CANCELLED": throw .releaseNotAllowed("Order is cancelled.")
        case "AUTHORIZED", "EXPIRED": throw .releaseNotAllowed("Order has no captures.")
        case "PART_CAPTURED": throw .releaseNotAllowed("Order is expired.")
        default: throw .releaseNotAllowed("Order is fully captured.")
        }
        order.released = true
        return .changed
    }

    /// Extend: `expires_at` becomes the start of today (UTC) plus the authorization lifetime, never earlier
    /// than it was (Klarna's extension docs: "adds your account's configured expiration period to the date
    /// you initiate the extension"; the rounding to the day is inferred). Refused when expired, cancelled or
    /// more than 180 days after the purchase.
    func extend(_ order: Order, outcome: ScenarioOutcome, now: Date) throws(KlarnaError) -> OrderManagementWriteResult {
        if outcome.klarna == .refused { throw .extendNotAllowed("Order is not allowed to be extended.") }
        if order.cancelled { throw .extendNotAllowed("Order is cancelled.") }
        if order.isExpired(at: now) { throw .extendNotAllowed("Order is expired.") }
        guard now.timeIntervalSince(order.createdAt) <= configuration.maximumAuthorizationAge else {
            throw .extendNotAllowed("Order was placed more than 180 days ago.")
        }
        let startOfDay = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        order.expiresAt = max(order.expiresAt, startOfDay + configuration.authorizationLifetime)
        return .changed
    }

    // MARK: Updates (§5; Klarna's update-order-amount, update-customer-address and capture docs)

    /// PATCH …/authorization: a new `order_amount` and order lines. Refused when the order is fully captured,
    /// cancelled or expired, below the captured amount, or an increase beyond what may be granted.
    func updateAuthorization(_ order: Order, _ update: KlarnaUpdateAuthorizationRequest, outcome: ScenarioOutcome,
                             now: Date) throws(KlarnaError) {
        if outcome.klarna == .refused { throw .updateAuthorizationNotAllowed("Update of the order amount was refused.") }
        let status = order.status(at: now)
        if status == "CANCELLED" { throw .updateAuthorizationNotAllowed("Order is cancelled.") }
        if status == "CAPTURED" { throw .updateAuthorizationNotAllowed("Order is fully captured.") }
        if order.isExpired(at: now) { throw .updateAuthorizationNotAllowed("Order is expired.") }
        guard update.orderAmount >= order.capturedAmount else {
            throw .updateAuthorizationNotAllowed(
                "Resulting authorization amount \(update.orderAmount) cannot be less than the captured amount \(order.capturedAmount) for order.")
        }
        if update.orderAmount > order.orderAmount,
           update.orderAmount > configuration.grantableOrderAmount(original: order.originalOrderAmount) {
            throw .updateAuthorizationNotAllowed("Increase of the order amount to \(update.orderAmount) was not granted.")
        }
        order.orderAmount = update.orderAmount
        order.placed.orderLines = update.orderLines
    }

    /// PATCH …/merchant-references: present members overwrite (OM-OAS); refused on a cancelled order.
    func updateMerchantReferences(_ order: Order, _ update: KlarnaUpdateMerchantReferencesRequest, outcome: ScenarioOutcome) throws(KlarnaError) {
        if outcome.klarna == .refused { throw .updateRefused }
        if order.cancelled { throw .updateCancelledOrder }
        if let reference = update.merchantReference1 { order.placed.merchantReference1 = reference }
        if let reference = update.merchantReference2 { order.placed.merchantReference2 = reference }
    }

    /// PATCH …/customer-details: the given addresses' members replace the order's (captures keep the addresses
    /// they were made with; inferred). Refused on a cancelled order (the merchant-references text, inferred).
    func updateCustomerDetails(_ order: Order, _ update: KlarnaUpdateCustomerDetailsRequest, outcome: ScenarioOutcome) throws(KlarnaError) {
        if outcome.klarna == .refused { throw .updateRefused }
        if order.cancelled { throw .updateCancelledOrder }
        if let billing = update.billingAddress { order.placed.billingAddress = order.placed.billingAddress?.merging(billing) ?? billing }
        if let shipping = update.shippingAddress { order.placed.shippingAddress = order.placed.shippingAddress?.merging(shipping) ?? shipping }
    }

    /// The index of a capture for the capture updates: 403 "Order has no captures." when there is none (OM-OAS),
    /// else 404 NO_SUCH_CAPTURE.
    private func captureIndex(_ order: Order, _ captureID: String, unknown: KlarnaError) throws(KlarnaError) -> Int {
        if order.captures.isEmpty { throw .orderHasNoCaptures }
        guard let index = order.captures.firstIndex(where: { $0.captureId == captureID }) else { throw unknown }
        return index
    }

    /// POST …/captures/{id}/shipping-info: appended to the capture's `shipping_info` (at most 500 in all, the
    /// CaptureObject limit: 422 beyond, inferred).
    func addShippingInfo(_ order: Order, captureID: String, _ update: KlarnaUpdateShippingInfoRequest,
                         outcome: ScenarioOutcome) throws(KlarnaError) {
        let index = try captureIndex(order, captureID, unknown: .noSuchCaptureForShippingInfo(captureID))
        if outcome.klarna == .refused { throw .updateRefused }
        guard order.captures[index].shippingInfo.count + update.shippingInfo.count <= 500 else {
            throw OrderManagementValidation.sizeError("shipping_info", maximum: 500)
        }
        order.captures[index].shippingInfo += update.shippingInfo
    }

    /// POST …/shipping-info (the order's): appended to the order's `shipping_info`; OM-OAS documents only 404 for it,
    /// so a cancelled order takes it too (inferred). At most 500 in all (422 beyond, inferred).
    func addOrderShippingInfo(_ order: Order, _ update: KlarnaUpdateShippingInfoRequest, outcome: ScenarioOutcome) throws(KlarnaError) {
        if outcome.klarna == .refused { throw .updateRefused }
        guard order.shippingInfo.count + update.shippingInfo.count <= 500 else {
            throw OrderManagementValidation.sizeError("shipping_info", maximum: 500)
        }
        order.shippingInfo += update.shippingInfo
    }

    /// PATCH …/captures/{id}/customer-details: the billing address of the capture ("Shipping address can not be
    /// updated", klarna/kco_rest_php: docs/examples/OrderManagementAPI/Captures/update_customer_details.php; a
    /// shipping address is refused, inferred).
    func updateCaptureCustomerDetails(_ order: Order, captureID: String, _ update: KlarnaUpdateCustomerDetailsRequest,
                                      outcome: ScenarioOutcome) throws(KlarnaError) {
        let index = try captureIndex(order, captureID, unknown: .noSuchCapture(captureID, orderID: order.id))
        if outcome.klarna == .refused { throw .updateRefused }
        if update.shippingAddress != nil { throw .captureShippingAddressNotUpdatable }
        if let billing = update.billingAddress {
            order.captures[index].billingAddress = order.captures[index].billingAddress?.merging(billing) ?? billing
        }
    }

    /// POST …/captures/{id}/trigger-send-out: Klarna sends the customer the capture's communication again; here
    /// it is counted (control API state).
    func triggerSendOut(_ order: Order, captureID: String, outcome: ScenarioOutcome) throws(KlarnaError) {
        _ = try captureIndex(order, captureID, unknown: .noSuchCapture(captureID, orderID: order.id))
        if outcome.klarna == .refused { throw .updateRefused }
        order.sendOuts[captureID, default: 0] += 1
    }

    /// GET …/captures/{id}/extend-due-date-options: the configured options, none once the due date was extended
    /// (inferred: one extension per capture), in the order's currency in lower case (OM-OAS example "usd").
    func dueDateOptions(_ namespace: Namespace, _ orderID: String, captureID: String) throws(KlarnaError) -> KlarnaExtendDueDateOptions {
        let order = try order(namespace, orderID)
        guard order.captures.contains(where: { $0.captureId == captureID }) else { throw .noSuchCapture(captureID, orderID: orderID) }
        return KlarnaExtendDueDateOptions(currency: (order.placed.purchaseCurrency ?? "").lowercased(),
                                          options: order.dueDateExtensions[captureID] == nil ? configuration.dueDateExtensionOptions : [])
    }

    /// PATCH …/captures/{id}/extend-due-date: `number_of_days` must be one of the options offered.
    func extendDueDate(_ order: Order, captureID: String, _ request: KlarnaExtendDueDateRequest,
                       outcome: ScenarioOutcome) throws(KlarnaError) {
        _ = try captureIndex(order, captureID, unknown: .noSuchCapture(captureID, orderID: order.id))
        if outcome.klarna == .refused { throw .extendDueDateNotAllowed("The due date cannot be extended for this capture.") }
        if order.dueDateExtensions[captureID] != nil { throw .extendDueDateNotAllowed("The due date was already extended.") }
        guard configuration.dueDateExtensionOptions.contains(where: { $0.numberOfDays == request.numberOfDays }) else {
            throw .extendDueDateNotAllowed("\(request.numberOfDays) days is not an available option.")
        }
        order.dueDateExtensions[captureID] = request.numberOfDays
    }

    // MARK: Housekeeping

    /// Orders `retentionAfterExpiry` past their `expires_at` are dropped so memory stays bounded. Runs for the
    /// namespace that places orders, every 1024 placements there or when its clock has moved a minute past
    /// the last sweep (as KP's sweep).
    private mutating func sweepExpiredOccasionally(_ namespace: Namespace) {
        let now = registry.now(namespace)
        guard sweep.creationIsDue(now: now) else { return }
        let before = orders
        let retention = configuration.retentionAfterExpiry
        orders = orders.filter { _, order in order.expiresAt + retention > now }
        sweep.earliestExpiry = orders.values.lazy.map { $0.expiresAt + retention }.min() ?? .distantFuture
        let dropped = before.count - orders.count
        if dropped > 0 { retained.removed(namespace, before.keys.filter { orders[$0] == nil }) }
        if dropped >= 4096 { FreedMemory.returnToSystem() }
    }

    /// Its orders as counted toward the server's bound after a restore.
    func heldObjects(_ namespace: Namespace) -> [HeldObject] {
        orders.values.map { HeldObject(created: $0.createdAt, kind: retained, namespace: namespace, id: $0.id) }
    }

    func snapshot(_ namespace: Namespace) -> JSONText {
        let now = registry.now(namespace)
        let orders = Array(self.orders.values)
        return .object([
            ("orders", .array(orders.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map { order in
                .object([("order_id", .string(order.id)), ("status", .string(order.status(at: now))),
                         ("fraud_status", .string(order.fraudStatus)), ("klarna_reference", .string(order.klarnaReference)),
                         ("scenario", order.scenario.map(JSONText.string) ?? .null),
                         ("order_amount", .int(order.orderAmount)), ("captured_amount", .int(order.capturedAmount)),
                         ("refunded_amount", .int(order.refundedAmount)),
                         ("remaining_authorized_amount", .int(order.remainingAuthorizedAmount(at: now))),
                         ("acknowledged", .bool(order.acknowledged)),
                         ("created_at", .string(KlarnaJSON.timestamp(order.createdAt))),
                         ("expires_at", .string(KlarnaJSON.timestamp(order.expiresAt))),
                         ("capture_ids", .array(order.captures.map { .string($0.captureId) })),
                         ("refund_ids", .array(order.refunds.map { .string($0.refundId) })),
                         ("send_outs", .object(order.sendOuts.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                         ("due_date_extensions",
                          .object(order.dueDateExtensions.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }))])
            })),
        ])
    }
}

/// Klarna Order Management state, per namespace: the orders that KP create-order and HPP sessions place,
/// with their captures and refunds (klarna-api.md §5). Every operation (check, then change) runs under its
/// namespace's lock, so two captures racing on one order never capture more than was authorized. Sharded
/// like ``KlarnaPaymentsStore``.
package final class KlarnaOrderManagementStore: NamespacedState, Sendable {
    package let stateName = "klarna_ordermanagement"
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: KlarnaOrderManagementConfiguration
    private let ledgers: NamespacedStore<OrderManagementLedger>
    private let retained: RetainedObjectKind

    /// `credentials`: Klarna's API credentials, the same as for Klarna Payments. `retention`: the server's bound on
    /// objects (by default one of this store alone, without a bound).
    package init(registry: NamespaceRegistry, ids: any IDGenerator,
                configuration: KlarnaOrderManagementConfiguration = KlarnaOrderManagementConfiguration(),
                credentials: KlarnaCredentialPolicy = .anyNonEmpty, retention: ObjectRetention = ObjectRetention()) {
        self.registry = registry
        self.ids = ids
        var configuration = configuration
        configuration.credentials = credentials
        self.configuration = configuration
        let retained = retention.kind(provider: "klarna", name: "order_management_order")
        self.retained = retained
        let ledgers = NamespacedStore { [configuration] in
            OrderManagementLedger(registry: registry, ids: ids, configuration: configuration, retained: retained)
        }
        self.ledgers = ledgers
        retained.onEviction(holds: { namespace, id in ledgers.withState(namespace) { $0.orders[id] != nil } },
                            evict: { namespace, id in ledgers.withState(namespace) { $0.orders.removeValue(forKey: id) != nil } })
    }

    /// Every order held, for counting toward the server's bound after a restore (``ObjectRetention/retain(_:)``).
    package func heldObjects() -> [HeldObject] {
        ledgers.flatMap { namespace, ledger in ledger.heldObjects(namespace) }
    }

    /// An order placed through KP create-order or an HPP session: AUTHORIZED, or CAPTURED in full when
    /// `captured` (KP `auto_capture`, HPP `CAPTURE_ORDER`). `scenario` is the KP session's sticky scenario.
    func place(_ namespace: Namespace, orderID: String, request: KlarnaCreateOrderRequest, fraudStatus: String,
               scenario: String?, captured: Bool) {
        place(namespace, orderID: orderID, request: Shared(wrappedValue: request), fraudStatus: fraudStatus, scenario: scenario,
              captured: captured)
    }

    /// ``place(_:orderID:request:fraudStatus:scenario:captured:)`` with the request the Klarna Payments order keeps (one copy for both).
    func place(_ namespace: Namespace, orderID: String, request: Shared<KlarnaCreateOrderRequest>, fraudStatus: String,
               scenario: String?, captured: Bool) {
        ledgers.withState(namespace) {
            $0.place(namespace, orderID: orderID, request: request, fraudStatus: fraudStatus, scenario: scenario, captured: captured)
        }
        retained.retention.evictOverflow()
    }

    func readOrder(_ namespace: Namespace, _ orderID: String) throws(KlarnaError) -> KlarnaOrderManagementOrder {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in try ledger.readOrder(namespace, orderID) }
    }

    func captures(_ namespace: Namespace, _ orderID: String) throws(KlarnaError) -> [KlarnaCapture] {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in try ledger.captures(namespace, orderID) }
    }

    func capture(_ namespace: Namespace, _ orderID: String, captureID: String) throws(KlarnaError) -> KlarnaCapture {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in try ledger.capture(namespace, orderID, captureID: captureID) }
    }

    func refund(_ namespace: Namespace, _ orderID: String, refundID: String) throws(KlarnaError) -> KlarnaRefund {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in try ledger.refund(namespace, orderID, refundID: refundID) }
    }

    func scenarioOf(_ namespace: Namespace, orderID: String) -> String? {
        ledgers.withState(namespace) { $0.scenarioOf(namespace, orderID: orderID) }
    }

    /// POST …/captures: the new capture, made at `origin` (kept for a replay's `Location`).
    func capture(_ namespace: Namespace, orderID: String, _ body: Result<KlarnaCaptureRequest, KlarnaError>, idempotencyKey: String?,
                 origin: String, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in
            try ledger.write(namespace, orderID: orderID, .capture, idempotencyKey: idempotencyKey) { (order, now) throws(KlarnaError) in
                try ledger.capture(order, body, outcome: outcome, now: now, origin: origin)
            }
        }
    }

    /// POST …/refunds: the new refund, made at `origin`.
    func refund(_ namespace: Namespace, orderID: String, _ body: Result<KlarnaRefundRequest, KlarnaError>, idempotencyKey: String?,
                origin: String, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in
            try ledger.write(namespace, orderID: orderID, .refund, idempotencyKey: idempotencyKey) { (order, now) throws(KlarnaError) in
                try ledger.refund(order, body, outcome: outcome, now: now, origin: origin)
            }
        }
    }

    /// POST …/cancel.
    func cancel(_ namespace: Namespace, orderID: String, idempotencyKey: String?,
                outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in
            try ledger.write(namespace, orderID: orderID, .cancel, idempotencyKey: idempotencyKey) { (order, now) throws(KlarnaError) in
                try ledger.cancel(order, outcome: outcome, now: now)
            }
        }
    }

    /// POST …/acknowledge: an unknown order is its own 404.
    func acknowledge(_ namespace: Namespace, orderID: String, idempotencyKey: String?,
                     outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in
            try ledger.write(namespace, orderID: orderID, .acknowledge, idempotencyKey: idempotencyKey,
                             unknownOrder: KlarnaError.noSuchOrderToAcknowledge) { (order, _) throws(KlarnaError) in
                try ledger.acknowledge(order, outcome: outcome)
            }
        }
    }

    /// POST …/release-remaining-authorization.
    func release(_ namespace: Namespace, orderID: String, idempotencyKey: String?,
                 outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in
            try ledger.write(namespace, orderID: orderID, .release, idempotencyKey: idempotencyKey) { (order, now) throws(KlarnaError) in
                try ledger.release(order, outcome: outcome, now: now)
            }
        }
    }

    /// POST …/extend-authorization-time.
    func extend(_ namespace: Namespace, orderID: String, idempotencyKey: String?,
                outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in
            try ledger.write(namespace, orderID: orderID, .extend, idempotencyKey: idempotencyKey) { (order, now) throws(KlarnaError) in
                try ledger.extend(order, outcome: outcome, now: now)
            }
        }
    }

    // MARK: Updates (``OrderManagementWriteResult/changed``; the body is decoded after the order is found: an unknown order is a 404 first)

    /// PATCH …/authorization.
    func updateAuthorization(_ namespace: Namespace, orderID: String, _ update: Result<KlarnaUpdateAuthorizationRequest, KlarnaError>,
                             idempotencyKey: String?, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .updateAuthorization, idempotencyKey: idempotencyKey) { (ledger, order, now) throws(KlarnaError) in
            try ledger.updateAuthorization(order, update.get(), outcome: outcome, now: now)
        }
    }

    /// PATCH …/merchant-references.
    func updateMerchantReferences(_ namespace: Namespace, orderID: String, _ update: Result<KlarnaUpdateMerchantReferencesRequest, KlarnaError>,
                                  idempotencyKey: String?, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .merchantReferences, idempotencyKey: idempotencyKey) { (ledger, order, _) throws(KlarnaError) in
            try ledger.updateMerchantReferences(order, update.get(), outcome: outcome)
        }
    }

    /// PATCH …/customer-details.
    func updateCustomerDetails(_ namespace: Namespace, orderID: String, _ update: Result<KlarnaUpdateCustomerDetailsRequest, KlarnaError>,
                               idempotencyKey: String?, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .customerDetails, idempotencyKey: idempotencyKey) { (ledger, order, _) throws(KlarnaError) in
            try ledger.updateCustomerDetails(order, update.get(), outcome: outcome)
        }
    }

    /// POST …/shipping-info (the order's).
    func addOrderShippingInfo(_ namespace: Namespace, orderID: String, _ update: Result<KlarnaUpdateShippingInfoRequest, KlarnaError>,
                              idempotencyKey: String?, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .orderShippingInfo, idempotencyKey: idempotencyKey) { (ledger, order, _) throws(KlarnaError) in
            try ledger.addOrderShippingInfo(order, update.get(), outcome: outcome)
        }
    }

    /// POST …/captures/{id}/shipping-info.
    func addShippingInfo(_ namespace: Namespace, orderID: String, captureID: String, _ update: Result<KlarnaUpdateShippingInfoRequest, KlarnaError>,
                         idempotencyKey: String?, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .captureShippingInfo, idempotencyKey: idempotencyKey) { (ledger, order, _) throws(KlarnaError) in
            try ledger.addShippingInfo(order, captureID: captureID, update.get(), outcome: outcome)
        }
    }

    /// PATCH …/captures/{id}/customer-details.
    func updateCaptureCustomerDetails(_ namespace: Namespace, orderID: String, captureID: String,
                                      _ update: Result<KlarnaUpdateCustomerDetailsRequest, KlarnaError>, idempotencyKey: String?,
                                      outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .captureCustomerDetails, idempotencyKey: idempotencyKey) { (ledger, order, _) throws(KlarnaError) in
            try ledger.updateCaptureCustomerDetails(order, captureID: captureID, update.get(), outcome: outcome)
        }
    }

    /// POST …/captures/{id}/trigger-send-out (no body).
    func triggerSendOut(_ namespace: Namespace, orderID: String, captureID: String, idempotencyKey: String?,
                        outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .triggerSendOut, idempotencyKey: idempotencyKey) { (ledger, order, _) throws(KlarnaError) in
            try ledger.triggerSendOut(order, captureID: captureID, outcome: outcome)
        }
    }

    /// PATCH …/captures/{id}/extend-due-date.
    func extendDueDate(_ namespace: Namespace, orderID: String, captureID: String, _ request: Result<KlarnaExtendDueDateRequest, KlarnaError>,
                       idempotencyKey: String?, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> OrderManagementWriteResult {
        try change(namespace, orderID: orderID, .extendDueDate, idempotencyKey: idempotencyKey) { (ledger, order, _) throws(KlarnaError) in
            try ledger.extendDueDate(order, captureID: captureID, request.get(), outcome: outcome)
        }
    }

    /// One update as a write, once per idempotency key (``OrderManagementLedger/write(_:orderID:_:idempotencyKey:unknownOrder:_:)``),
    /// under the namespace's lock.
    private func change(_ namespace: Namespace, orderID: String, _ operation: OrderManagementWrite, idempotencyKey: String?,
                        _ update: (OrderManagementLedger, OrderManagementLedger.Order, Date) throws(KlarnaError) -> Void)
        throws(KlarnaError) -> OrderManagementWriteResult {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in
            try ledger.write(namespace, orderID: orderID, operation, idempotencyKey: idempotencyKey) { (order, now) throws(KlarnaError) in
                try update(ledger, order, now)
                return .changed
            }
        }
    }

    func dueDateOptions(_ namespace: Namespace, _ orderID: String, captureID: String) throws(KlarnaError) -> KlarnaExtendDueDateOptions {
        try ledgers.withState(namespace) { (ledger) throws(KlarnaError) in try ledger.dueDateOptions(namespace, orderID, captureID: captureID) }
    }

    package func reset(_ namespace: Namespace) {
        // Under the namespace's lock, so an eviction meanwhile finds the objects either held and counted or gone.
        _ = ledgers.reset(namespace) { _ in retained.removedAll(namespace) }
    }

    package func snapshot(_ namespace: Namespace) -> JSONText { ledgers.withState(namespace) { $0.snapshot(namespace) } }

    package func objects(_ namespace: Namespace) -> [SandboxObjectSummary] { ledgers.withState(namespace) { $0.objectSummaries(namespace) } }

    package var namespacesWithState: [Namespace] { ledgers.namespaces }
}

// MARK: The state file

// Synthesized, so a field added to an order is kept too.
extension OrderManagementLedger.Order: Codable {}

/// Copied under the store's lock for the state file to encode outside it (`init(copying:)`).
extension OrderManagementLedger.Order: SavedStateCopyable {
    func savedCopy() -> OrderManagementLedger.Order { OrderManagementLedger.Order(copying: self) }
}

/// `{"operation", "key"}` and the answer: `"created": {"id_header", "id", "origin"}` for a capture or refund (as files
/// have kept it since 0.1.0), `"changed": true` for a change, `"error": {"status", "error_code", "error_messages",
/// "correlation_id"}` for an error. Files of earlier versions kept a change or an error (and, before 0.1.0, a 201)
/// as `"response": {…}`, the HTTP response: it loads as the change or the error when this version answers them
/// with the same bytes, else as that response (``OrderManagementWriteResult/earlier(_:)``).
extension IdempotentAnswer: Codable {
    private enum CodingKeys: String, CodingKey { case operation, key, created, changed, error, response }
    private struct Created: Codable {
        var idHeader: String
        var id: String
        var origin: String
        enum CodingKeys: String, CodingKey { case idHeader = "id_header", id, origin }
    }
    private struct KeptError: Codable {
        var status: Int
        var code: String
        var messages: [String]
        var correlationID: String
        enum CodingKeys: String, CodingKey {
            case status, code = "error_code", messages = "error_messages", correlationID = "correlation_id"
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        operation = try container.decode(OrderManagementWrite.self, forKey: .operation)
        key = try container.decode(String.self, forKey: .key)
        if let created = try container.decodeIfPresent(Created.self, forKey: .created) {
            let kind: OrderManagementCreated.Kind = created.idHeader == "Refund-Id" ? .refund : .capture
            kept = .success(.created(OrderManagementCreated(kind: kind, id: created.id, origin: created.origin)))
        } else if try container.decodeIfPresent(Bool.self, forKey: .changed) == true {
            kept = .success(.changed)
        } else if let error = try container.decodeIfPresent(KeptError.self, forKey: .error) {
            kept = .failure(KlarnaError(HTTPStatus(code: error.status), code: error.code, messages: error.messages,
                                        correlationID: error.correlationID))
        } else {
            kept = Self.earlier(try container.decode(HTTPResponse.self, forKey: .response))
        }
    }

    /// A response an earlier version kept: the change or the error it answers, when they are answered with its bytes.
    private static func earlier(_ response: HTTPResponse) -> Result<OrderManagementWriteResult, KlarnaError> {
        if response.status == .noContent, response.headers.fields.isEmpty, response.body.isEmpty { return .success(.changed) }
        if let envelope = try? JSONDocument.parse(response.body), let code = envelope["error_code"]?.stringValue,
           let messages = envelope["error_messages"]?.elements?.compactMap(\.stringValue),
           let correlationID = envelope["correlation_id"]?.stringValue {
            let error = KlarnaError(response.status, code: code, messages: messages, correlationID: correlationID)
            let again = error.response(correlationID: correlationID)
            if again.status == response.status, again.headers == response.headers, again.body == response.body { return .failure(error) }
        }
        return .success(.earlier(response))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(operation, forKey: .operation)
        try container.encode(key, forKey: .key)
        switch kept {
        case .success(.created(let created)):
            try container.encode(Created(idHeader: created.kind.idHeader, id: created.id, origin: created.origin), forKey: .created)
        case .success(.changed):
            try container.encode(true, forKey: .changed)
        case .success(.earlier(let response)):
            try container.encode(response, forKey: .response)
        case .failure(let error):
            try container.encode(KeptError(status: error.status.code, code: error.code, messages: error.messages,
                                           correlationID: error.correlationID ?? ""), forKey: .error)
        }
    }
}

extension OrderManagementLedger: SavableNamespaceState {
    var savedObjectCount: Int { orders.count }

    static var savedCollections: [SavedCollection<Self>] { [.objects("orders", \.orders, writing: .copied, reading: .direct)] }

    struct SavedRest: Codable { var sweep: SweepSchedule }
    var savedRest: SavedRest { SavedRest(sweep: sweep) }
    mutating func restore(_ rest: SavedRest) { sweep = rest.sweep }
}

extension KlarnaOrderManagementStore: StreamedSavedSection {
    package func savedSection() throws -> SavedStoreSection? { try ledgers.savedSection() }
    package func savedSectionJobs(tally: SavedSectionTally) -> AnyIterator<SavedStateJob> { ledgers.savedSectionJobs(tally: tally) }
    package func restoreSavedSection(from reader: SavedStateReader) throws { try ledgers.restoreSection(from: reader) }
    package func discardRestored() { ledgers.discardRestored() }
    /// The restored objects count toward the server's bound once every store is restored (``heldObjects()``).
    package func restoreSection(from decoder: any Decoder) throws {
        try ledgers.restoreSection(from: decoder)
    }
}
