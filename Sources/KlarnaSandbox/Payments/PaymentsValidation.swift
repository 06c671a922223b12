// SPDX-License-Identifier: MIT
import Foundation

/// Klarna Payments' request validation as pure functions (klarna-api.md §2.1, §2.5, §2.7, §2.9, §3.1;
/// constraints from the `payments-v1` OpenAPI export: `session_create`, `order_line`, `address`, `customer`,
/// `merchant_urls`, `options`, `attachment`, `create_order_request`, `customer_token_creation_request`).
///
/// Every check throws the FIRST violation found as 400 `BAD_VALUE` "Bad value: <json.path>", in this order:
///  1. required top-level fields, in the docs' field order (§2.1 / §2.7 tables);
///  2. formats and ranges of the top-level fields, field by field in the docs' field order (the same order as
///     the Swift models), descending into `billing_address`, `shipping_address`, `customer`, `merchant_urls`,
///     `attachment`, `options` as they come; `order_lines` here only for its item count;
///  3. the order lines in index order: each line's required fields, then its formats and ranges;
///  4. arithmetic: every line's `total_amount` (§2.9 rule 2), then `order_amount` (rule 3), then every line's
///     `total_tax_amount` (rule 4), then `order_tax_amount` (rules 5 and 6);
///  5. market consistency: `purchase_country` known, then `purchase_currency`, then `locale` (rule 7).
///
/// Lengths are counted in Unicode scalars (JSON Schema's `maxLength` semantics, which is what the oracle
/// validator applies); Klarna's own counting (probably UTF-16 units) is not documented.
enum PaymentsValidation {

    // MARK: - Public entry points

    /// Create session (required: purchase_country, purchase_currency, order_amount, order_lines) or, with
    /// `isUpdate: true`, the merged session after an update (same rules; the merged session must still be complete).
    /// `isUpdate` changes nothing today: Klarna "takes any updated data as a new session to validate" (§2.3), so
    /// the merged session is held to the create rules. The flag keeps call sites explicit should that change.
    static func validateSession(_ fields: KlarnaSessionFields, isUpdate: Bool = false) throws(KlarnaError) {
        // 1. Required (`session_create.required`, listed in the docs' order).
        try require(fields.purchaseCountry, "purchase_country")
        try require(fields.purchaseCurrency, "purchase_currency")
        try require(fields.orderAmount, "order_amount")
        guard let lines = fields.orderLines else { throw .badValue("order_lines") }

        // 2. Top-level formats and ranges.
        try checkCountry(fields.purchaseCountry, "purchase_country")
        try checkCurrency(fields.purchaseCurrency, "purchase_currency")
        try checkLocale(fields.locale, "locale")
        try checkMinimum(fields.orderAmount, 0, "order_amount")          // int64, minimum 0
        try checkMinimum(fields.orderTaxAmount, 0, "order_tax_amount")   // int64, minimum 0
        guard (1...1000).contains(lines.count) else { throw .badValue("order_lines") } // minItems 1, maxItems 1000
        try checkAddress(fields.billingAddress, "billing_address")
        try checkAddress(fields.shippingAddress, "shipping_address")
        try checkCustomer(fields.customer, "customer")
        try checkMerchantURLs(fields.merchantUrls, "merchant_urls")
        try checkLength(fields.merchantReference1, max: 255, "merchant_reference1")
        try checkLength(fields.merchantReference2, max: 255, "merchant_reference2")
        try checkLength(fields.merchantData, max: 6000, "merchant_data")
        try checkAttachment(fields.attachment, "attachment")
        try checkOptions(fields.options, "options")
        try checkEnum(fields.acquiringChannel, acquiringChannels, "acquiring_channel")
        try checkEnum(fields.intent, intents, "intent")
        // custom_payment_method_ids (string[]) and design (string) carry no constraint in the schema.

        // 3. Order lines, in index order.
        for (index, line) in lines.enumerated() {
            try checkOrderLine(line, "order_lines[\(index)]")  // the path is written out only for an error
        }

        // 4. Arithmetic (§2.9 rules 2-6).
        try checkArithmetic(lines, orderAmount: fields.orderAmount ?? 0, orderTaxAmount: fields.orderTaxAmount)

        // 5. Market (§2.9 rule 7).
        try checkMarket(country: fields.purchaseCountry, currency: fields.purchaseCurrency, locale: fields.locale)
    }

    /// `create_order_request`: the session rules over the fields an order carries (no attachment, options,
    /// acquiring_channel, intent or design; `auto_capture` is a plain boolean the decoder already checked).
    static func validateCreateOrder(_ request: KlarnaCreateOrderRequest) throws(KlarnaError) {
        try validateSession(request.sessionFields)
    }

    /// `customer_token_creation_request` (§2.7): required description (1..255), intended_use (enum SUBSCRIPTION),
    /// locale, purchase_country, purchase_currency; optional billing_address and customer; then the market check.
    static func validateCustomerToken(_ request: KlarnaCustomerTokenRequest) throws(KlarnaError) {
        // Required, in the docs' (and schema's) order.
        try require(request.description, "description")
        try require(request.intendedUse, "intended_use")
        try require(request.locale, "locale")
        try require(request.purchaseCountry, "purchase_country")
        try require(request.purchaseCurrency, "purchase_currency")
        // Formats.
        try checkLength(request.description, min: 1, max: 255, "description")
        try checkEnum(request.intendedUse, ["SUBSCRIPTION"], "intended_use")
        try checkLocale(request.locale, "locale")
        try checkCountry(request.purchaseCountry, "purchase_country")
        try checkCurrency(request.purchaseCurrency, "purchase_currency")
        try checkAddress(request.billingAddress, "billing_address")
        try checkCustomer(request.customer, "customer")
        // Market.
        try checkMarket(country: request.purchaseCountry, currency: request.purchaseCurrency, locale: request.locale)
    }

    /// The create-order consistency check of §2.9 rule 8: what was authorized vs what the order sends.
    /// nil when they match; otherwise KlarnaError.notMatching(...) with Klarna's messages, e.g.
    /// ["billing_address.postal_code"] or ["Incorrect number of items in the cart. Expected: 2, Actual: 3"].
    ///
    /// Message order: billing_address fields (schema order), shipping_address fields, order lines, then
    /// order_amount, purchase_currency, purchase_country.
    static func mismatch(authorized: KlarnaSessionFields, order: KlarnaSessionFields) -> KlarnaError? {
        var fields: [String] = []
        fields += addressMismatches(authorized: authorized.billingAddress, order: order.billingAddress, "billing_address")
        fields += addressMismatches(authorized: authorized.shippingAddress, order: order.shippingAddress, "shipping_address")

        // "This object is treated as a list" (validations page): a different length is reported as one message
        // (krokedil/klarna-payments-for-woocommerce#169); otherwise line by line, field by field.
        let authorizedLines = authorized.orderLines ?? []
        let orderLines = order.orderLines ?? []
        if authorizedLines.count != orderLines.count {
            fields.append("Incorrect number of items in the cart. Expected: \(authorizedLines.count), Actual: \(orderLines.count)")
        } else if authorizedLines != orderLines {  // equal lines differ in no field
            for (index, pair) in zip(authorizedLines, orderLines).enumerated() {
                fields += lineMismatches(authorized: pair.0, order: pair.1, "order_lines[\(index)]")
            }
        }

        // Inference (klarna-api.md §2.9 rule 8, §9.2): the docs only name addresses and order lines; amount,
        // currency and country mismatches are assumed to be reported the same way, named by field.
        // A changed cart changes its amount too; the one real sample (#169) names only the count.
        if authorized.orderAmount != order.orderAmount && authorizedLines.count == orderLines.count { fields.append("order_amount") }
        if !sameIgnoringCase(authorized.purchaseCurrency, order.purchaseCurrency) { fields.append("purchase_currency") }
        if !sameIgnoringCase(authorized.purchaseCountry, order.purchaseCountry) { fields.append("purchase_country") }

        return fields.isEmpty ? nil : .notMatching(fields)
    }

    /// Klarna's purchase country -> currency and locales table (§2.9 rule 7), for validation and for tests.
    /// Keys are upper-case ISO 3166 alpha-2 codes; lookups are case-insensitive (see `market(for:)`).
    static let markets: [String: (currency: String, locales: [String])] = [
        // Rows from the docs table (first rows retrieved) and the 2023 spec's locale description.
        "AU": ("AUD", ["en-AU"]),
        "AT": ("EUR", ["de-AT", "en-AT", "de-DE", "en-DE"]),   // de-DE, en-DE: listed for AT by the 2023 spec
        "BE": ("EUR", ["nl-BE", "fr-BE", "en-BE"]),
        "CA": ("CAD", ["en-CA", "fr-CA"]),                     // fr-CA acceptance unverified (§9.8)
        "CZ": ("CZK", ["cs-CZ", "en-CZ"]),
        "DK": ("DKK", ["da-DK", "en-DK"]),
        "FI": ("EUR", ["fi-FI", "sv-FI", "en-FI"]),
        "FR": ("EUR", ["fr-FR", "en-FR"]),
        "DE": ("EUR", ["de-DE", "en-DE", "de-AT"]),            // de-AT: listed for DE by the spec
        "GR": ("EUR", ["el-GR", "en-GR"]),
        "ES": ("EUR", ["es-ES", "ca-ES", "en-ES"]),
        "GB": ("GBP", ["en-GB"]),
        "IT": ("EUR", ["it-IT", "en-IT"]),
        "NL": ("EUR", ["nl-NL", "en-NL"]),
        "NO": ("NOK", ["nb-NO", "en-NO"]),
        "PL": ("PLN", ["pl-PL", "en-PL"]),
        "SE": ("SEK", ["sv-SE", "en-SE"]),
        "CH": ("CHF", ["de-CH", "fr-CH", "it-CH", "en-CH"]),
        "US": ("USD", ["en-US", "es-US"]),                     // es-US unverified (§2.9 rule 7, §9.8): accepted
        // Inferred rows (§2.9 rule 7: "table not retrieved; inferred"): the local language plus English.
        "IE": ("EUR", ["en-IE"]),
        "PT": ("EUR", ["pt-PT", "en-PT"]),
        "HU": ("HUF", ["hu-HU", "en-HU"]),
        "RO": ("RON", ["ro-RO", "en-RO"]),
        "SK": ("EUR", ["sk-SK", "en-SK"]),
        "MX": ("MXN", ["es-MX", "en-MX"]),
        "NZ": ("NZD", ["en-NZ"]),
    ]

    /// The market of a purchase country, case-insensitively ("gb" is GB: the schema's regex accepts either case).
    static func market(for country: String) -> (currency: String, locales: [String])? {
        markets[KlarnaJSONBytes.uppercased(country)]
    }

    // MARK: - Schema-level checks
    // Paths are autoclosures: they are written out only for the error, not for every check that passes.

    private static func require<T>(_ value: T?, _ path: @autoclosure () -> String) throws(KlarnaError) {
        // The message for a missing required field is not documented (§2.9 rule 1, §9.1): `Bad value: <field>`.
        if value == nil { throw .badValue(path()) }
    }

    private static func checkLength(_ value: String?, min: Int = 0, max: Int, _ path: @autoclosure () -> String) throws(KlarnaError) {
        guard let value else { return }
        // A scalar is 1 to 4 UTF-8 bytes: most texts are within the bounds by their byte count alone.
        let bytes = value.utf8.count
        if bytes <= max && (bytes + 3) / 4 >= min { return }
        let length = value.unicodeScalars.count
        if length < min || length > max { throw .badValue(path()) }
    }

    private static func checkMinimum(_ value: Int?, _ minimum: Int, _ path: @autoclosure () -> String) throws(KlarnaError) {
        if let value, value < minimum { throw .badValue(path()) }
    }

    private static func checkMaximum(_ value: Int?, _ maximum: Int, _ path: @autoclosure () -> String) throws(KlarnaError) {
        if let value, value > maximum { throw .badValue(path()) }
    }

    private static func checkEnum(_ value: String?, _ allowed: Set<String>, _ path: @autoclosure () -> String) throws(KlarnaError) {
        // Enums are case-sensitive, as JSON Schema's `enum` is.
        if let value, !allowed.contains(value) { throw .badValue(path()) }
    }

    /// `^[A-Za-z]{2,2}$`
    private static func checkCountry(_ value: String?, _ path: @autoclosure () -> String) throws(KlarnaError) {
        if let value, !isASCIILetters(value, count: 2) { throw .badValue(path()) }
    }

    /// `^[A-Za-z]{3,3}$`
    private static func checkCurrency(_ value: String?, _ path: @autoclosure () -> String) throws(KlarnaError) {
        if let value, !isASCIILetters(value, count: 3) { throw .badValue(path()) }
    }

    /// `^[A-Za-z]{2,2}(?:-[A-Za-z]{2,2})*$`
    private static func checkLocale(_ value: String?, _ path: @autoclosure () -> String) throws(KlarnaError) {
        guard let value else { return }
        // Byte by byte: letters at every offset but 2, 5, 8, … (a dash), 2 + 3n bytes in all.
        let utf8 = value.utf8
        guard utf8.count % 3 == 2 else { throw .badValue(path()) }
        for (offset, byte) in utf8.enumerated() {
            let isLetter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            if offset % 3 == 2 ? byte != UInt8(ascii: "-") : !isLetter { throw .badValue(path()) }
        }
    }

    private static func isASCIILetters<S: StringProtocol>(_ text: S, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// `address`: every text field ≤ 99 except `postal_code` ≤ 10 and `title` ≤ 20; `country` `^[A-Za-z]{2,2}$`.
    /// Checked in the schema's field order.
    private static func checkAddress(_ address: KlarnaAddress?, _ path: String) throws(KlarnaError) {
        guard let address else { return }
        try checkLength(address.attention, max: 99, "\(path).attention")
        try checkLength(address.city, max: 99, "\(path).city")
        try checkCountry(address.country, "\(path).country")
        try checkLength(address.email, max: 99, "\(path).email")
        try checkLength(address.familyName, max: 99, "\(path).family_name")
        try checkLength(address.givenName, max: 99, "\(path).given_name")
        try checkLength(address.organizationName, max: 99, "\(path).organization_name")
        try checkLength(address.phone, max: 99, "\(path).phone")
        try checkLength(address.postalCode, max: 10, "\(path).postal_code")
        try checkLength(address.region, max: 99, "\(path).region")
        try checkLength(address.streetAddress, max: 99, "\(path).street_address")
        try checkLength(address.streetAddress2, max: 99, "\(path).street_address2")
        try checkLength(address.title, max: 20, "\(path).title")
    }

    /// `customer`: `last_four_ssn` `^([0-9]{4}|[0-9]{9})$`, `organization_entity_type` enum,
    /// `type` `^(person|organization)$`. The other fields have no machine-readable constraint (date_of_birth's
    /// yyyy-mm-dd and gender's male/female are prose only, so they are not enforced).
    private static func checkCustomer(_ customer: KlarnaCustomer?, _ path: String) throws(KlarnaError) {
        guard let customer else { return }
        if let ssn = customer.lastFourSsn {
            let bytes = Array(ssn.utf8)
            if !(bytes.count == 4 || bytes.count == 9) || !bytes.allSatisfy({ (0x30...0x39).contains($0) }) {
                throw .badValue("\(path).last_four_ssn")
            }
        }
        try checkEnum(customer.organizationEntityType, organizationEntityTypes, "\(path).organization_entity_type")
        try checkEnum(customer.type, customerTypes, "\(path).type")
    }

    /// `merchant_urls`: confirmation, notification, push, authorization ≤ 2000 each (`app_return_url`, newest view
    /// only, has no limit), and each an absolute URL
    /// (MerchantURL, before it reaches the redirect's `Location` or a callback; inferred): the consumer's
    /// `confirmation` and `app_return_url` may use an app's scheme, the server callbacks http(s) only.
    /// Klarna's `{session.id}` / `{order.id}` placeholders (§2.1) are accepted.
    private static func checkMerchantURLs(_ urls: KlarnaMerchantURLs?, _ path: String) throws(KlarnaError) {
        guard let urls else { return }
        func check(_ url: String?, _ name: String, _ rules: MerchantURL.Rules, maxLength: Int = 2000) throws(KlarnaError) {
            try checkLength(url, max: maxLength, "\(path).\(name)")
            if let url, !MerchantURL.isValid(url, rules: rules.withPlaceholders()) { throw .badValue("\(path).\(name)") }
        }
        try check(urls.confirmation, "confirmation", .redirect)
        try check(urls.notification, "notification", .web)
        try check(urls.push, "push", .web)
        try check(urls.authorization, "authorization", .web)
        try check(urls.appReturnUrl, "app_return_url", .redirect, maxLength: .max)
    }

    /// `attachment`: `body` and `content_type` both required. Beyond the schema: the body "should be an object …
    /// serialized to JSON"; one that is not a JSON object is answered `Bad value: attachment.attachment`, the
    /// message Klarna's error table lists (§3.1; Adyen's raw-response table ties it to malformed extra merchant
    /// data). That mapping is an inference.
    private static func checkAttachment(_ attachment: KlarnaAttachment?, _ path: String) throws(KlarnaError) {
        guard let attachment else { return }
        guard let body = attachment.body else { throw .badValue("\(path).body") }
        guard attachment.contentType != nil else { throw .badValue("\(path).content_type") }
        if (try? JSONDocument.parse(body))?.members == nil { throw .badValue("\(path).attachment") }
    }

    /// `options`: the four colours `^#[A-Fa-f0-9]{6}$`; `radius_border` is unconstrained.
    private static func checkOptions(_ options: KlarnaOptions?, _ path: String) throws(KlarnaError) {
        guard let options else { return }
        func checkColor(_ value: String?, _ name: String) throws(KlarnaError) {
            guard let value else { return }
            let bytes = Array(value.utf8)
            let isHex: (UInt8) -> Bool = { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
            if bytes.count != 7 || bytes[0] != UInt8(ascii: "#") || !bytes.dropFirst().allSatisfy(isHex) {
                throw .badValue("\(path).\(name)")
            }
        }
        try checkColor(options.colorBorder, "color_border")
        try checkColor(options.colorBorderSelected, "color_border_selected")
        try checkColor(options.colorDetails, "color_details")
        try checkColor(options.colorText, "color_text")
    }

    // The enums' values, made once (a set literal at the call would be built on every check).
    private static let acquiringChannels: Set<String> = ["ECOMMERCE", "IN_STORE", "TELESALES"]
    private static let intents: Set<String> = ["buy", "tokenize", "buy_and_tokenize"]
    private static let organizationEntityTypes: Set<String> = [
        "LIMITED_COMPANY", "PUBLIC_LIMITED_COMPANY", "ENTREPRENEURIAL_COMPANY", "LIMITED_PARTNERSHIP_LIMITED_COMPANY",
        "LIMITED_PARTNERSHIP", "GENERAL_PARTNERSHIP", "REGISTERED_SOLE_TRADER", "SOLE_TRADER",
        "CIVIL_LAW_PARTNERSHIP", "PUBLIC_INSTITUTION", "OTHER",
    ]
    private static let customerTypes: Set<String> = ["person", "organization"]
    private static let subscriptionIntervals: Set<String> = ["DAY", "WEEK", "MONTH", "YEAR"]

    /// The order line types KP knows (§2.1). The KP schema has them in prose only; OM's pattern adds `return_fee`,
    /// which KP does not take.
    static let orderLineTypes: Set<String> = [
        "physical", "discount", "shipping_fee", "sales_tax", "digital", "gift_card", "store_credit", "surcharge",
    ]

    /// `order_line`: required name, quantity, unit_price, total_amount; then the fields in the docs' order.
    /// `unit_price`, `total_amount` and `total_tax_amount` have no minimum (discount lines are negative).
    private static func checkOrderLine(_ line: KlarnaOrderLine, _ linePath: @autoclosure () -> String) throws(KlarnaError) {
        var path: String { linePath() }
        try require(line.name, "\(path).name")
        try require(line.quantity, "\(path).quantity")
        try require(line.unitPrice, "\(path).unit_price")
        try require(line.totalAmount, "\(path).total_amount")

        try checkEnum(line.type, orderLineTypes, "\(path).type")
        try checkLength(line.reference, max: 255, "\(path).reference")
        try checkLength(line.name, min: 1, max: 255, "\(path).name")
        try checkMinimum(line.quantity, 0, "\(path).quantity")
        try checkLength(line.quantityUnit, min: 1, max: 8, "\(path).quantity_unit")
        // Maxima of the 2023 exports (100000000); the newest APIMatic view says 200000000 (§2.1).
        try checkMaximum(line.unitPrice, 100_000_000, "\(path).unit_price")
        try checkMinimum(line.taxRate, 0, "\(path).tax_rate")
        try checkMaximum(line.taxRate, 10_000, "\(path).tax_rate")
        try checkMaximum(line.totalAmount, 100_000_000, "\(path).total_amount")
        try checkMinimum(line.totalDiscountAmount, 0, "\(path).total_discount_amount")
        try checkLength(line.merchantData, max: 1024, "\(path).merchant_data")
        try checkLength(line.productUrl, max: 1024, "\(path).product_url")
        try checkLength(line.imageUrl, max: 1024, "\(path).image_url")
        if let identifiers = line.productIdentifiers {
            let prefix = "\(path).product_identifiers"
            try checkLength(identifiers.brand, max: 70, "\(prefix).brand")
            try checkLength(identifiers.categoryPath, max: 750, "\(prefix).category_path")
            try checkLength(identifiers.globalTradeItemNumber, max: 50, "\(prefix).global_trade_item_number")
            try checkLength(identifiers.manufacturerPartNumber, max: 70, "\(prefix).manufacturer_part_number")
            try checkLength(identifiers.color, max: 64, "\(prefix).color")
            try checkLength(identifiers.size, max: 64, "\(prefix).size")
        }
        if let subscription = line.subscription {
            // `subscription`: name (1..255), interval (DAY|WEEK|MONTH|YEAR), interval_count (≥ 1), all required.
            let prefix = "\(path).subscription"
            try require(subscription.name, "\(prefix).name")
            try require(subscription.interval, "\(prefix).interval")
            try require(subscription.intervalCount, "\(prefix).interval_count")
            try checkLength(subscription.name, min: 1, max: 255, "\(prefix).name")
            try checkEnum(subscription.interval, subscriptionIntervals, "\(prefix).interval")
            try checkMinimum(subscription.intervalCount, 1, "\(prefix).interval_count")
        }
    }

    // MARK: - Arithmetic (§2.9 rules 2-6)

    /// All arithmetic is overflow-checked: amounts are Int (int64 on the wire) and the schema sets no lower bound
    /// on unit_price/total_amount/total_tax_amount, so products and sums can overflow; an overflow is reported
    /// as the rule's own `Bad value`. The rules run in order, the first broken one answers.
    private static func checkArithmetic(_ lines: [KlarnaOrderLine], orderAmount: Int, orderTaxAmount: Int?) throws(KlarnaError) {
        try checkLineTotals(lines)
        try checkOrderAmount(lines, orderAmount: orderAmount)
        try checkLineTaxes(lines)
        // Rules 5 and 6: order_tax_amount, when present.
        guard let orderTaxAmount else { return }
        if lines.contains(where: { $0.type == "sales_tax" }) {
            try checkSalesTax(lines, orderTaxAmount: orderTaxAmount)
        } else {
            try checkOrderTaxAmount(lines, orderTaxAmount: orderTaxAmount)
        }
    }

    /// Rule 2: total_amount = quantity × unit_price − total_discount_amount (spec description of total_amount).
    private static func checkLineTotals(_ lines: [KlarnaOrderLine]) throws(KlarnaError) {
        for (index, line) in lines.enumerated() {
            let gross = (line.quantity ?? 0).multipliedReportingOverflow(by: line.unitPrice ?? 0)
            let net = gross.partialValue.subtractingReportingOverflow(line.totalDiscountAmount ?? 0)
            if gross.overflow || net.overflow || net.partialValue != line.totalAmount {
                throw .badValue("order_lines[\(index)].total_amount")
            }
        }
    }

    /// Rule 3: order_amount = Σ total_amount (a US `sales_tax` line is one of the lines).
    private static func checkOrderAmount(_ lines: [KlarnaOrderLine], orderAmount: Int) throws(KlarnaError) {
        var sum = 0
        for line in lines {
            let next = sum.addingReportingOverflow(line.totalAmount ?? 0)
            if next.overflow { throw .badValue("order_amount") }
            sum = next.partialValue
        }
        if sum != orderAmount { throw .badValue("order_amount") }
    }

    /// Rule 4 (global style): when tax_rate > 0, total_tax_amount must be within ±1 of
    /// total_amount − total_amount × 10000 / (10000 + tax_rate), i.e. of total_amount × tax_rate / (10000 + tax_rate).
    /// Compared exactly in integers: |T·(10000 + r) − A·r| ≤ 10000 + r (no rounding of the expected value).
    /// Decision: an absent total_tax_amount counts as 0 (as it does in the order sum), so a taxed line without
    /// it is rejected unless its tax rounds to at most 1 minor unit. Lines with tax_rate absent or 0 (US style,
    /// and untaxed goods) get no per-line check.
    private static func checkLineTaxes(_ lines: [KlarnaOrderLine]) throws(KlarnaError) {
        for (index, line) in lines.enumerated() {
            guard let rate = line.taxRate, rate > 0 else { continue }
            let amount = line.totalAmount ?? 0
            let tax = line.totalTaxAmount ?? 0
            let denominator = 10_000 + rate
            let left = tax.multipliedReportingOverflow(by: denominator)
            let right = amount.multipliedReportingOverflow(by: rate)
            let difference = left.partialValue.subtractingReportingOverflow(right.partialValue)
            if left.overflow || right.overflow || difference.overflow
                || difference.partialValue.magnitude > UInt(denominator) {
                throw .badValue("order_lines[\(index)].total_tax_amount")
            }
        }
    }

    /// Rule 6 (US style): order_tax_amount is the total_amount of the sales_tax line(s); exact, no tolerance.
    private static func checkSalesTax(_ lines: [KlarnaOrderLine], orderTaxAmount: Int) throws(KlarnaError) {
        var expected = 0
        for line in lines where line.type == "sales_tax" {
            let next = expected.addingReportingOverflow(line.totalAmount ?? 0)
            if next.overflow { throw .badValue("order_tax_amount") }
            expected = next.partialValue
        }
        if expected != orderTaxAmount { throw .badValue("order_tax_amount") }
    }

    /// Rule 5 (global style): Σ total_tax_amount − Σ quantity ≤ order_tax_amount ≤ Σ total_tax_amount + Σ quantity.
    /// The docs' worked example: two lines of quantity 1, (9917 + 483) − 2 ≤ 10400 ≤ (9917 + 483) + 2.
    /// The tolerance is the sum of the quantities of all lines ("±Items Quantity"); an absent
    /// total_tax_amount counts as 0.
    private static func checkOrderTaxAmount(_ lines: [KlarnaOrderLine], orderTaxAmount: Int) throws(KlarnaError) {
        var taxSum = 0
        var tolerance = 0
        for line in lines {
            let nextTax = taxSum.addingReportingOverflow(line.totalTaxAmount ?? 0)
            if nextTax.overflow { throw .badValue("order_tax_amount") }
            taxSum = nextTax.partialValue
            let nextQuantity = tolerance.addingReportingOverflow(line.quantity ?? 0)
            tolerance = nextQuantity.overflow ? Int.max : nextQuantity.partialValue  // quantities are ≥ 0 here
        }
        let difference = orderTaxAmount.subtractingReportingOverflow(taxSum)
        if difference.overflow || difference.partialValue.magnitude > UInt(tolerance) {
            throw .badValue("order_tax_amount")
        }
    }

    // MARK: - Market (§2.9 rule 7)

    /// Unknown country → `purchase_country`; currency other than the country's → `purchase_currency`;
    /// a locale (when present) not among the country's → `locale`. All comparisons are case-insensitive.
    private static func checkMarket(country: String?, currency: String?, locale: String?) throws(KlarnaError) {
        guard let country, let market = market(for: country) else { throw .badValue("purchase_country") }
        if !sameIgnoringCase(currency, market.currency) { throw .badValue("purchase_currency") }
        if let locale, !market.locales.contains(where: { sameIgnoringCase($0, locale) }) {
            throw .badValue("locale")
        }
    }

    // MARK: - Mismatch helpers (§2.9 rule 8)

    /// Address fields compared case-sensitively, except `country` (ISO code, either case accepted by the schema).
    /// "If you share customer details up until creating an order but not when getting authorization, an empty
    /// payload matches": with no authorized address (absent, or an object with no field set) the order's address
    /// is accepted. Otherwise every field is compared, absent vs present counting as different, in the schema's
    /// field order.
    private static func addressMismatches(authorized: KlarnaAddress?, order: KlarnaAddress?, _ path: String) -> [String] {
        // Equal addresses (the usual order) differ in no field.
        guard let authorized, authorized != KlarnaAddress(), authorized != order else { return [] }
        let order = order ?? KlarnaAddress()
        var differing: [String] = []
        for (name, field) in addressFields {
            let a = authorized[field]
            let b = order[field]
            let same = name == "country" ? sameIgnoringCase(a, b) : a == b
            if !same { differing.append("\(path).\(name)") }
        }
        return differing
    }

    /// The address fields in the schema's order, made once.
    private static let addressFields: [(String, KlarnaAddress.Field)] = [
        ("attention", .attention), ("city", .city), ("country", .country), ("email", .email),
        ("family_name", .familyName), ("given_name", .givenName), ("organization_name", .organizationName),
        ("phone", .phone), ("postal_code", .postalCode), ("region", .region),
        ("street_address", .streetAddress), ("street_address2", .streetAddress2), ("title", .title),
    ]

    /// Order line fields, in the docs' order. tax_rate, total_discount_amount and total_tax_amount count as 0
    /// when absent (so `0` and absent match); strings are case-sensitive; product_identifiers and subscription
    /// are compared as whole objects.
    private static func lineMismatches(authorized a: KlarnaOrderLine, order b: KlarnaOrderLine, _ path: String) -> [String] {
        var differing: [String] = []
        func compare(_ name: String, _ same: Bool) { if !same { differing.append("\(path).\(name)") } }
        compare("type", a.type == b.type)
        compare("reference", a.reference == b.reference)
        compare("name", a.name == b.name)
        compare("quantity", a.quantity == b.quantity)
        compare("quantity_unit", a.quantityUnit == b.quantityUnit)
        compare("unit_price", a.unitPrice == b.unitPrice)
        compare("tax_rate", (a.taxRate ?? 0) == (b.taxRate ?? 0))
        compare("total_amount", a.totalAmount == b.totalAmount)
        compare("total_discount_amount", (a.totalDiscountAmount ?? 0) == (b.totalDiscountAmount ?? 0))
        compare("total_tax_amount", (a.totalTaxAmount ?? 0) == (b.totalTaxAmount ?? 0))
        compare("merchant_data", a.merchantData == b.merchantData)
        compare("product_url", a.productUrl == b.productUrl)
        compare("image_url", a.imageUrl == b.imageUrl)
        compare("product_identifiers", a.productIdentifiers == b.productIdentifiers)
        compare("subscription", a.subscription == b.subscription)
        return differing
    }

    /// Case-insensitive equality of two optional codes (country, currency, locale); nil equals only nil.
    private static func sameIgnoringCase(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?): return a == b || a.lowercased() == b.lowercased()
        default: return false
        }
    }
}
