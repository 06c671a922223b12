// SPDX-License-Identifier: MIT
import Foundation

// Request bodies of the Payment Order API read from the parsed JSON tree (no Foundation coders), collecting one
// `problems[]` entry per violation, named `PaymentOrder.<PascalCase path>` as the reference's example
// `PaymentOrder.EnablePaymentDetailsConsentCheckbox` (swedbankpay-api.md §2.1; the other names are inferred).

/// One JSON object of a request body and its problem-name prefix: the shared ``JSONObjectReader`` with Swedbank
/// Pay's policy, which notes every wrong type and missing required field in ``problems`` (one `problems[]` entry
/// each) and reads them as nil.
struct SwedbankPayJSONReader {
    let reader: JSONObjectReader
    let path: String
    var problems: [SwedbankPayProblem.Detail] = []

    init(_ members: [JSONNode.Member], path: String) {
        self.reader = JSONObjectReader(members: members)
        self.path = path
    }

    func name(_ key: String) -> String { path + "." + key.prefix(1).uppercased() + key.dropFirst() }
    private static func field(_ key: String) -> String { key.prefix(1).uppercased() + key.dropFirst() }

    func node(_ key: String) -> JSONNode? { reader.node(key) }

    mutating func required(_ key: String) {
        problems.append(.init(name: name(key), description: "The \(Self.field(key)) field is required."))
    }

    mutating func wrongType(_ key: String, _ expected: String) {
        problems.append(.init(name: name(key), description: "The field \(Self.field(key)) must be \(expected)."))
    }

    /// The member's value; absent (noted when required) or of the wrong type (noted) is nil.
    /// (`read`: the reader's plain, non-generic read of `key`; `expected` is read only for a problem.)
    private mutating func value<Value>(_ key: String, _ read: JSONRead<Value>, _ field: @autoclosure () -> JSONField<Value>,
                                       required isRequired: Bool = false) -> Value? {
        switch read {
        case .absent:
            if isRequired { required(key) }
            return nil
        case .wrongType:
            wrongType(key, field().expected)
            return nil
        case .value(let value):
            return value
        }
    }

    mutating func string(_ key: String, required isRequired: Bool = false, maxLength: Int? = nil) -> String? {
        guard let string = value(key, reader.string(key), .string, required: isRequired) else { return nil }
        if isRequired && string.isEmpty { required(key); return nil }
        if let maxLength, string.count > maxLength {
            problems.append(.init(name: name(key), description: "The field \(Self.field(key)) must be a string with a maximum length of \(maxLength)."))
        }
        return string
    }

    /// Whole numbers only: `1.5` and `"15"` are type errors (swedbankpay-api.md §1.2: integers; strict types inferred).
    mutating func int(_ key: String, required isRequired: Bool = false) -> Int? { value(key, reader.integer(key), .integer, required: isRequired) }

    mutating func bool(_ key: String) -> Bool? { value(key, reader.bool(key), .bool) }

    mutating func strings(_ key: String, required isRequired: Bool = false) -> [String]? {
        guard let strings = value(key, reader.strings(key), .strings, required: isRequired) else { return nil }
        if isRequired && strings.isEmpty { required(key) }
        return strings
    }

    /// An absolute http(s) URL in ASCII, checked by MerchantURL before it can reach a `Location` header, a page or a
    /// script (inferred rule; `javascript:` and other schemes are refused).
    mutating func url(_ key: String, required isRequired: Bool = false) -> String? {
        guard let string = string(key, required: isRequired) else { return nil }
        if let violation = Self.urlViolation(string) {
            problems.append(.init(name: name(key), description: "The field \(Self.field(key)) must be an absolute http or https URL: \(violation)."))
        }
        return string
    }

    static func urlViolation(_ string: String) -> MerchantURL.Violation? { MerchantURL.violation(in: string, rules: .web) }

    /// A child object: nil (noted) when absent and required, or not an object.
    mutating func object(_ key: String, required isRequired: Bool = false) -> SwedbankPayJSONReader? {
        guard let object = value(key, reader.object(key), .object, required: isRequired) else { return nil }
        return SwedbankPayJSONReader(object.members, path: name(key))
    }

    mutating func absorb(_ child: SwedbankPayJSONReader?) { if let child { problems += child.problems } }
}

enum SwedbankPayOrderValidation {
    /// `language` values; anything else is stored as `en-US`, not rejected (swedbankpay-api.md §1.2).
    static let languages: Set<String> = ["da-DK", "de-DE", "et-EE", "en-US", "es-ES", "fi-FI", "fr-FR", "lt-LT", "lv-LV", "nb-NO",
                                         "pl-PL", "ru-RU", "sv-SE"]

    /// The body as a JSON object, else 400 naming `PaymentOrder` (inferred).
    static func parse(_ body: Data, name: String = "PaymentOrder") throws(SwedbankPayProblem) -> JSONNode {
        let document: JSONNode
        do {
            document = try JSONDocument.parse(body)
        } catch {
            throw .input([.init(name: name, description: "The request body is not a valid JSON object: \(error)")])
        }
        return try requireObject(document, name: name)
    }

    /// A parsed body that must be a JSON object, else 400 naming `name` (``parse(_:name:)``).
    static func requireObject(_ document: JSONNode, name: String = "PaymentOrder") throws(SwedbankPayProblem) -> JSONNode {
        guard document.members != nil else {
            throw .input([.init(name: name, description: "The request body is not a valid JSON object: it is \(document.kindName).")])
        }
        return document
    }

    /// The `paymentorder` object (also `paymentOrder`, inferred) of a POST or PATCH body.
    static func paymentOrderObject(_ document: JSONNode) throws(SwedbankPayProblem) -> JSONNode {
        guard let object = document["paymentorder"] ?? document["paymentOrder"], object.members != nil else {
            throw .input([.init(name: "PaymentOrder", description: "The PaymentOrder field is required.")])
        }
        return object
    }

    /// `POST /psp/paymentorders` (swedbankpay-api.md §1.2; other rules inferred). The fields are read, and their
    /// problems noted, in the order of the reference's table.
    static func createRequest(_ object: JSONNode, version: SwedbankPayAPIVersion, configuration: SwedbankPayConfiguration)
    throws(SwedbankPayProblem) -> SwedbankPayCreateOrderRequest {
        var reader = SwedbankPayJSONReader(object.members ?? [], path: "PaymentOrder")
        let operation = reader.string("operation", required: true)
        let orderOperation = operationRule(&reader, operation)
        let currency = reader.string("currency", required: true)
        if let currency, !currency.isEmpty, !configuration.currencies.contains(currency) {
            reader.problems.append(.init(name: "PaymentOrder.Currency", description: "The currency \(currency) is not supported."))
        }
        let (amount, vatAmount) = orderOperation == .verify ? verifyAmounts(&reader) : amounts(&reader)
        let description = reader.string("description", required: true)
        let userAgent = reader.string("userAgent", required: true)
        let language = reader.string("language", required: true)
        let productName = reader.string("productName")
        let implementation = reader.string("implementation")
        let urls = readURLs(&reader)
        let payeeInfo = readPayeeInfo(&reader)
        let payer = readPayer(&reader)
        let orderItems = validateOrderItems(&reader, amount: amount, vatAmount: vatAmount)
        let restricted = reader.strings("restrictedToInstruments")
        let instrument = reader.string("instrument")
        let (disableStored, consentCheckbox) = readStoredDetails(&reader)
        let metadata = reader.node("metadata")
        if let metadata, metadata.members == nil { reader.wrongType("metadata", "an object") }
        guard reader.problems.isEmpty, let operation, let currency, let amount, let vatAmount, let description, let userAgent, let language
        else { throw .input(reader.problems) }
        return SwedbankPayCreateOrderRequest(
            operation: operation, currency: currency, amount: amount, vatAmount: vatAmount, description: description, userAgent: userAgent,
            language: languages.contains(language) ? language : "en-US", productName: productName, implementation: implementation,
            urls: urls, payeeInfo: payeeInfo, payer: payer, orderItems: orderItems, restrictedToInstruments: restricted,
            instrument: instrument, disableStoredPaymentDetails: disableStored, enablePaymentDetailsConsentCheckbox: consentCheckbox,
            metadata: metadata, compactJSON: CompactJSON(description: JSONWriter.compactText(object)))
    }

    /// `urls` (required), each URL checked by MerchantURL.
    private static func readURLs(_ reader: inout SwedbankPayJSONReader) -> SwedbankPayOrderURLs {
        var urlsReader = reader.object("urls", required: true)
        let hostUrls = urlsReader?.strings("hostUrls", required: true)
        for (index, host) in (hostUrls ?? []).enumerated() {
            guard let violation = SwedbankPayJSONReader.urlViolation(host) else { continue }
            urlsReader?.problems.append(.init(name: "PaymentOrder.Urls.HostUrls[\(index)]",
                                              description: "The field HostUrls must hold absolute http or https URLs: \(violation)."))
        }
        let completeUrl = urlsReader?.url("completeUrl", required: true)
        let urls = SwedbankPayOrderURLs(
            hostUrls: hostUrls ?? [], completeUrl: completeUrl ?? "", cancelUrl: urlsReader?.url("cancelUrl"),
            paymentUrl: urlsReader?.url("paymentUrl"), callbackUrl: urlsReader?.url("callbackUrl"), logoUrl: urlsReader?.url("logoUrl"),
            termsOfServiceUrl: urlsReader?.url("termsOfServiceUrl"))
        reader.absorb(urlsReader)
        return urls
    }

    /// `payeeInfo` (required).
    private static func readPayeeInfo(_ reader: inout SwedbankPayJSONReader) -> SwedbankPayPayeeInfo {
        var payeeReader = reader.object("payeeInfo", required: true)
        let payeeInfo = SwedbankPayPayeeInfo(
            payeeId: payeeReader?.string("payeeId", required: true) ?? "",
            payeeReference: payeeReader?.string("payeeReference", required: true, maxLength: 30) ?? "",
            payeeName: payeeReader?.string("payeeName"), orderReference: payeeReader?.string("orderReference", maxLength: 50),
            productCategory: payeeReader?.string("productCategory"), subsite: payeeReader?.string("subsite"), siteId: payeeReader?.string("siteId"))
        reader.absorb(payeeReader)
        return payeeInfo
    }

    /// `payer`, if sent.
    private static func readPayer(_ reader: inout SwedbankPayJSONReader) -> SwedbankPayPayer? {
        guard var payerReader = reader.object("payer") else { return nil }
        let payer = SwedbankPayPayer(payerReference: payerReader.string("payerReference"), firstName: payerReader.string("firstName"),
                                     lastName: payerReader.string("lastName"), email: payerReader.string("email"),
                                     msisdn: payerReader.string("msisdn"), json: reader.node("payer"))
        reader.absorb(payerReader)
        return payer
    }

    /// `disableStoredPaymentDetails` and `enablePaymentDetailsConsentCheckbox`, which needs the first.
    private static func readStoredDetails(_ reader: inout SwedbankPayJSONReader) -> (disableStored: Bool, consentCheckbox: Bool) {
        let disableStored = reader.bool("disableStoredPaymentDetails") ?? false
        let consentCheckbox = reader.bool("enablePaymentDetailsConsentCheckbox") ?? false
        if consentCheckbox && !disableStored {
            // Verbatim the reference's example problem (swedbankpay-api.md §2.1).
            reader.problems.append(.init(name: "PaymentOrder.EnablePaymentDetailsConsentCheckbox",
                                         description: "EnablePaymentDetailsConsentCheckbox cannot be used without DisableStoredPaymentDetails."))
        }
        return (disableStored, consentCheckbox)
    }

    // MARK: Operations and tokens (Verify, Recur, UnscheduledPurchase)

    /// `POST /psp/paymentorders` as the routes take it: ``createRequest(_:version:configuration:)``, with the rules of
    /// the operation and its tokens. Recur and UnscheduledPurchase are server to server: their `urls` need only
    /// `callbackUrl` (the developer portal's Recur page, "Recur Request"), so the checks of the
    /// payer-facing URLs run on a copy that has stand-ins for the ones left out, and the order keeps what was sent.
    static func createOrderRequest(_ object: JSONNode, version: SwedbankPayAPIVersion, configuration: SwedbankPayConfiguration)
    throws(SwedbankPayProblem) -> SwedbankPayCreateOrderRequest {
        let operation = object["operation"]?.stringValue.flatMap(SwedbankPayOrderOperation.init(rawValue:))
        let standIns = operation?.isMerchantInitiated == true ? serverToServerURLStandIns(object) : []
        let checked = standIns.isEmpty ? object : SwedbankPayOrderLedger.replacing(object, [("urls", standInURLs(object, standIns))])
        var request = try createRequest(checked, version: version, configuration: configuration)
        if !standIns.isEmpty { request.json = object }
        if standIns.contains("hostUrls") { request.urls.hostUrls = [] }
        if standIns.contains("completeUrl") { request.urls.completeUrl = "" }
        try tokenRules(&request, object)
        return request
    }

    /// A stand-in the URL checks accept for a payer-facing URL a server-to-server order may leave out (never stored).
    static let serverToServerStandIn = "https://merchant-initiated.invalid"

    /// Which of `hostUrls`, `completeUrl` the order's `urls` object leaves out or leaves empty (none when `urls` itself
    /// is missing: that stays a problem).
    private static func serverToServerURLStandIns(_ object: JSONNode) -> [String] {
        guard let urls = object["urls"], urls.members != nil else { return [] }
        return ["hostUrls", "completeUrl"].filter { key in
            guard let value = urls[key], !value.isNull else { return true }
            return value.elements?.isEmpty == true || value.stringValue?.isEmpty == true
        }
    }

    private static func standInURLs(_ object: JSONNode, _ standIns: [String]) -> JSONText {
        let urls = object["urls"] ?? JSONNode(.object([]))
        var changes: [(String, JSONText)] = []
        if standIns.contains("hostUrls") { changes.append(("hostUrls", .array([.string(serverToServerStandIn)]))) }
        if standIns.contains("completeUrl") { changes.append(("completeUrl", .string(serverToServerStandIn + "/complete"))) }
        return SwedbankPayOrderLedger.replacing(urls, changes).jsonText
    }

    /// `operation`: Purchase, Verify, Recur or UnscheduledPurchase (swedbankpay-api.md §1.2); anything else is a problem.
    static func operationRule(_ reader: inout SwedbankPayJSONReader, _ operation: String?) -> SwedbankPayOrderOperation? {
        guard let operation else { return nil }
        guard let known = SwedbankPayOrderOperation(rawValue: operation) else {
            reader.problems.append(.init(name: "PaymentOrder.Operation", description:
                "The operation \(operation) is not valid; use Purchase, Verify, Recur or UnscheduledPurchase."))
            return nil
        }
        return known
    }

    /// `amount` and `vatAmount` of a Purchase, Recur or UnscheduledPurchase: required, amount > 0, 0 ≤ vatAmount ≤ amount.
    static func amounts(_ reader: inout SwedbankPayJSONReader) -> (Int?, Int?) {
        let amount = reader.int("amount", required: true)
        if let amount, amount <= 0 { reader.problems.append(.init(name: "PaymentOrder.Amount", description: "The field Amount must be greater than 0.")) }
        let vatAmount = reader.int("vatAmount", required: true)
        if let vatAmount, vatAmount < 0 || vatAmount > (amount ?? .max) {
            reader.problems.append(.init(name: "PaymentOrder.VatAmount", description: "The field VatAmount must be between 0 and Amount."))
        }
        return (amount, vatAmount)
    }

    /// A Verify moves no money: no amounts in its request, `"amount": 0` in its answer (developer portal
    /// Verify page); amounts other than 0 are refused (inferred).
    static func verifyAmounts(_ reader: inout SwedbankPayJSONReader) -> (Int?, Int?) {
        for key in ["amount", "vatAmount"] {
            if let value = reader.int(key), value != 0 {
                reader.problems.append(.init(name: reader.name(key), description: "A Verify payment order has no \(key): leave it out or send 0."))
            }
        }
        return (0, 0)
    }

    /// The token fields (swedbankpay-api.md §1.2): the `generate…Token` flags, the token a Recur
    /// (`recurrenceToken`), UnscheduledPurchase (`unscheduledToken`) or one-click Purchase (`paymentToken`) uses.
    /// Whether the token exists is the store's check (404 or 422).
    static func tokenRules(_ request: inout SwedbankPayCreateOrderRequest, _ object: JSONNode) throws(SwedbankPayProblem) {
        var reader = SwedbankPayJSONReader(object.members ?? [], path: "PaymentOrder")
        let operation = request.orderOperation
        for kind in SwedbankPayTokenKind.allCases where reader.bool(kind.generateField) == true {
            guard !operation.isMerchantInitiated else {
                reader.problems.append(.init(name: reader.name(kind.generateField),
                                             description: "\(kind.problemName) cannot be generated by a \(operation.rawValue) payment order."))
                continue
            }
            // One-click tokens belong to a payer (developer portal `one-click-payments.md`; the problem is inferred).
            if kind == .payment, request.payer?.payerReference?.isEmpty != false {
                reader.problems.append(.init(name: reader.name(kind.generateField), description: "GeneratePaymentToken requires Payer.PayerReference."))
                continue
            }
            request.generateTokens.insert(kind)
        }
        let used: SwedbankPayTokenKind? = switch operation {
        case .recur: .recurrence
        case .unscheduledPurchase: .unscheduled
        case .purchase: reader.node("paymentToken") == nil ? nil : .payment
        case .verify: nil
        }
        if let used, let token = reader.string(used.field, required: true) {
            request.useToken = SwedbankPayTokenUse(kind: used, token: token)
        }
        for kind in SwedbankPayTokenKind.allCases where kind != used && reader.node(kind.field) != nil {
            reader.problems.append(.init(name: reader.name(kind.field), description: "A \(operation.rawValue) payment order takes no \(kind.problemName)."))
        }
        guard reader.problems.isEmpty else { throw .input(reader.problems) }
    }

    /// `orderItems[]`: the required fields of each item, and Σamount == amount, ΣvatAmount == vatAmount (inferred).
    static func validateOrderItems(_ reader: inout SwedbankPayJSONReader, amount: Int?, vatAmount: Int?) -> [JSONNode]? {
        guard let node = reader.node("orderItems") else { return nil }
        guard let items = node.elements else { reader.wrongType("orderItems", "an array"); return nil }
        var amounts = 0, vatAmounts = 0
        for (index, item) in items.enumerated() {
            var itemReader = SwedbankPayJSONReader(item.members ?? [], path: "PaymentOrder.OrderItems[\(index)]")
            guard item.members != nil else {
                reader.problems.append(.init(name: "PaymentOrder.OrderItems[\(index)]", description: "An order item must be an object."))
                continue
            }
            for key in ["reference", "name", "type", "class", "quantityUnit"] { _ = itemReader.string(key, required: true) }
            if itemReader.node("quantity")?.doubleValue == nil {
                itemReader.node("quantity") == nil ? itemReader.required("quantity") : itemReader.wrongType("quantity", "a number")
            }
            for key in ["unitPrice", "vatPercent"] { _ = itemReader.int(key, required: true) }
            amounts += itemReader.int("amount", required: true) ?? 0
            vatAmounts += itemReader.int("vatAmount", required: true) ?? 0
            reader.absorb(itemReader)
        }
        if let amount, amounts != amount {
            reader.problems.append(.init(name: "PaymentOrder.Amount", description: "Amount must equal the sum of OrderItems.Amount (\(amount) ≠ \(amounts))."))
        }
        if let vatAmount, vatAmounts != vatAmount {
            reader.problems.append(.init(name: "PaymentOrder.VatAmount",
                                         description: "VatAmount must equal the sum of OrderItems.VatAmount (\(vatAmount) ≠ \(vatAmounts))."))
        }
        return items
    }

    /// A PATCH body (swedbankpay-api.md §1.6).
    static func patch(_ object: JSONNode) throws(SwedbankPayProblem) -> SwedbankPayOrderPatch {
        var reader = SwedbankPayJSONReader(object.members ?? [], path: "PaymentOrder")
        let operation = reader.string("operation", required: true)
        switch operation {
        case "Abort":
            let reason = reader.string("abortReason")
            guard reader.problems.isEmpty else { throw .input(reader.problems) }
            return .abort(reason: reason)
        case "PaymentAttemptAborted":
            let reason = reader.string("abortReason")
            guard reader.problems.isEmpty else { throw .input(reader.problems) }
            return .abortPaymentAttempt(reason: reason)
        case "UpdateOrder":
            let amount = reader.int("amount", required: true)
            if let amount, amount <= 0 { reader.problems.append(.init(name: "PaymentOrder.Amount", description: "The field Amount must be greater than 0.")) }
            let vatAmount = reader.int("vatAmount", required: true)
            if let vatAmount, vatAmount < 0 || vatAmount > (amount ?? .max) {
                reader.problems.append(.init(name: "PaymentOrder.VatAmount", description: "The field VatAmount must be between 0 and Amount."))
            }
            let items = validateOrderItems(&reader, amount: amount, vatAmount: vatAmount)
            guard reader.problems.isEmpty, let amount, let vatAmount else { throw .input(reader.problems) }
            return .updateOrder(amount: amount, vatAmount: vatAmount, orderItems: items)
        case nil:
            throw .input(reader.problems)
        case let other?:
            throw .input([.init(name: "PaymentOrder.Operation",
                                description: "The operation \(other) is not valid; use UpdateOrder, Abort or PaymentAttemptAborted.")])
        }
    }

    /// The `transaction` of a capture, cancellation or reversal (swedbankpay-api.md §1.7).
    static func transaction(_ body: Data, _ kind: SwedbankPayPostPurchase) throws(SwedbankPayProblem) -> SwedbankPayTransactionRequest {
        let document = try parse(body, name: "Transaction")
        guard let members = document["transaction"]?.members else {
            throw .input([.init(name: "Transaction", description: "The Transaction field is required.")])
        }
        var reader = SwedbankPayJSONReader(members, path: "Transaction")
        let description = reader.string("description", required: true)
        let payeeReference = reader.string("payeeReference", required: true, maxLength: 30)
        var amount: Int?, vatAmount: Int?
        if kind != .cancel {
            amount = reader.int("amount", required: true)
            if let value = amount, value <= 0 { reader.problems.append(.init(name: "Transaction.Amount", description: "The field Amount must be greater than 0.")) }
            vatAmount = reader.int("vatAmount", required: true)
            if let value = vatAmount, value < 0 || value > (amount ?? .max) {
                reader.problems.append(.init(name: "Transaction.VatAmount", description: "The field VatAmount must be between 0 and Amount."))
            }
        }
        let receiptReference = kind == .capture ? reader.string("receiptReference", maxLength: 30) : nil
        let orderItems = reader.node("orderItems")?.elements
        guard reader.problems.isEmpty, let description, let payeeReference else { throw .input(reader.problems) }
        return SwedbankPayTransactionRequest(description: description, payeeReference: payeeReference, amount: amount, vatAmount: vatAmount,
                                             receiptReference: receiptReference, orderItems: orderItems)
    }

    /// The `version=` parameter of a media type (`application/json; charset=utf-8; version=3.1`), if any
    /// (swedbankpay-api.md §1.1: the NET SDK sends it as a parameter).
    static func versionParameter(_ mediaType: String?) -> String? {
        guard let mediaType else { return nil }
        if SwedbankPayASCII.isASCII(mediaType) { return asciiVersionParameter(Array(mediaType.utf8)) }
        for parameter in mediaType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "version" {
                return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// ``versionParameter(_:)`` of an ASCII media type, on its bytes (the same splits, trims and comparison).
    private static func asciiVersionParameter(_ bytes: [UInt8]) -> String? {
        for parameter in bytes.split(separator: UInt8(ascii: ";")).dropFirst() {
            let pair = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1)
            if pair.count == 2, SwedbankPayASCII.lowercasedEquals(SwedbankPayASCII.trimmingWhitespace(pair[0]), "version") {
                let value = SwedbankPayASCII.trimming(SwedbankPayASCII.trimmingWhitespace(pair[1])) { $0 == UInt8(ascii: "\"") }
                return String(decoding: value, as: UTF8.self)
            }
        }
        return nil
    }
}
