// SPDX-License-Identifier: MIT
import Foundation

/// Lifetimes and offers of the faked Klarna Payments API.
public struct KlarnaPaymentsConfiguration: Sendable {
    /// "A session stays valid for 48 hours after the last update of it" (klarna-api.md §2.2, §2.8).
    public var sessionLifetime: TimeInterval = 48 * 3600
    /// "A successful authorization guarantees that the order can be created within 60 minutes" (§2.4).
    public var authorizationLifetime: TimeInterval = 60 * 60
    /// Offered categories. Current docs samples show the single `klarna` category (§2.1); older setups
    /// show `pay_later` / `pay_over_time`, which can be configured here.
    package var paymentMethodCategories: [KlarnaPaymentMethodCategory] = [
        KlarnaPaymentMethodCategory(
            identifier: "klarna", name: "Pay with Klarna",
            assetUrls: KlarnaAssetURLs(
                descriptive: "https://x.klarnacdn.net/payment-method/assets/badges/generic/klarna.svg",
                standard: "https://x.klarnacdn.net/payment-method/assets/badges/generic/klarna.svg")),
    ]
    /// Which HTTP Basic credentials are accepted, by every Klarna API here (Payments, HPP, Order
    /// Management: one set of API credentials, as at Klarna). Default: any non-empty user and password.
    public var credentials: KlarnaCredentialPolicy = .anyNonEmpty

    public init() {}
}

public enum KlarnaCredentialPolicy: Sendable {
    /// Any user and password that are both non-empty (or a raw `klarna_test_api_…` key).
    case anyNonEmpty
    /// Only these user names, each with its password.
    case only([String: String])
}

/// What the SDK's `load()` / `authorize()` / `finalize()` callbacks receive (klarna-api.md §2.4), or the
/// error its `onErrorOccurred` gets: `{name, action, message, is_fatal}` (Klarna's mobile SDK "Flows and
/// error handling" page).
package struct KlarnaSDKResult: Equatable, Sendable {
    package var approved: Bool?
    package var showForm: Bool
    package var authorizationToken: String?
    package var finalizeRequired: Bool?
    package var error: KlarnaSDKError?

    var json: JSONText {
        var members: [(String, JSONText)] = []
        if let approved { members.append(("approved", .bool(approved))) }
        members.append(("show_form", .bool(showForm)))
        if let authorizationToken { members.append(("authorization_token", .string(authorizationToken))) }
        if let finalizeRequired { members.append(("finalize_required", .bool(finalizeRequired))) }
        if let error {
            members.append(("error", .object([("name", .string(error.name)), ("action", .string(error.action)),
                                              ("message", .string(error.message)), ("is_fatal", .bool(error.isFatal))])))
        }
        return .object(members)
    }

    /// ``json``'s bytes, written directly (the answer to every authorize); an error goes through ``json``.
    var jsonBytes: [UInt8] {
        guard error == nil else { return json.bytes }
        var out: [UInt8] = []
        out.reserveCapacity(128)
        func bool(_ value: Bool) { out.append(contentsOf: (value ? "true" : "false").utf8) }
        out.append(UInt8(ascii: "{"))
        if let approved {
            out.append(contentsOf: #""approved":"#.utf8)
            bool(approved)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""show_form":"#.utf8)
        bool(showForm)
        if let authorizationToken {
            out.append(contentsOf: #","authorization_token":"#.utf8)
            KlarnaJSONBytes.appendString(authorizationToken, to: &out)
        }
        if let finalizeRequired {
            out.append(contentsOf: #","finalize_required":"#.utf8)
            bool(finalizeRequired)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    static func failed(_ error: KlarnaSDKError, approved: Bool?) -> KlarnaSDKResult {
        KlarnaSDKResult(approved: approved, showForm: false, error: error)
    }
}

package struct KlarnaSDKError: Equatable, Sendable {
    package var name, action, message: String
    package var isFatal: Bool

    /// "Client token invalid, expired or tampered" (klarna-mobile-sdk.md §3): a new token and `initialize` fix it, so
    /// it is not fatal.
    static func invalidClientToken(action: String) -> KlarnaSDKError {
        KlarnaSDKError(name: "InvalidClientTokenError", action: action, message: "Error performing Klarna.Payments.\(method(of: action))()",
                       isFatal: false)
    }

    /// Klarna decided not to show the form: on `load` a category the session does not offer or a pre-screen decline,
    /// on `authorize` a rejected customer (klarna-mobile-sdk.md §3). Fatal for this purchase.
    static func showFormFalse(action: String) -> KlarnaSDKError {
        KlarnaSDKError(name: "ShowFormFalseError", action: action, message: "Error performing Klarna.Payments.\(method(of: action))()",
                       isFatal: true)
    }

    /// The JavaScript call behind an action, as Klarna's messages name it (`Initialize` is `init`).
    private static func method(of action: String) -> String {
        action == "Initialize" ? "init" : action.prefix(1).lowercased() + action.dropFirst()
    }
}

/// Which SDK call a stand-in request plays (klarna-mobile-sdk.md §1): its error `action` and its scenario operation.
package enum KlarnaSDKCall: String, CaseIterable, Sendable {
    case initialize, load, authorize, reauthorize, finalize

    /// The case's name capitalized (`Initialize`, …): written out, read on every SDK call.
    package var action: String {
        switch self {
        case .initialize: "Initialize"
        case .load: "Load"
        case .authorize: "Authorize"
        case .reauthorize: "Reauthorize"
        case .finalize: "Finalize"
        }
    }

    package var operation: ScenarioOperation {
        switch self {
        case .initialize: .klarnaPaymentsInitialize
        case .load: .klarnaPaymentsLoad
        case .authorize: .klarnaPaymentsAuthorize
        case .reauthorize: .klarnaPaymentsReauthorize
        case .finalize: .klarnaPaymentsFinalize
        }
    }
}

/// Klarna Payments' ledger of one namespace: sessions, authorization tokens, orders, customer tokens. A plain
/// value that ``KlarnaPaymentsStore`` keeps in a ``NamespacedStore``, which runs every operation under a lock.
struct PaymentsLedger: NamespaceStateValue {
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: KlarnaPaymentsConfiguration
    /// Where its creations and drops are counted against the server's bound (``ObjectRetention``).
    let retained: PaymentsRetainedKinds

    // Session and Authorization are classes so an operation changes them in place instead of copying
    // every field out of the dictionary and back. They never leave the store's lock: what goes out are value
    // copies (KlarnaSessionRead, snapshots). What they hold is kept once: a session's fields and the snapshot of
    // its authorization share one box, the order placed from it shares the snapshot's order lines and addresses
    // when they are the same, and the ids are the instances the generator made.
    final class Session {
        let id: String
        @Shared var fields: KlarnaSessionFields
        /// What the client token says besides the id, as the session was created (the token is made when read).
        let clientTokenClaims: ClientToken.Claims
        var createdAt: Date
        var expiresAt: Date
        var orderID: String?
        var authorizationTokens: [String] = []
        /// The scenario the session was created under; its tokens and orders follow it too.
        var scenario: String?
        /// authorize() answered finalize_required: finalize() completes it.
        var awaitingFinalize = false
        var status: String { orderID == nil ? "incomplete" : "complete" }
        var clientToken: String { ClientToken.make(sessionID: id, claims: clientTokenClaims) }

        init(id: String, fields: KlarnaSessionFields, createdAt: Date, expiresAt: Date, scenario: String?) {
            self.id = id
            self.fields = fields
            clientTokenClaims = ClientToken.Claims(fields)
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.scenario = scenario
        }

        /// Every stored property, for the state file's reader.
        init(id: String, fields: Shared<KlarnaSessionFields>, clientTokenClaims: ClientToken.Claims, createdAt: Date, expiresAt: Date,
             orderID: String?, authorizationTokens: [String], scenario: String?, awaitingFinalize: Bool) {
            self.id = id
            _fields = fields
            self.clientTokenClaims = clientTokenClaims
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.orderID = orderID
            self.authorizationTokens = authorizationTokens
            self.scenario = scenario
            self.awaitingFinalize = awaitingFinalize
        }

        /// Every stored property of `other`, for the state file (``SavedStateCopyable``).
        init(copying other: Session) {
            id = other.id
            _fields = other._fields
            clientTokenClaims = other.clientTokenClaims
            createdAt = other.createdAt
            expiresAt = other.expiresAt
            orderID = other.orderID
            authorizationTokens = other.authorizationTokens
            scenario = other.scenario
            awaitingFinalize = other.awaitingFinalize
        }
    }

    final class Authorization {
        let token: String
        let sessionID: String
        let authorizedAt: Date
        /// The session as the customer authorized it (with what the app passed to authorize()), for
        /// the create-order comparison (§2.9 rule 8).
        @Shared var snapshot: KlarnaSessionFields
        var cancelled = false
        /// Its order; the order keeps the request it was placed with (create_order's idempotency compares it).
        var orderID: String?

        init(token: String, sessionID: String, authorizedAt: Date, snapshot: Shared<KlarnaSessionFields>) {
            self.token = token
            self.sessionID = sessionID
            self.authorizedAt = authorizedAt
            _snapshot = snapshot
        }

        /// Every stored property of `other`, for the state file (``SavedStateCopyable``).
        init(copying other: Authorization) {
            token = other.token
            sessionID = other.sessionID
            authorizedAt = other.authorizedAt
            _snapshot = other._snapshot
            cancelled = other.cancelled
            orderID = other.orderID
        }
    }

    /// A dictionary value: small (the answer boxed), as a dictionary keeps up to twice as many slots as values.
    struct Order {
        @Shared var order: KlarnaOrder
        var sessionID: String
        var authorizationToken: String
        /// Shared with the order in Order Management.
        @Shared var request: KlarnaCreateOrderRequest
        var createdAt: Date
    }

    var sessions: [String: Session] = [:]
    var authorizations: [String: Authorization] = [:]
    var orders: [String: Order] = [:]
    /// Customer tokens (POST …/customer-token) by `token_id`. They do not expire (klarna-api.md §5b), so the
    /// sweep leaves them; a reset of the namespace drops them.
    var customerTokens: [String: CustomerTokenRecord] = [:]
    /// Sessions and tokens count for its expiry bound.
    var sweep = SweepSchedule()

    var isEmpty: Bool { sessions.isEmpty && authorizations.isEmpty && orders.isEmpty && customerTokens.isEmpty }


    // MARK: Sessions (§2.1–2.3)

    /// `fields` were validated by the caller (outside the store's lock).
    mutating func createSession(_ namespace: Namespace, _ fields: KlarnaSessionFields, scenario: String? = nil) -> KlarnaMerchantSession {
        let now = registry.now(namespace)
        let id = ids.uuid()
        let session = Session(id: id, fields: fields, createdAt: now, expiresAt: now + configuration.sessionLifetime, scenario: scenario)
        sessions[id] = session
        retained.sessions.created(namespace, id)
        sweep.noteExpiry(session.expiresAt)
        sweepExpiredOccasionally(namespace)
        return KlarnaMerchantSession(sessionId: id, clientToken: session.clientToken,
                                     paymentMethodCategories: configuration.paymentMethodCategories)
    }

    func readSession(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> KlarnaSessionRead {
        let session = try liveSession(namespace, id)
        return KlarnaSessionRead(fields: session.fields, clientToken: session.clientToken, expiresAt: session.expiresAt,
                                 paymentMethodCategories: configuration.paymentMethodCategories, status: session.status,
                                 authorizationToken: session.authorizationTokens.last)
    }

    /// A partial update; it validates the merged session and extends the lifetime (§2.3).
    mutating func updateSession(_ namespace: Namespace, _ id: String, _ update: KlarnaSessionFields) throws(KlarnaError) {
        let session = try liveSession(namespace, id)
        guard session.orderID == nil else { throw .sessionCompleted }
        var merged = session.fields
        merged.merge(update)
        try PaymentsValidation.validateSession(merged)
        session.fields = merged
        session.expiresAt = registry.now(namespace) + configuration.sessionLifetime
    }

    /// DELETE session: documented for in-store payments only (§2); here it removes the session and its tokens.
    mutating func cancelSession(_ namespace: Namespace, _ id: String) throws(KlarnaError) {
        let session = try liveSession(namespace, id)
        guard session.orderID == nil else { throw .sessionCompleted }
        sessions[id] = nil
        // Only the tokens still held: an evicted one has left the count already.
        let tokens = session.authorizationTokens.filter { authorizations.removeValue(forKey: $0) != nil }
        retained.sessions.removed(namespace, [id])
        retained.authorizations.removed(namespace, tokens)
    }

    /// A session within its lifetime. An expired one stays stored (a token issued before expiry can still
    /// place its order within its 60 minutes, §2.4) until the sweep drops it.
    func liveSession(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> Session {
        guard let session = sessions[id], registry.now(namespace) < session.expiresAt else {
            throw .invalidSessionID
        }
        return session
    }

    // MARK: The SDK's part (§2.4)

    /// What `Klarna.Payments.authorize()` does in the customer's device, approving: mints a token valid
    /// for 60 minutes and keeps a snapshot of what was authorized.
    /// What the scenarios see when the SDK works on a session: the session as the customer would authorize
    /// it (the stored fields with what the app passes in `jsonData`); nil for an unknown or expired session.
    func customerView(_ namespace: Namespace, sessionID: String, data: KlarnaSessionFields?) -> (fields: KlarnaSessionFields, scenario: String?)? {
        guard let session = try? liveSession(namespace, sessionID) else { return nil }
        var fields = session.fields
        if let data { fields.merge(data) }
        return (fields, session.scenario)
    }

    /// The id of the live session that `key` names in this namespace: its session id, or its client token as issued
    /// (a token whose claims or signature were changed names none). nil: unknown, expired or another namespace's.
    func sessionID(forKey key: String, _ namespace: Namespace) -> String? {
        if let id = ClientToken.sessionID(of: key) {
            guard let session = try? liveSession(namespace, id), session.clientToken == key else { return nil }
            return id
        }
        return (try? liveSession(namespace, key))?.id
    }

    /// ``sessionID(forKey:_:)`` with the session's fields and scenario, from one look-up of the session.
    func sdkSession(forKey key: String, _ namespace: Namespace) -> (id: String, fields: KlarnaSessionFields, scenario: String?)? {
        let token = ClientToken.sessionID(of: key)
        guard let session = try? liveSession(namespace, token ?? key), token == nil || session.clientToken == key else { return nil }
        return (session.id, session.fields, session.scenario)
    }

    /// `initialize(clientToken:)`: the token names a live session (checked by the caller) that has no order yet.
    func initialize(_ namespace: Namespace, sessionID: String, outcome: ScenarioOutcome = .approve) -> KlarnaSDKResult {
        guard let session = try? liveSession(namespace, sessionID), session.orderID == nil,
              outcome.klarna != .invalidClientToken else {
            return .failed(.invalidClientToken(action: KlarnaSDKCall.initialize.action), approved: nil)
        }
        return KlarnaSDKResult(showForm: true)
    }

    /// `authorize()`, `reauthorize()` or `finalize()` in the customer's device, as the scenario decides.
    /// A session that is unknown, expired or completed has no usable client token: the SDK reports
    /// InvalidClientTokenError rather than an HTTP error.
    mutating func authorize(_ namespace: Namespace, sessionID: String, data: KlarnaSessionFields?, outcome: ScenarioOutcome = .approve,
                            call: KlarnaSDKCall = .authorize) -> KlarnaSDKResult {
        let action = call.action
        guard let session = try? liveSession(namespace, sessionID), session.orderID == nil else {
            return .failed(.invalidClientToken(action: action), approved: false)
        }
        switch outcome.klarna ?? .approve {
        case .reject:
            // A hard decline: the form is not shown again (Klarna's playground "+denied"); the mobile SDK reports it
            // as ShowFormFalseError (klarna-mobile-sdk.md §3), the JavaScript SDK's answer has only these two fields.
            return KlarnaSDKResult(approved: false, showForm: false)
        case .cancel:
            // The customer closed the form: it stays available.
            return KlarnaSDKResult(approved: false, showForm: true)
        case .finalizeRequired where call == .authorize:
            session.awaitingFinalize = true
            return KlarnaSDKResult(approved: false, showForm: true, finalizeRequired: true)
        case .showFormFalse:
            return .failed(.showFormFalse(action: action), approved: false)
        case .invalidClientToken:
            return .failed(.invalidClientToken(action: action), approved: false)
        default:
            break
        }
        var snapshot = session.fields
        if let data { snapshot.merge(data) }
        let token = ids.uuid()
        // "We only share customer details after authorizing the session" (§2.2): a read now shows them.
        session.fields = snapshot
        session.awaitingFinalize = false
        session.authorizationTokens.append(token)
        let now = registry.now(namespace)
        authorizations[token] = Authorization(token: token, sessionID: session.id, authorizedAt: now, snapshot: session.$fields)
        retained.authorizations.created(namespace, token)
        sweep.noteExpiry(now + configuration.authorizationLifetime)
        return KlarnaSDKResult(approved: true, showForm: true, authorizationToken: token, finalizeRequired: false)
    }

    /// `load()`: the widget checks its client token and that the category is offered (a category it does not offer
    /// is ShowFormFalseError, klarna-mobile-sdk.md §3).
    func load(_ namespace: Namespace, sessionID: String, clientToken: String?, category: String?,
              outcome: ScenarioOutcome = .approve) -> KlarnaSDKResult {
        guard let session = try? liveSession(namespace, sessionID), session.orderID == nil,
              clientToken == nil || clientToken == session.clientToken
        else { return .failed(.invalidClientToken(action: "Initialize"), approved: nil) }
        switch outcome.klarna ?? .approve {
        case .invalidClientToken: return .failed(.invalidClientToken(action: "Initialize"), approved: nil)
        case .showFormFalse: return .failed(.showFormFalse(action: "Load"), approved: nil)
        case .reject: return KlarnaSDKResult(showForm: false)
        default: break
        }
        if let category, !configuration.paymentMethodCategories.contains(where: { $0.identifier == category }) {
            return .failed(.showFormFalse(action: "Load"), approved: nil)
        }
        return KlarnaSDKResult(showForm: true)
    }

    /// The session id and sticky scenario behind a session id or a token, for scenario selection.
    func scenarioOf(_ namespace: Namespace, sessionID: String) -> String? { sessions[sessionID]?.scenario }

    func scenarioOf(_ namespace: Namespace, token: String) -> String? {
        guard let sessionID = authorizations[token]?.sessionID else { return nil }
        return sessions[sessionID]?.scenario
    }

    // MARK: Authorizations (§2.5–2.7)

    /// The order, and whether this call placed it (false: the same body again for a token's order).
    mutating func createOrder(_ namespace: Namespace, token: String, _ request: KlarnaCreateOrderRequest, redirectBase: String?,
                              outcome: ScenarioOutcome = .approve)
    throws(KlarnaError) -> (order: KlarnaOrder, placed: Bool, scenario: String?, request: Shared<KlarnaCreateOrderRequest>) {
        if outcome.klarna == .expireToken { throw .invalidAuthorizationToken }
        let authorization = try liveAuthorization(namespace, token)
        if let orderID = authorization.orderID, let existing = orders[orderID] {
            // create_order is idempotent per token (krokedil/klarna-payments-for-woocommerce#31): the same
            // body answers the same order; another body is a 409 (§2.5, inferred).
            guard existing.request == request else { throw .differentRequestBody }
            return (existing.order, false, nil, existing.$request)
        }
        guard let session = sessions[authorization.sessionID] else { throw .invalidAuthorizationToken }
        guard session.orderID == nil else { throw .sessionCompleted }
        let orderFields = request.sessionFields  // made once: validated, then compared
        try PaymentsValidation.validateSession(orderFields)  // validateCreateOrder(request)
        var fraudStatus = "ACCEPTED"
        switch outcome.klarna ?? .approve {
        case .mismatchedFields(let fields):
            throw .notMatching(fields)
        case let .cartChanged(expected, actual):
            let expected = expected ?? authorization.snapshot.orderLines?.count ?? 0
            let actual = actual ?? request.orderLines?.count ?? 0
            throw .notMatching(["Incorrect number of items in the cart. Expected: \(expected), Actual: \(actual)"])
        case .rejected:
            throw .rejected
        case .fraudPending:
            fraudStatus = "PENDING"
        case .fraudRejected:
            fraudStatus = "REJECTED"
        default:
            break
        }
        if let mismatch = PaymentsValidation.mismatch(authorized: authorization.snapshot, order: orderFields) {
            throw mismatch
        }
        let orderID = ids.uuid()
        let redirect: String? = request.merchantUrls?.confirmation == nil ? nil
            : redirectBase.map { "\($0)/__sandbox/klarna/payments/orders/\(orderID)/redirect" }
        let order = KlarnaOrder(orderId: orderID, redirectUrl: redirect, fraudStatus: fraudStatus,
                                authorizedPaymentMethod: KlarnaAuthorizedPaymentMethod(type: "invoice", numberOfDays: 30))
        authorization.orderID = orderID
        session.orderID = orderID
        let now = registry.now(namespace)
        let placed = Order(order: order, sessionID: session.id, authorizationToken: authorization.token,
                           request: request.sharing(authorization.snapshot), createdAt: now)
        orders[orderID] = placed
        retained.orders.created(namespace, orderID)
        return (order, true, session.scenario, placed.$request)
    }

    mutating func cancelAuthorization(_ namespace: Namespace, token: String, outcome: ScenarioOutcome = .approve) throws(KlarnaError) {
        // §3.1 lists 404 NOT_FOUND "Authorization cannot be deleted" for this call.
        let cannotDelete = KlarnaError(.notFound, code: "NOT_FOUND", messages: ["Authorization cannot be deleted"])
        if outcome.klarna == .expireToken { throw cannotDelete }
        let authorization: Authorization
        do { authorization = try liveAuthorization(namespace, token) } catch { throw cannotDelete }
        guard authorization.orderID == nil else {
            throw KlarnaError(.forbidden, code: "INVALID_OPERATION", messages: ["Authorization token already consumed"])
        }
        authorization.cancelled = true
    }

    mutating func createCustomerToken(_ namespace: Namespace, token: String, _ request: KlarnaCustomerTokenRequest,
                                      outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> KlarnaCustomerToken {
        if outcome.klarna == .expireToken { throw .invalidAuthorizationToken }
        if case .mismatchedFields(let fields)? = outcome.klarna { throw .notMatching(fields) }
        let authorization = try liveAuthorization(namespace, token)
        guard let session = sessions[authorization.sessionID] else { throw .invalidAuthorizationToken }
        if (session.fields.intent ?? "buy") == "buy" {
            throw KlarnaError(.forbidden, code: "INVALID_OPERATION", messages: ["Not allowed to create customer token for intent buy"])
        }
        try PaymentsValidation.validateCustomerToken(request)
        // "The same comparison applies to customer-token (409)" (§2.9 rule 8): the billing address and the
        // customer that were authorized.
        var authorized = KlarnaSessionFields(), sent = KlarnaSessionFields()
        authorized.billingAddress = authorization.snapshot.billingAddress
        sent.billingAddress = request.billingAddress ?? authorization.snapshot.billingAddress
        if let mismatch = PaymentsValidation.mismatch(authorized: authorized, order: sent) { throw mismatch }
        let created = KlarnaCustomerToken(tokenId: ids.uuid(), redirectUrl: nil, paymentMethodReference: ids.uuid(),
                                          billingAddress: request.billingAddress ?? authorization.snapshot.billingAddress,
                                          customer: (request.customer ?? authorization.snapshot.customer).map {
                                              KlarnaCustomer(dateOfBirth: $0.dateOfBirth, gender: $0.gender)
                                          })
        // Kept for the Customer Token API (CustomerToken/CustomerTokenStore.swift): the market it was made for
        // and the session's sticky scenario, which its orders follow.
        let record = CustomerTokenRecord(
            id: created.tokenId, sessionID: session.id, scenario: session.scenario, createdAt: registry.now(namespace),
            purchaseCountry: request.purchaseCountry ?? session.fields.purchaseCountry,
            purchaseCurrency: request.purchaseCurrency ?? session.fields.purchaseCurrency,
            locale: request.locale ?? session.fields.locale, billingAddress: created.billingAddress,
            customer: request.customer ?? authorization.snapshot.customer)
        customerTokens[created.tokenId] = record
        retained.customerTokens.created(namespace, created.tokenId)
        return created
    }

    /// A token that exists, was not cancelled and is within its 60 minutes; otherwise Klarna's 404.
    func liveAuthorization(_ namespace: Namespace, _ token: String) throws(KlarnaError) -> Authorization {
        guard let authorization = authorizations[token], !authorization.cancelled else {
            throw .invalidAuthorizationToken
        }
        if authorization.orderID == nil,
           registry.now(namespace) >= authorization.authorizedAt + configuration.authorizationLifetime {
            throw .invalidAuthorizationToken
        }
        return authorization
    }

    /// The browser following `redirect_url` carries neither namespace header nor credentials, so the order
    /// is looked up in every namespace (order ids are UUIDs).
    func confirmationURL(orderID: String) -> String? {
        guard let order = orders[orderID],
              let confirmation = order.request.merchantUrls?.confirmation else { return nil }
        // Placeholders of merchant_urls in KP (single braces, §2.1).
        return confirmation.replacingOccurrences(of: "{session.id}", with: order.sessionID)
            .replacingOccurrences(of: "{order.id}", with: orderID)
    }

    // MARK: Housekeeping

    /// Expired sessions, with their tokens and orders, are dropped so memory stays bounded as sessions pile
    /// up: a session 48 h past its last update is gone for Klarna too (§2.8), and a token outlives its session
    /// only for its own 60 minutes. (Orders will move to Order Management, which keeps them for their
    /// authorization's lifetime.) Runs for the namespace that creates sessions, every 1024 creations there
    /// or when its clock has moved a minute past the last sweep (a clock jump expires everything at once).
    private mutating func sweepExpiredOccasionally(_ namespace: Namespace) {
        let now = registry.now(namespace)
        guard sweep.creationIsDue(now: now) else { return }
        let before = sessions.count + authorizations.count + orders.count
        let tokenLifetime = configuration.authorizationLifetime
        let sessions = self.sessions, oldAuthorizations = authorizations, oldOrders = orders
        authorizations = authorizations.filter { _, authorization in
            authorization.authorizedAt + tokenLifetime > now
                || (sessions[authorization.sessionID].map { $0.expiresAt > now } ?? false)
        }
        let withLiveTokens = Set(authorizations.values.map(\.sessionID))
        self.sessions = sessions.filter { id, session in session.expiresAt > now || withLiveTokens.contains(id) }
        orders = orders.filter { [sessions = self.sessions] _, order in sessions[order.sessionID] != nil }
        let dropped = before - (self.sessions.count + authorizations.count + orders.count)
        if dropped > 0 {
            retained.sessions.removed(namespace, sessions.keys.filter { self.sessions[$0] == nil })
            retained.authorizations.removed(namespace, oldAuthorizations.keys.filter { authorizations[$0] == nil })
            retained.orders.removed(namespace, oldOrders.keys.filter { orders[$0] == nil })
        }
        sweep.earliestExpiry = min(self.sessions.values.lazy.map(\.expiresAt).min() ?? .distantFuture,
                                   authorizations.values.lazy.map { $0.authorizedAt + tokenLifetime }.min() ?? .distantFuture)
        if dropped >= 4096 { FreedMemory.returnToSystem() }
    }

    /// Its sessions, tokens and orders as counted toward the server's bound after a restore.
    func heldObjects(_ namespace: Namespace) -> [HeldObject] {
        var held = sessions.values.map { HeldObject(created: $0.createdAt, kind: retained.sessions, namespace: namespace, id: $0.id) }
        held += authorizations.values.map { HeldObject(created: $0.authorizedAt, kind: retained.authorizations, namespace: namespace, id: $0.token) }
        held += orders.values.map { HeldObject(created: $0.createdAt, kind: retained.orders, namespace: namespace, id: $0.order.orderId) }
        held += customerTokens.values.map { HeldObject(created: $0.createdAt, kind: retained.customerTokens, namespace: namespace, id: $0.id) }
        return held
    }

    func snapshot(_ namespace: Namespace) -> JSONText {
        let now = registry.now(namespace)
        return .object([
            ("sessions", .array(sessions.values.sorted { $0.createdAt < $1.createdAt }.map { session in
                .object([("session_id", .string(session.id)), ("status", .string(session.status)),
                         ("scenario", session.scenario.map(JSONText.string) ?? .null),
                         ("expired", .bool(session.expiresAt <= now)),
                         ("expires_at", .string(KlarnaJSON.timestamp(session.expiresAt))),
                         ("authorization_tokens", .array(session.authorizationTokens.map(JSONText.string))),
                         ("order_id", session.orderID.map(JSONText.string) ?? .null)])
            })),
            ("authorizations", .array(authorizations.values.sorted { $0.authorizedAt < $1.authorizedAt }.map { authorization in
                .object([("authorization_token", .string(authorization.token)), ("session_id", .string(authorization.sessionID)),
                         ("authorized_at", .string(KlarnaJSON.timestamp(authorization.authorizedAt))),
                         ("expires_at", .string(KlarnaJSON.timestamp(authorization.authorizedAt + configuration.authorizationLifetime))),
                         ("cancelled", .bool(authorization.cancelled)),
                         ("order_id", authorization.orderID.map(JSONText.string) ?? .null)])
            })),
            ("orders", .array(orders.values.sorted { $0.createdAt < $1.createdAt }.map { order in
                .object([("order_id", .string(order.order.orderId)), ("session_id", .string(order.sessionID)),
                         ("authorization_token", .string(order.authorizationToken)),
                         ("fraud_status", .string(order.order.fraudStatus)),
                         ("order_amount", order.request.orderAmount.map(JSONText.int) ?? .null)])
            })),
            ("customer_tokens", .array(customerTokens.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.snapshot))),
        ])
    }
}

/// Klarna Payments state, per namespace: sessions, authorization tokens, orders. Every operation (check,
/// then change) runs under its namespace's lock, so it is atomic: two create-order calls racing on one token make one
/// order. The operations are synchronous and short (no I/O), so the routes call them on the event loop
/// without a task hop; a lock held for microseconds beats an actor's hops at this size.
package final class KlarnaPaymentsStore: NamespacedState, Sendable {
    package let stateName = "klarna_payments"
    let configuration: KlarnaPaymentsConfiguration
    /// The sandbox's ids, for error bodies too.
    let ids: any IDGenerator
    /// Where placed orders go on to live (Order Management); nil in tests of this store alone.
    let orders: KlarnaOrderManagementStore?
    let ledgers: NamespacedStore<PaymentsLedger>
    let retained: PaymentsRetainedKinds

    /// `retention`: the server's bound on objects (by default one of this store alone, without a bound).
    package init(registry: NamespaceRegistry, ids: any IDGenerator, configuration: KlarnaPaymentsConfiguration = KlarnaPaymentsConfiguration(),
                orders: KlarnaOrderManagementStore? = nil, retention: ObjectRetention = ObjectRetention()) {
        self.configuration = configuration
        self.ids = ids
        self.orders = orders
        let retained = PaymentsRetainedKinds(retention)
        self.retained = retained
        let ledgers = NamespacedStore { PaymentsLedger(registry: registry, ids: ids, configuration: configuration, retained: retained) }
        self.ledgers = ledgers
        retained.sessions.onEviction(holds: { namespace, id in ledgers.withState(namespace) { $0.sessions[id] != nil } },
                                     evict: { namespace, id in ledgers.withState(namespace) { $0.sessions.removeValue(forKey: id) != nil } })
        retained.authorizations.onEviction(
            holds: { namespace, token in ledgers.withState(namespace) { $0.authorizations[token] != nil } },
            evict: { namespace, token in ledgers.withState(namespace) { $0.authorizations.removeValue(forKey: token) != nil } })
        retained.orders.onEviction(holds: { namespace, id in ledgers.withState(namespace) { $0.orders[id] != nil } },
                                   evict: { namespace, id in ledgers.withState(namespace) { $0.orders.removeValue(forKey: id) != nil } })
        retained.customerTokens.onEviction(
            holds: { namespace, id in ledgers.withState(namespace) { $0.customerTokens[id] != nil } },
            evict: { namespace, id in ledgers.withState(namespace) { $0.customerTokens.removeValue(forKey: id) != nil } })
    }

    /// Every object held, for counting toward the server's bound after a restore (``ObjectRetention/retain(_:)``).
    package func heldObjects() -> [HeldObject] {
        ledgers.flatMap { namespace, ledger in ledger.heldObjects(namespace) }
    }

    func createSession(_ namespace: Namespace, _ fields: KlarnaSessionFields, scenario: String? = nil) throws(KlarnaError) -> KlarnaMerchantSession {
        try PaymentsValidation.validateSession(fields)
        defer { retained.sessions.retention.evictOverflow() }
        return ledgers.withState(namespace) { $0.createSession(namespace, fields, scenario: scenario) }
    }

    func readSession(_ namespace: Namespace, _ id: String) throws(KlarnaError) -> KlarnaSessionRead {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.readSession(namespace, id) }
    }

    func updateSession(_ namespace: Namespace, _ id: String, _ update: KlarnaSessionFields) throws(KlarnaError) {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.updateSession(namespace, id, update) }
    }

    func cancelSession(_ namespace: Namespace, _ id: String) throws(KlarnaError) {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.cancelSession(namespace, id) }
    }

    func customerView(_ namespace: Namespace, sessionID: String, data: KlarnaSessionFields?) -> (fields: KlarnaSessionFields, scenario: String?)? {
        ledgers.withState(namespace) { $0.customerView(namespace, sessionID: sessionID, data: data) }
    }

    func sessionID(forKey key: String, _ namespace: Namespace) -> String? {
        ledgers.withState(namespace) { $0.sessionID(forKey: key, namespace) }
    }

    /// The live session `key` names (``sessionID(forKey:_:)``), its stored fields and its scenario, read under one lock:
    /// what an SDK call plays (the customer's view is these fields with the call's `jsonData`).
    func sdkSession(forKey key: String, _ namespace: Namespace) -> (id: String, fields: KlarnaSessionFields, scenario: String?)? {
        ledgers.withState(namespace) { $0.sdkSession(forKey: key, namespace) }
    }

    func initialize(_ namespace: Namespace, sessionID: String, outcome: ScenarioOutcome = .approve) -> KlarnaSDKResult {
        ledgers.withState(namespace) { $0.initialize(namespace, sessionID: sessionID, outcome: outcome) }
    }

    func authorize(_ namespace: Namespace, sessionID: String, data: KlarnaSessionFields?, outcome: ScenarioOutcome = .approve,
                   call: KlarnaSDKCall = .authorize) -> KlarnaSDKResult {
        defer { retained.sessions.retention.evictOverflow() }
        return ledgers.withState(namespace) { $0.authorize(namespace, sessionID: sessionID, data: data, outcome: outcome, call: call) }
    }

    func load(_ namespace: Namespace, sessionID: String, clientToken: String?, category: String?,
              outcome: ScenarioOutcome = .approve) -> KlarnaSDKResult {
        ledgers.withState(namespace) { $0.load(namespace, sessionID: sessionID, clientToken: clientToken, category: category, outcome: outcome) }
    }

    func scenarioOf(_ namespace: Namespace, sessionID: String) -> String? {
        ledgers.withState(namespace) { $0.scenarioOf(namespace, sessionID: sessionID) }
    }

    func scenarioOf(_ namespace: Namespace, token: String) -> String? {
        ledgers.withState(namespace) { $0.scenarioOf(namespace, token: token) }
    }

    func createOrder(_ namespace: Namespace, token: String, _ request: KlarnaCreateOrderRequest, redirectBase: String?,
                     outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> KlarnaOrder {
        defer { retained.sessions.retention.evictOverflow() }
        let result = try ledgers.withState(namespace) { (state) throws(KlarnaError) in
            try state.createOrder(namespace, token: token, request, redirectBase: redirectBase, outcome: outcome)
        }
        if result.placed {
            // The same order in Order Management (klarna-api.md §5): captured at once with auto_capture (§2.5).
            orders?.place(namespace, orderID: result.order.orderId, request: result.request, fraudStatus: result.order.fraudStatus,
                          scenario: result.scenario, captured: request.autoCapture == true)
        }
        return result.order
    }

    func cancelAuthorization(_ namespace: Namespace, token: String, outcome: ScenarioOutcome = .approve) throws(KlarnaError) {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.cancelAuthorization(namespace, token: token, outcome: outcome) }
    }

    func createCustomerToken(_ namespace: Namespace, token: String, _ request: KlarnaCustomerTokenRequest,
                             outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> KlarnaCustomerToken {
        defer { retained.sessions.retention.evictOverflow() }
        return try ledgers.withState(namespace) { (state) throws(KlarnaError) in
            try state.createCustomerToken(namespace, token: token, request, outcome: outcome)
        }
    }

    func confirmationURL(orderID: String) -> String? {
        ledgers.first { _, state in state.confirmationURL(orderID: orderID) }
    }

    package func reset(_ namespace: Namespace) {
        // Under the namespace's lock, so an eviction meanwhile finds the objects either held and counted or gone.
        _ = ledgers.reset(namespace) { _ in retained.removedAll(namespace) }
    }

    package func snapshot(_ namespace: Namespace) -> JSONText { ledgers.withState(namespace) { $0.snapshot(namespace) } }

    package func objects(_ namespace: Namespace) -> [SandboxObjectSummary] { ledgers.withState(namespace) { $0.objectSummaries(namespace) } }

    package var namespacesWithState: [Namespace] { ledgers.namespaces }
}

/// The objects of Klarna Payments (and of the Customer Token API, whose tokens live here) that count against the
/// server's bound on objects (``ObjectRetention``).
struct PaymentsRetainedKinds: Sendable {
    let sessions, authorizations, orders, customerTokens: RetainedObjectKind

    init(_ retention: ObjectRetention) {
        sessions = retention.kind(provider: "klarna", name: "payments_session")
        authorizations = retention.kind(provider: "klarna", name: "authorization_token")
        orders = retention.kind(provider: "klarna", name: "payments_order")
        customerTokens = retention.kind(provider: "klarna", name: "customer_token")
    }

    func removedAll(_ namespace: Namespace) {
        for kind in [sessions, authorizations, orders, customerTokens] { kind.removedAll(namespace) }
    }
}

// MARK: The state file

// Synthesized, so a field added to a session, token or order is kept too.
extension PaymentsLedger.Session: Codable {}
extension PaymentsLedger.Authorization: Codable {}
extension PaymentsLedger.Order: Codable {}

extension PaymentsLedger.Order {
    /// An order whose request is `request`'s box (the state file's reader shares it as `Codable` does).
    init(order: KlarnaOrder, sessionID: String, authorizationToken: String, sharing request: Shared<KlarnaCreateOrderRequest>,
         createdAt: Date) {
        self.init(order: order, sessionID: sessionID, authorizationToken: authorizationToken, request: request.wrappedValue,
                  createdAt: createdAt)
        _request = request
    }
}

// Values made of values only: a restore shares equal ones between objects, as the store shares them (a session's fields
// and its authorization's snapshot, an order's request and the Order Management order's; SandboxCore's
// SavedValueShareable).
extension KlarnaSessionFields: SavedValueShareable {}
extension KlarnaCreateOrderRequest: SavedValueShareable {}
extension KlarnaOrderLine: SavedValueShareable {}
extension KlarnaAddress: SavedValueShareable {}

// Copied under the store's lock for the state file to encode outside it (`init(copying:)`: every stored property, a
// field added to the class must be copied there too; a test compares a file written from copies with one written
// from the objects).
extension PaymentsLedger.Session: SavedStateCopyable {
    func savedCopy() -> PaymentsLedger.Session { PaymentsLedger.Session(copying: self) }
}
extension PaymentsLedger.Authorization: SavedStateCopyable {
    func savedCopy() -> PaymentsLedger.Authorization { PaymentsLedger.Authorization(copying: self) }
}

extension PaymentsLedger: SavableNamespaceState {
    var savedObjectCount: Int { sessions.count + authorizations.count + orders.count + customerTokens.count }

    static var savedCollections: [SavedCollection<Self>] {
        [.objects("sessions", \.sessions, writing: .copied, reading: .direct),
         .objects("authorizations", \.authorizations, writing: .copied, reading: .direct),
         .objects("orders", \.orders, writing: .written, reading: .direct), .objects("customerTokens", \.customerTokens)]
    }

    struct SavedRest: Codable { var sweep: SweepSchedule }
    var savedRest: SavedRest { SavedRest(sweep: sweep) }
    mutating func restore(_ rest: SavedRest) { sweep = rest.sweep }
}

extension KlarnaPaymentsStore: StreamedSavedSection {
    package func savedSection() throws -> SavedStoreSection? { try ledgers.savedSection() }
    package func savedSectionJobs(tally: SavedSectionTally) -> AnyIterator<SavedStateJob> { ledgers.savedSectionJobs(tally: tally) }
    package func restoreSavedSection(from reader: SavedStateReader) throws { try ledgers.restoreSection(from: reader) }
    package func discardRestored() { ledgers.discardRestored() }
    /// The restored objects count toward the server's bound once every store is restored (``heldObjects()``).
    package func restoreSection(from decoder: any Decoder) throws {
        try ledgers.restoreSection(from: decoder)
    }
}
