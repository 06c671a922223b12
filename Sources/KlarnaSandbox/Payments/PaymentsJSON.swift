// SPDX-License-Identifier: MIT
import Foundation

// Klarna Payments bodies read from and written to JSON without Foundation's coders: a request body is
// parsed once (strictly, with positions) and that tree serves the scenario conditions and the models;
// responses are written with JSONText. Keys are Klarna's snake_case wire names (payments-v1.openapi.json).
// Responses list their keys in sorted order, as the sandbox always has (stable output for diffs).

/// A model read from a JSON object of a request body.
protocol KlarnaJSONDecodable {
    init(_ object: KlarnaJSONObject) throws(KlarnaError)
}

/// One JSON object of a request body and its path as Klarna writes field paths (`order_lines[0].name`): the
/// shared ``JSONObjectReader`` with Klarna's policy, which stops at the first member of the wrong type with
/// `BAD_VALUE` naming its path. Absent and `null` members are both nil; with duplicate keys the last one counts.
struct KlarnaJSONObject {
    let reader: JSONObjectReader
    /// The path, or its array's path when ``index`` is set: written out only for an error message.
    private let base: String
    private let index: Int?

    var path: String { Self.path(base, index) }

    private static func path(_ base: String, _ index: Int?) -> String { index.map { "\(base)[\($0)]" } ?? base }

    init(_ node: JSONNode, path: String) throws(KlarnaError) {
        try self.init(node, base: path, index: nil)
    }

    /// Element `index` of the array at `base`.
    private init(_ node: JSONNode, base: String, index: Int?) throws(KlarnaError) {
        guard let reader = JSONObjectReader(node) else { throw .badValue(Self.path(base, index)) }
        self.reader = reader
        self.base = base
        self.index = index
    }

    func childPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func node(_ key: String) -> JSONNode? { reader.node(key) }

    /// What a read found; its path if of the wrong type. The reads are the reader's plain (non-generic) ones.
    private func value<Value>(_ key: String, _ read: JSONRead<Value>) throws(KlarnaError) -> Value? {
        switch read {
        case .absent: return nil
        case .value(let value): return value
        case .wrongType: throw .badValue(childPath(key))
        }
    }

    func string(_ key: String) throws(KlarnaError) -> String? { try value(key, reader.string(key)) }

    /// Every number in Klarna's request bodies is a whole number (minor units, quantities, rates): `1.5`,
    /// `1e2` and numbers beyond 64 bits are `BAD_VALUE`.
    func int(_ key: String) throws(KlarnaError) -> Int? { try value(key, reader.integer(key)) }

    func bool(_ key: String) throws(KlarnaError) -> Bool? { try value(key, reader.bool(key)) }

    func object<T: KlarnaJSONDecodable>(_ key: String, as type: T.Type = T.self) throws(KlarnaError) -> T? {
        guard let node = node(key) else { return nil }
        return try T(KlarnaJSONObject(node, path: childPath(key)))
    }

    func objects<T: KlarnaJSONDecodable>(_ key: String, as type: T.Type = T.self) throws(KlarnaError) -> [T]? {
        guard let elements = try value(key, reader.array(key)) else { return nil }
        let path = childPath(key)
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try T(KlarnaJSONObject(element, base: path, index: index)))
        }
        return result
    }

    /// A wrong element is named by its index (`merchant_data[2]`).
    func strings(_ key: String) throws(KlarnaError) -> [String]? {
        guard let elements = try value(key, reader.array(key)) else { return nil }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard let string = element.stringValue else { throw .badValue("\(childPath(key))[\(index)]") }
            result.append(string)
        }
        return result
    }
}

/// Builds one JSON object of a response; nil values are left out (as `encodeIfPresent` does) and the keys
/// come out sorted.
struct KlarnaJSONWriter {
    private(set) var members: [(String, JSONText)] = []

    mutating func add(_ key: String, _ value: String?) { if let value { members.append((key, .string(value))) } }
    mutating func add(_ key: String, _ value: Int?) { if let value { members.append((key, .int(value))) } }
    mutating func add(_ key: String, _ value: Bool?) { if let value { members.append((key, .bool(value))) } }
    mutating func add(_ key: String, _ value: (some KlarnaJSONEncodable)?) { if let value { members.append((key, value.json)) } }
    mutating func add(_ key: String, _ values: [some KlarnaJSONEncodable]?) {
        if let values { members.append((key, .array(values.map(\.json)))) }
    }
    mutating func add(_ key: String, _ values: [String]?) { if let values { members.append((key, .array(values.map(JSONText.string)))) } }
    mutating func add(_ key: String, json: JSONText) { members.append((key, json)) }

    /// Sorted only when they were not added in order (the writers add them in order; a session read adds more).
    var json: JSONText {
        let inOrder = zip(members, members.dropFirst()).allSatisfy { $0.0 < $1.0 }
        return .object(inOrder ? members : members.sorted { $0.0 < $1.0 })
    }
}

/// A model written into a response body.
protocol KlarnaJSONEncodable {
    var json: JSONText { get }
}

extension KlarnaJSON {
    /// Parses a request body strictly (RFC 8259: no trailing commas, no comments). Empty, unparseable and
    /// non-object bodies are 400 BAD_REQUEST. Klarna's exact text for these is not documented
    /// (klarna-api.md §9.1): the messages are the sandbox's.
    static func parseBody(_ body: Data) throws(KlarnaError) -> JSONNode {
        guard !body.isEmpty else {
            throw KlarnaError(.badRequest, code: "BAD_REQUEST", messages: ["Request body is missing"])
        }
        let document: JSONNode
        do {
            document = try JSONDocument.parse(body)
        } catch {
            throw KlarnaError(.badRequest, code: "BAD_REQUEST",
                              messages: ["Malformed JSON in request body: line \(error.line), column \(error.column): \(error.message)"])
        }
        guard case .object = document.value else {
            throw KlarnaError(.badRequest, code: "BAD_REQUEST", messages: ["Request body must be a JSON object"])
        }
        return document
    }

    /// The parsed body of a request, or why it cannot be read: the scenario engine looks at the tree, the
    /// operation decodes it (and answers the error) only if the scenario lets it run.
    static func parsedBody(_ request: HTTPRequest) -> Result<JSONNode, KlarnaError> {
        do { return .success(try parseBody(request.body)) } catch { return .failure(error) }
    }

    /// Decodes a request body: ``parseBody(_:)``, then the model; a value of the wrong type is `BAD_VALUE`
    /// naming its path, as Klarna names fields (`Bad value: order_lines[0].quantity`).
    static func decode<T: KlarnaJSONDecodable>(_ type: T.Type, from body: Data) throws(KlarnaError) -> T {
        try decode(type, from: parseBody(body))
    }

    static func decode<T: KlarnaJSONDecodable>(_ type: T.Type, from document: JSONNode) throws(KlarnaError) -> T {
        try T(KlarnaJSONObject(document, path: ""))
    }
}

extension HTTPResponse {
    /// A Klarna JSON body.
    static func klarna(_ value: some KlarnaJSONEncodable, status: HTTPStatus = .ok) -> HTTPResponse {
        .json(Data(value.json.bytes), status: status)
    }

    static func klarna(_ session: KlarnaMerchantSession) -> HTTPResponse { .json(Data(session.jsonBytes)) }
}

// MARK: - Request and response models

extension KlarnaAddress: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        attention = try o.string("attention"); city = try o.string("city"); country = try o.string("country")
        email = try o.string("email"); familyName = try o.string("family_name"); givenName = try o.string("given_name")
        organizationName = try o.string("organization_name"); phone = try o.string("phone")
        postalCode = try o.string("postal_code"); region = try o.string("region")
        streetAddress = try o.string("street_address"); streetAddress2 = try o.string("street_address2")
        title = try o.string("title")
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("attention", attention); w.add("city", city); w.add("country", country); w.add("email", email)
        w.add("family_name", familyName); w.add("given_name", givenName); w.add("organization_name", organizationName)
        w.add("phone", phone); w.add("postal_code", postalCode); w.add("region", region)
        w.add("street_address", streetAddress); w.add("street_address2", streetAddress2); w.add("title", title)
        return w.json
    }
}

extension KlarnaCustomer: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        dateOfBirth = try o.string("date_of_birth"); gender = try o.string("gender")
        lastFourSsn = try o.string("last_four_ssn"); nationalIdentificationNumber = try o.string("national_identification_number")
        organizationEntityType = try o.string("organization_entity_type")
        organizationRegistrationId = try o.string("organization_registration_id")
        title = try o.string("title"); type = try o.string("type"); vatId = try o.string("vat_id")
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("date_of_birth", dateOfBirth); w.add("gender", gender); w.add("last_four_ssn", lastFourSsn)
        w.add("national_identification_number", nationalIdentificationNumber)
        w.add("organization_entity_type", organizationEntityType)
        w.add("organization_registration_id", organizationRegistrationId)
        w.add("title", title); w.add("type", type); w.add("vat_id", vatId)
        return w.json
    }
}

extension KlarnaMerchantURLs: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        confirmation = try o.string("confirmation"); notification = try o.string("notification"); push = try o.string("push")
        authorization = try o.string("authorization"); appReturnUrl = try o.string("app_return_url")
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("app_return_url", appReturnUrl); w.add("authorization", authorization); w.add("confirmation", confirmation)
        w.add("notification", notification); w.add("push", push)
        return w.json
    }
}

extension KlarnaOptions: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        colorBorder = try o.string("color_border"); colorBorderSelected = try o.string("color_border_selected")
        colorDetails = try o.string("color_details"); colorText = try o.string("color_text")
        radiusBorder = try o.string("radius_border")
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("color_border", colorBorder); w.add("color_border_selected", colorBorderSelected)
        w.add("color_details", colorDetails); w.add("color_text", colorText); w.add("radius_border", radiusBorder)
        return w.json
    }
}

extension KlarnaAttachment: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        body = try o.string("body"); contentType = try o.string("content_type")
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("body", body); w.add("content_type", contentType)
        return w.json
    }
}

extension KlarnaProductIdentifiers: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        brand = try o.string("brand"); categoryPath = try o.string("category_path")
        globalTradeItemNumber = try o.string("global_trade_item_number")
        manufacturerPartNumber = try o.string("manufacturer_part_number"); color = try o.string("color"); size = try o.string("size")
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("brand", brand); w.add("category_path", categoryPath); w.add("color", color)
        w.add("global_trade_item_number", globalTradeItemNumber); w.add("manufacturer_part_number", manufacturerPartNumber)
        w.add("size", size)
        return w.json
    }
}

extension KlarnaSubscription: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        name = try o.string("name"); interval = try o.string("interval"); intervalCount = try o.int("interval_count")
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("interval", interval); w.add("interval_count", intervalCount); w.add("name", name)
        return w.json
    }
}

extension KlarnaOrderLine: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        // Read in this order: the first member of the wrong type is the one named.
        var extras = Extras()
        type = try o.string("type"); reference = try o.string("reference"); name = try o.string("name")
        quantity = try o.int("quantity"); extras.quantityUnit = try o.string("quantity_unit")
        unitPrice = try o.int("unit_price"); taxRate = try o.int("tax_rate"); totalAmount = try o.int("total_amount")
        totalDiscountAmount = try o.int("total_discount_amount"); totalTaxAmount = try o.int("total_tax_amount")
        extras.merchantData = try o.string("merchant_data"); extras.productUrl = try o.string("product_url")
        extras.imageUrl = try o.string("image_url")
        extras.productIdentifiers = try o.object("product_identifiers"); extras.subscription = try o.object("subscription")
        setExtras(extras)
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("image_url", imageUrl); w.add("merchant_data", merchantData); w.add("name", name)
        w.add("product_identifiers", productIdentifiers); w.add("product_url", productUrl); w.add("quantity", quantity)
        w.add("quantity_unit", quantityUnit); w.add("reference", reference); w.add("subscription", subscription)
        w.add("tax_rate", taxRate); w.add("total_amount", totalAmount); w.add("total_discount_amount", totalDiscountAmount)
        w.add("total_tax_amount", totalTaxAmount); w.add("type", type); w.add("unit_price", unitPrice)
        return w.json
    }
}

extension KlarnaSessionFields: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        self.init()
        purchaseCountry = try o.string("purchase_country"); purchaseCurrency = try o.string("purchase_currency")
        locale = try o.string("locale"); orderAmount = try o.int("order_amount"); orderTaxAmount = try o.int("order_tax_amount")
        orderLines = try o.objects("order_lines")
        billingAddress = try o.object("billing_address"); shippingAddress = try o.object("shipping_address")
        customer = try o.object("customer"); merchantUrls = try o.object("merchant_urls")
        merchantReference1 = try o.string("merchant_reference1"); merchantReference2 = try o.string("merchant_reference2")
        merchantData = try o.string("merchant_data"); attachment = try o.object("attachment"); options = try o.object("options")
        acquiringChannel = try o.string("acquiring_channel"); intent = try o.string("intent")
        customPaymentMethodIds = try o.strings("custom_payment_method_ids"); design = try o.string("design")
    }

    /// The members of a session, for ``json`` and for `session_read`.
    func write(into w: inout KlarnaJSONWriter) {
        w.add("acquiring_channel", acquiringChannel); w.add("attachment", attachment); w.add("billing_address", billingAddress)
        w.add("custom_payment_method_ids", customPaymentMethodIds); w.add("customer", customer); w.add("design", design)
        w.add("intent", intent); w.add("locale", locale); w.add("merchant_data", merchantData)
        w.add("merchant_reference1", merchantReference1); w.add("merchant_reference2", merchantReference2)
        w.add("merchant_urls", merchantUrls); w.add("options", options); w.add("order_amount", orderAmount)
        w.add("order_lines", orderLines); w.add("order_tax_amount", orderTaxAmount); w.add("purchase_country", purchaseCountry)
        w.add("purchase_currency", purchaseCurrency); w.add("shipping_address", shippingAddress)
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        write(into: &w)
        return w.json
    }

    /// The member `key` of ``json`` (nil when it has none); the addresses, which scenario conditions look at, made alone.
    func jsonMember(_ key: String) -> JSONText? {
        switch key {
        case "billing_address": return billingAddress?.json
        case "shipping_address": return shippingAddress?.json
        default:
            guard case .object(let members) = json else { return nil }
            return members.last { $0.0 == key }?.1
        }
    }
}

extension KlarnaCreateOrderRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        purchaseCountry = try o.string("purchase_country"); purchaseCurrency = try o.string("purchase_currency")
        locale = try o.string("locale"); orderAmount = try o.int("order_amount"); orderTaxAmount = try o.int("order_tax_amount")
        orderLines = try o.objects("order_lines")
        billingAddress = try o.object("billing_address"); shippingAddress = try o.object("shipping_address")
        customer = try o.object("customer"); merchantUrls = try o.object("merchant_urls")
        merchantReference1 = try o.string("merchant_reference1"); merchantReference2 = try o.string("merchant_reference2")
        merchantData = try o.string("merchant_data"); customPaymentMethodIds = try o.strings("custom_payment_method_ids")
        autoCapture = try o.bool("auto_capture")
    }
}

extension KlarnaCustomerTokenRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        description = try o.string("description"); intendedUse = try o.string("intended_use"); locale = try o.string("locale")
        purchaseCountry = try o.string("purchase_country"); purchaseCurrency = try o.string("purchase_currency")
        billingAddress = try o.object("billing_address"); customer = try o.object("customer")
    }
}

extension KlarnaAssetURLs: KlarnaJSONEncodable {
    var json: JSONText { .object([("descriptive", .string(descriptive)), ("standard", .string(standard))]) }
}

extension KlarnaPaymentMethodCategory: KlarnaJSONEncodable {
    var json: JSONText { .object([("asset_urls", assetUrls.json), ("identifier", .string(identifier)), ("name", .string(name))]) }
}

extension KlarnaMerchantSession: KlarnaJSONEncodable {
    var json: JSONText {
        .object([("client_token", .string(clientToken)), ("payment_method_categories", .array(paymentMethodCategories.map(\.json))),
                 ("session_id", .string(sessionId))])
    }
}

extension KlarnaMerchantSession {
    /// The categories a sandbox offers unless configured otherwise, and their JSON, written once.
    private static let defaultCategories = KlarnaPaymentsConfiguration().paymentMethodCategories
    private static let defaultCategoriesJSON = JSONText.array(defaultCategories.map(\.json)).bytes

    /// ``json``'s bytes, written directly: the answer to every session created.
    var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(clientToken.utf8.count + 320)
        // A token is base64url and dots (ClientToken.make): nothing to escape, copied without a look.
        out.append(contentsOf: #"{"client_token":""#.utf8)
        out.append(contentsOf: clientToken.utf8)
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: #","payment_method_categories":"#.utf8)
        if paymentMethodCategories == KlarnaMerchantSession.defaultCategories {
            out.append(contentsOf: KlarnaMerchantSession.defaultCategoriesJSON)
        } else {
            JSONText.array(paymentMethodCategories.map(\.json)).write(into: &out)
        }
        out.append(contentsOf: #","session_id":"#.utf8)
        KlarnaJSONBytes.appendString(sessionId, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension KlarnaSessionRead: KlarnaJSONEncodable {
    /// `session_read`: the stored fields as the customer may see them, plus the read-only ones.
    var json: JSONText {
        var shown = fields
        shown.customer = fields.customer?.forReading
        var w = KlarnaJSONWriter()
        shown.write(into: &w)
        w.add("authorization_token", authorizationToken)
        w.add("client_token", clientToken)
        w.add("expires_at", KlarnaJSON.timestamp(expiresAt))
        w.add("payment_method_categories", paymentMethodCategories)
        w.add("status", status)
        return w.json
    }
}

extension KlarnaAuthorizedPaymentMethod: KlarnaJSONEncodable {
    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("number_of_days", numberOfDays); w.add("number_of_installments", numberOfInstallments); w.add("type", type)
        return w.json
    }
}

extension KlarnaOrder: KlarnaJSONEncodable {
    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("authorized_payment_method", authorizedPaymentMethod); w.add("fraud_status", fraudStatus)
        w.add("order_id", orderId); w.add("redirect_url", redirectUrl)
        return w.json
    }
}

extension KlarnaCustomerToken: KlarnaJSONEncodable {
    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("billing_address", billingAddress); w.add("customer", customer)
        w.add("payment_method_reference", paymentMethodReference); w.add("redirect_url", redirectUrl); w.add("token_id", tokenId)
        return w.json
    }
}
