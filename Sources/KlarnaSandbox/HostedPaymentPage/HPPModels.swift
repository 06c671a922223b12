// SPDX-License-Identifier: MIT
import Foundation

// Klarna HPP request and response bodies (klarna-api.md §4; hpp-v1.openapi.yml schemas). Read with
// KlarnaJSONObject and written with KlarnaJSONWriter like Klarna Payments' models (PaymentsJSON.swift).

/// `SessionResponseV1.status` (klarna-api.md §4.2). The docs' prose says COMPLETE; the enum value is COMPLETED.
package enum KlarnaHPPStatus: String, Sendable, CaseIterable {
    case waiting = "WAITING"
    case inProgress = "IN_PROGRESS"
    case completed = "COMPLETED"
    case failed = "FAILED"
    case back = "BACK"
    case cancelled = "CANCELLED"
    case error = "ERROR"
    case disabled = "DISABLED"
    /// In the enum only (in-store ID check); the sandbox never produces it.
    case manualIDCheck = "MANUAL_ID_CHECK"

    /// COMPLETED, CANCELLED and DISABLED never change (§4.2 table, "Final").
    package var isFinal: Bool { self == .completed || self == .cancelled || self == .disabled }
}

/// `options.place_order_mode` (klarna-api.md §4.1); NONE by default.
package enum KlarnaHPPPlaceOrderMode: String, Sendable {
    case none = "NONE"
    case placeOrder = "PLACE_ORDER"
    case captureOrder = "CAPTURE_ORDER"
}

/// `MerchantUrlsV1` (§4.1). Legacy `privacy_policy` and `terms` are accepted and ignored (inferred).
struct KlarnaHPPMerchantURLs: Equatable, Sendable {
    var success, cancel, back, failure, error, statusUpdate: String?
}

/// `OptionsV1` (§4.1) plus the documented `payment_fallback` that the v1.1 spec lacks.
struct KlarnaHPPOptions: Equatable, Sendable {
    var placeOrderMode: KlarnaHPPPlaceOrderMode = .none
    /// Upper-cased; nil: every category the KP session offers.
    var paymentMethodCategories: [String]?
    /// Which of the two keys gave them, for error messages.
    var paymentMethodCategoriesPath: String?
    var paymentFallback: Bool?
    var purchaseType, showSubtotalDetail, logoURL, pageTitle: String?
}

/// `SessionCreationRequestV1`.
struct KlarnaHPPCreateRequest: Sendable {
    var paymentSessionURL: String?
    var merchantURLs = KlarnaHPPMerchantURLs()
    var options = KlarnaHPPOptions()
    var profileID: String?
}

/// `DistributionRequestV1` (§4.3).
struct KlarnaHPPDistribution: Equatable, Sendable {
    var method: String
    var email, phone, phoneCountry, accessID: String?
    var template: String?
    var distributedAt: Date
}

extension KlarnaError {
    // HPP error bodies have no schema (klarna-api.md §1.4, §3.3): Klarna's KP/OM envelope is used (inferred),
    // with the HPP spec's response descriptions as messages.
    static func hppBadCreate(_ detail: String) -> KlarnaError {
        KlarnaError(.badRequest, code: "BAD_VALUE", messages: [
            detail, "We were unable to create a session with the provided data. Some field constraint was violated.",
        ])
    }
    static func hppBadDistribution(_ detail: String) -> KlarnaError {
        KlarnaError(.badRequest, code: "BAD_VALUE", messages: [
            detail,
            "We were unable to distribute the link with the provided data. Some field constraint was violated. Or session is disabled by merchant.",
        ])
    }
    static let hppPaymentSessionExpired = KlarnaError(.notFound, code: "NOT_FOUND", messages: ["Payment session has expired."])
    static let hppSessionNotFound = KlarnaError(.notFound, code: "NOT_FOUND",
                                                messages: ["HPP session has expired or could not be found by provided id."])
    static let hppDistributionNotFound = KlarnaError(.notFound, code: "NOT_FOUND",
                                                     messages: ["HPP session not found or access token not found"])
    static let hppAlreadyCompleted = KlarnaError(.badRequest, code: "BAD_VALUE",
                                                 messages: ["HPP session has already been successfully completed."])
    /// A consumer action on a session whose status is final (sandbox endpoint; Klarna's page simply ends).
    static func hppFinal(_ status: KlarnaHPPStatus) -> KlarnaError {
        KlarnaError(.conflict, code: "CONFLICT", messages: ["HPP session is \(status.rawValue): a final status does not change."])
    }
}

// MARK: - Reading requests

extension KlarnaHPPMerchantURLs: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        success = try o.string("success"); cancel = try o.string("cancel"); back = try o.string("back")
        failure = try o.string("failure"); error = try o.string("error"); statusUpdate = try o.string("status_update")
        _ = try o.string("privacy_policy"); _ = try o.string("terms")
        // Absolute URLs before they reach a Location header or a callback (MerchantURL; inferred): the consumer's
        // may use an app's scheme, status_update is fetched over http(s); `{{session_id}}` placeholders allowed. Empty
        // is allowed: "if success/cancel/failure are empty, HPP shows a generic page" (klarna-api.md §4.1).
        for (key, url, rules) in [("success", success, MerchantURL.Rules.redirect), ("cancel", cancel, .redirect), ("back", back, .redirect),
                                  ("failure", failure, .redirect), ("error", error, .redirect), ("status_update", statusUpdate, .web)] {
            if let url, !url.isEmpty, !MerchantURL.isValid(url, rules: rules.withPlaceholders()) { throw .hppBadCreate("Bad value: \(o.childPath(key))") }
        }
    }
}

extension KlarnaHPPOptions: KlarnaJSONDecodable {
    /// `payment_method_category` enum; the OAS lists KLARNA, the docs' table does not: accepted (klarna-api.md §4.1).
    static let categories: Set<String> = ["DIRECT_DEBIT", "DIRECT_BANK_TRANSFER", "PAY_NOW", "PAY_LATER", "PAY_OVER_TIME", "KLARNA"]
    static let purchaseTypes: Set<String> = ["BUY", "RENT", "BOOK", "SUBSCRIBE", "DOWNLOAD", "ORDER", "CONTINUE"]

    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        if let mode = try o.string("place_order_mode") {
            guard let parsed = KlarnaHPPPlaceOrderMode(rawValue: mode) else {
                throw .hppBadCreate("Bad value: \(o.childPath("place_order_mode"))")
            }
            placeOrderMode = parsed
        }
        let single = try o.string("payment_method_category")
        let list = try o.strings("payment_method_categories")
        // "Defining both fields ... at the same time will end up in a refused request" (§4.1).
        if single != nil && list != nil {
            throw .hppBadCreate("Only one of options.payment_method_category and options.payment_method_categories may be given")
        }
        // Docs examples write "pay_later", the OAS enum PAY_LATER: compared case-insensitively (inferred).
        if let given = single.map({ [$0] }) ?? list {
            let path = o.childPath(single != nil ? "payment_method_category" : "payment_method_categories")
            let upper = given.map { $0.uppercased() }
            guard !upper.isEmpty, upper.allSatisfy(Self.categories.contains) else { throw .hppBadCreate("Bad value: \(path)") }
            paymentMethodCategories = upper
            paymentMethodCategoriesPath = path
        }
        paymentFallback = try o.bool("payment_fallback")
        purchaseType = try o.string("purchase_type")
        if let purchaseType, !Self.purchaseTypes.contains(purchaseType) {
            throw .hppBadCreate("Bad value: \(o.childPath("purchase_type"))")
        }
        showSubtotalDetail = try o.string("show_subtotal_detail")
        if let showSubtotalDetail, showSubtotalDetail != "HIDE" { throw .hppBadCreate("Bad value: \(o.childPath("show_subtotal_detail"))") }
        logoURL = try o.string("logo_url")
        pageTitle = try o.string("page_title")
    }
}

extension KlarnaHPPCreateRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        paymentSessionURL = try o.string("payment_session_url")
        merchantURLs = try o.object("merchant_urls") ?? KlarnaHPPMerchantURLs()
        options = try o.object("options") ?? KlarnaHPPOptions()
        profileID = try o.string("profile_id")
    }

    /// The KP session id in `https://<any host>/payments/v1/sessions/<id>` (§4.1). KCO order URLs are out of scope.
    static func paymentSessionID(in url: String) -> String? {
        guard let components = URLComponents(string: url) else { return nil }
        let segments = components.path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 4, let index = segments.lastIndex(of: "sessions"), index >= 2,
              segments[index - 2] == "payments", segments[index - 1] == "v1", index + 2 == segments.count
        else { return nil }
        return String(segments[index + 1])
    }
}

/// The request body of distribute, before the time is known.
struct KlarnaHPPDistributionRequest: KlarnaJSONDecodable {
    var distribution: KlarnaHPPDistribution
    /// The longest `contact_information` field or `template`, in Unicode scalars (see below).
    static let maximumLength = 99

    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        // Both are required (DistributionRequestV1); `method` is lower case in the OAS enum.
        guard let method = try o.string("method") else { throw .hppBadDistribution("Bad value: method") }
        guard ["sms", "email", "token"].contains(method) else { throw .hppBadDistribution("Bad value: method") }
        guard let contact = o.node("contact_information") else { throw .hppBadDistribution("Bad value: contact_information") }
        let c = try KlarnaJSONObject(contact, path: "contact_information")
        distribution = KlarnaHPPDistribution(method: method, email: try c.string("email"), phone: try c.string("phone"),
                                             phoneCountry: try c.string("phone_country"), accessID: try c.string("access_id"),
                                             template: try o.string("template"), distributedAt: .distantPast)
        // What each method needs (§4.3). access_id's three-value enum in the OAS is an artefact: not enforced.
        func need(_ value: String?, _ key: String) throws(KlarnaError) {
            guard let value, !value.isEmpty else { throw .hppBadDistribution("Bad value: contact_information.\(key)") }
        }
        // Lengths: the HPP OAS (hpp-v1.openapi.yml `DistributionContactV1`, from api-evangelist/klarna:
        // openapi/_original/hosted-payment-page-api-openapi.yml, klarna-api.md §4) sets no maxLength; KP's
        // `address.email` and `address.phone` are ≤ 99 (payments-v1.openapi.json `address`), so every field here is
        // held to 99 Unicode scalars (inferred). It also keeps a 4 MiB "address" out of the session and the journal.
        let fields = [("email", distribution.email), ("phone", distribution.phone), ("phone_country", distribution.phoneCountry),
                      ("access_id", distribution.accessID)]
        for (key, value) in fields where (value?.unicodeScalars.count ?? 0) > Self.maximumLength {
            throw .hppBadDistribution("Bad value: contact_information.\(key)")
        }
        if (distribution.template?.unicodeScalars.count ?? 0) > Self.maximumLength { throw .hppBadDistribution("Bad value: template") }
        switch method {
        case "email": try need(distribution.email, "email")
        case "sms":
            try need(distribution.phone, "phone")
            try need(distribution.phoneCountry, "phone_country")
            // ISO 3166 alpha-2.
            if let country = distribution.phoneCountry, country.count != 2 || !country.allSatisfy(\.isLetter) {
                throw .hppBadDistribution("Bad value: contact_information.phone_country")
            }
        default: try need(distribution.accessID, "access_id")
        }
    }
}

// MARK: - Writing responses

/// `SessionResponseV1`: fields without a value are left out, never null (the oracle has no nullable).
struct KlarnaHPPSessionRead: KlarnaJSONEncodable, Equatable, Sendable {
    var sessionID: String
    var status: KlarnaHPPStatus
    var updatedAt, expiresAt: Date
    var authorizationToken, orderID, klarnaReference: String?

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("authorization_token", authorizationToken); w.add("expires_at", KlarnaJSON.timestamp(expiresAt))
        w.add("klarna_reference", klarnaReference); w.add("order_id", orderID); w.add("session_id", sessionID)
        w.add("status", status.rawValue); w.add("updated_at", KlarnaJSON.timestamp(updatedAt))
        return w.json
    }
}

/// `SessionCreationResponseV1` (§4.1): every field is emitted.
struct KlarnaHPPSessionCreated: KlarnaJSONEncodable {
    var sessionID: String
    var baseURL: String
    var distributionToken: String
    var expiresAt: Date

    var redirectURL: String { "\(baseURL)/hpp/payments/\(sessionID)" }

    var json: JSONText {
        var module = KlarnaJSONWriter()
        module.add("generation_url", "\(baseURL)/hpp/v1/sessions/\(sessionID)/distribution-module/token")
        // {{profile_id}} and {{view_id}} are Klarna-side placeholders, left as they are (klarna-api.md §4.1).
        module.add("standalone_url", "\(baseURL)/hpp/distributions/\(sessionID)?profile_id={{profile_id}}&view_id={{view_id}}")
        module.add("token", distributionToken)
        var w = KlarnaJSONWriter()
        w.add("distribution_module", json: module.json)
        w.add("distribution_url", "\(baseURL)/hpp/v1/sessions/\(sessionID)/distribution")
        w.add("expires_at", KlarnaJSON.timestamp(expiresAt))
        w.add("manual_identification_check_url", "\(baseURL)/hpp/v1/sessions/\(sessionID)/manual-id-check")
        w.add("qr_code_url", "\(redirectURL)/qr")
        w.add("redirect_url", redirectURL)
        w.add("session_id", sessionID)
        w.add("session_url", "\(baseURL)/hpp/v1/sessions/\(sessionID)")
        return w.json
    }
}

extension KlarnaHPPDistribution {
    var json: JSONText {
        var contact = KlarnaJSONWriter()
        contact.add("access_id", accessID); contact.add("email", email); contact.add("phone", phone)
        contact.add("phone_country", phoneCountry)
        var w = KlarnaJSONWriter()
        w.add("contact_information", json: contact.json); w.add("distributed_at", KlarnaJSON.timestamp(distributedAt))
        w.add("method", method); w.add("template", template)
        return w.json
    }

    /// Who it would have gone to, for the journal.
    var recipient: String {
        switch method {
        case "sms": "\(phone ?? "") (\(phoneCountry ?? ""))"
        case "email": email ?? ""
        default: "access_id \(accessID ?? "")"
        }
    }
}

// The state file (`--state-file`) keeps HPP sessions; synthesized, so a field added is kept too.
extension KlarnaHPPStatus: Codable {}
extension KlarnaHPPPlaceOrderMode: Codable {}
extension KlarnaHPPMerchantURLs: Codable {}
extension KlarnaHPPOptions: Codable {}
extension KlarnaHPPDistribution: Codable {}
