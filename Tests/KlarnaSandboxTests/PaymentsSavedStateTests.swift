// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox
import SandboxCore

/// The state file's fast path for the stored Klarna models (PaymentsSavedState.swift): each model writes the bytes its
/// synthesized `Codable` writes through the state file's writer, with every member set and with none; that text is
/// the value JSONEncoder writes (JSONEncoder's member order here is its dictionary's, so compared as JSON values) and
/// reads back as the value.
@Suite struct PaymentsSavedStateTests {
    /// What the state file's writer writes through the value's `encode(to:)`, as before the fast path.
    static func viaCodable<T: Encodable>(_ value: T) throws -> String {
        let encoder = SavedStateEncoder()
        encoder.writesDirectly = false
        try encoder.encode(value)
        return String(decoding: encoder.bytes, as: UTF8.self)
    }

    static func written<T: Encodable>(_ value: T) throws -> String {
        let encoder = SavedStateEncoder()
        try encoder.encode(value)
        return String(decoding: encoder.bytes, as: UTF8.self)
    }

    /// Whether `text` is the JSON value JSONEncoder writes for `value`.
    static func isJSONEncoders<T: Encodable>(_ text: String, _ value: T) throws -> Bool {
        func canonical(_ json: Data) throws -> Data {
            try JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]),
                                       options: [.sortedKeys, .fragmentsAllowed])
        }
        return try canonical(JSONEncoder().encode(value)) == canonical(Data(text.utf8))
    }

    /// A stored object: written as through `encode(to:)`, byte for byte, and as JSONEncoder writes it.
    static func same<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try written(value)
        #expect(written == (try viaCodable(value)), sourceLocation: sourceLocation)
        #expect(try isJSONEncoders(written, value), "\(written)", sourceLocation: sourceLocation)
    }

    /// Writes `value` both ways, compares them and reads the text back (with JSONDecoder and the state file's reader).
    static func check<T: Codable & Equatable & SavedStateDirectEncodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try same(value, sourceLocation: sourceLocation)
        let written = try written(value)
        #expect(try JSONDecoder().decode(T.self, from: Data(written.utf8)) == value, sourceLocation: sourceLocation)
        let read = try Array(written.utf8).withUnsafeBytes { try SavedStateDecoder(text: $0).decode(T.self, at: 0).value }
        #expect(read == value, sourceLocation: sourceLocation)
    }

    static let odd = "a\"b\\c\nd\te\u{1}é😀/"

    static var fullAddress: KlarnaAddress {
        var address = KlarnaAddress()
        address.attention = "Att"; address.city = "London"; address.country = "GB"; address.email = "a@example.com"
        address.familyName = "Smith"; address.givenName = odd; address.organizationName = "Org"; address.phone = "+44"
        address.postalCode = "W1"; address.region = "LDN"; address.streetAddress = "1 St"; address.streetAddress2 = "Flat 2"
        address.title = "Ms"
        return address
    }

    static var fullCustomer: KlarnaCustomer {
        KlarnaCustomer(dateOfBirth: "1970-01-01", gender: "female", lastFourSsn: "1234", nationalIdentificationNumber: "19700101",
                       organizationEntityType: "LIMITED_COMPANY", organizationRegistrationId: "556", title: "Ms", type: "person",
                       vatId: odd)
    }

    static var fullURLs: KlarnaMerchantURLs {
        KlarnaMerchantURLs(confirmation: "https://example.com/c", notification: "https://example.com/n", push: "https://example.com/p",
                           authorization: "https://example.com/a", appReturnUrl: "app://return")
    }

    static var fullLine: KlarnaOrderLine {
        var line = KlarnaOrderLine()
        line.type = "physical"; line.reference = "ref"; line.name = odd; line.quantity = 2; line.unitPrice = -5
        line.taxRate = 2500; line.totalAmount = Int.max; line.totalDiscountAmount = 0; line.totalTaxAmount = Int.min
        line.quantityUnit = "pcs"; line.merchantData = "{}"; line.productUrl = "https://example.com/p"
        line.imageUrl = "https://example.com/i"
        line.productIdentifiers = KlarnaProductIdentifiers(brand: "B", categoryPath: "C > D", globalTradeItemNumber: "G",
                                                           manufacturerPartNumber: "M", color: "red", size: "L")
        line.subscription = KlarnaSubscription(name: "Monthly", interval: "MONTH", intervalCount: 1)
        return line
    }

    static var fullFields: KlarnaSessionFields {
        var fields = KlarnaSessionFields()
        fields.purchaseCountry = "SE"; fields.purchaseCurrency = "SEK"; fields.locale = "sv-SE"
        fields.orderAmount = 1000; fields.orderTaxAmount = 200
        var plain = KlarnaOrderLine()
        plain.name = "Plain"; plain.quantity = 1
        fields.orderLines = [fullLine, plain, KlarnaOrderLine()]
        fields.billingAddress = fullAddress; fields.shippingAddress = KlarnaAddress()
        fields.customer = fullCustomer; fields.merchantUrls = fullURLs
        fields.merchantReference1 = "r1"; fields.merchantReference2 = "r2"; fields.merchantData = odd
        fields.attachment = KlarnaAttachment(body: "{\"a\":1}", contentType: "application/vnd.klarna.internal.emd-v2+json")
        fields.options = KlarnaOptions(colorBorder: "#000", colorBorderSelected: "#111", colorDetails: "#222", colorText: "#333",
                                       radiusBorder: "5px")
        fields.acquiringChannel = "ECOMMERCE"; fields.intent = "buy"; fields.customPaymentMethodIds = ["a", odd, ""]
        fields.design = "d"
        return fields
    }

    static var fullRequest: KlarnaCreateOrderRequest {
        var request = KlarnaCreateOrderRequest()
        request.purchaseCountry = "SE"; request.purchaseCurrency = "SEK"; request.locale = "sv-SE"
        request.orderAmount = 1000; request.orderTaxAmount = 200
        request.orderLines = [fullLine, KlarnaOrderLine()]
        request.billingAddress = fullAddress; request.shippingAddress = fullAddress
        request.customer = fullCustomer; request.merchantUrls = fullURLs
        request.merchantReference1 = "r1"; request.merchantReference2 = "r2"; request.merchantData = "md"
        request.customPaymentMethodIds = []
        request.autoCapture = false
        return request
    }

    @Test func eachModel_WithEveryMemberSet_IsWrittenAsJSONEncoderWritesIt() throws {
        try Self.check(Self.fullAddress)
        try Self.check(Self.fullCustomer)
        try Self.check(Self.fullURLs)
        try Self.check(KlarnaOptions(colorBorder: "#000", colorBorderSelected: "#111", colorDetails: "#222", colorText: "#333",
                                     radiusBorder: "5px"))
        try Self.check(KlarnaAttachment(body: Self.odd, contentType: "application/json"))
        try Self.check(KlarnaProductIdentifiers(brand: "B", categoryPath: "C", globalTradeItemNumber: "G", manufacturerPartNumber: "M",
                                                color: "red", size: "L"))
        try Self.check(KlarnaSubscription(name: "Monthly", interval: "MONTH", intervalCount: 3))
        try Self.check(Self.fullLine)
        try Self.check(Self.fullFields)
        try Self.check(Self.fullRequest)
        var request = Self.fullRequest
        request.autoCapture = true
        try Self.check(request)
        let method = KlarnaAuthorizedPaymentMethod(type: "invoice", numberOfDays: 14, numberOfInstallments: 3)
        try Self.check(method)
        try Self.check(KlarnaOrder(orderId: "o-1", redirectUrl: "https://example.com/r", fraudStatus: "ACCEPTED",
                                   authorizedPaymentMethod: method))
    }

    @Test func eachModel_WithNoMemberSet_IsWrittenAsJSONEncoderWritesIt() throws {
        try Self.check(KlarnaAddress())
        try Self.check(KlarnaCustomer())
        try Self.check(KlarnaMerchantURLs())
        try Self.check(KlarnaOptions())
        try Self.check(KlarnaAttachment())
        try Self.check(KlarnaProductIdentifiers())
        try Self.check(KlarnaSubscription())
        try Self.check(KlarnaOrderLine())
        try Self.check(KlarnaSessionFields())
        try Self.check(KlarnaCreateOrderRequest())
        let method = KlarnaAuthorizedPaymentMethod(type: "", numberOfDays: nil, numberOfInstallments: nil)
        try Self.check(method)
        try Self.check(KlarnaOrder(orderId: "", redirectUrl: nil, fraudStatus: "", authorizedPaymentMethod: method))
    }

    @Test func aLineWithSomeExtras_AndOneMemberEach_AreWrittenAsJSONEncoderWritesThem() throws {
        var line = KlarnaOrderLine()
        line.totalAmount = 10
        line.imageUrl = "https://example.com/i"
        try Self.check(line)
        line.subscription = KlarnaSubscription(name: nil, interval: nil, intervalCount: 0)
        line.imageUrl = nil
        try Self.check(line)
        line = KlarnaOrderLine()
        line.productIdentifiers = KlarnaProductIdentifiers()
        try Self.check(line)
        var fields = KlarnaSessionFields()
        fields.design = "only"
        try Self.check(fields)
        fields = KlarnaSessionFields()
        fields.orderLines = []
        try Self.check(fields)
        fields.options = KlarnaOptions()
        try Self.check(fields)
    }

    @Test func theStoredObjects_HoldingShared_AreWrittenAsJSONEncoderWritesThem() throws {
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.125)
        let session = PaymentsLedger.Session(id: "s-1", fields: Self.fullFields, createdAt: created,
                                             expiresAt: created.addingTimeInterval(172_800), scenario: "x")
        session.orderID = "o-1"
        session.authorizationTokens = ["t-1", "t-2"]
        try Self.same(session)
        let authorization = PaymentsLedger.Authorization(token: "t-1", sessionID: "s-1", authorizedAt: created,
                                                         snapshot: session.$fields)
        try Self.same(authorization)
        let method = KlarnaAuthorizedPaymentMethod(type: "invoice", numberOfDays: 14, numberOfInstallments: nil)
        let order = PaymentsLedger.Order(order: KlarnaOrder(orderId: "o-1", redirectUrl: nil, fraudStatus: "ACCEPTED",
                                                            authorizedPaymentMethod: method),
                                         sessionID: "s-1", authorizationToken: "t-1", request: Self.fullRequest, createdAt: created)
        try Self.same(order)
        #expect(try Self.written(Shared(wrappedValue: Self.fullLine)) == Self.viaCodable(Self.fullLine))
    }

    @Test func anOrderManagementOrder_IsWrittenAsJSONEncoderWritesIt() throws {
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.5)
        let order = OrderManagementLedger.Order(id: "o-1", placed: Shared(wrappedValue: Self.fullRequest), fraudStatus: "ACCEPTED",
                                                createdAt: created, expiresAt: created.addingTimeInterval(2_419_200), scenario: nil)
        try Self.same(order)
        order.capturedAmount = 400
        order.cancelled = true
        order.sendOuts = ["c-1": 2]
        order.dueDateExtensions = ["c-1": 7]
        let scenario = OrderManagementLedger.Order(id: "o-2", placed: Shared(wrappedValue: KlarnaCreateOrderRequest()),
                                                   fraudStatus: "PENDING", createdAt: created, expiresAt: created, scenario: "s")
        try Self.same(order)
        try Self.same(scenario)
    }

    static var fullShippingInfo: KlarnaShippingInfo {
        KlarnaShippingInfo(shippingCompany: "DHL", shippingMethod: "Home", trackingNumber: "63456415674545679874",
                           trackingUri: "https://example.com/t?id=1&b=2", returnShippingCompany: Self.odd,
                           returnTrackingNumber: "93456415674545679888", returnTrackingUri: "https://example.com/r")
    }

    @Test func orderManagementModels_WithEveryMemberSetAndWithNone_AreWrittenAsJSONEncoderWritesThem() throws {
        let at = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
        try Self.same(Self.fullShippingInfo)
        try Self.same(KlarnaShippingInfo())
        let capture = KlarnaCapture(captureId: "c-1", klarnaReference: "4K7Q6QF6-1", capturedAmount: 400, capturedAt: at,
                                    description: Self.odd, reference: "ref", orderLines: [Self.fullLine, KlarnaOrderLine()],
                                    refundedAmount: 100, billingAddress: Self.fullAddress, shippingAddress: KlarnaAddress(),
                                    shippingInfo: [Self.fullShippingInfo, KlarnaShippingInfo()])
        try Self.same(capture)
        try Self.same(KlarnaCapture(captureId: "", klarnaReference: "", capturedAmount: 0, capturedAt: at, description: nil,
                                    reference: nil, orderLines: [], refundedAmount: 0, billingAddress: nil, shippingAddress: nil,
                                    shippingInfo: []))
        try Self.same(KlarnaRefund(refundId: "r-1", refundedAmount: 100, refundedAt: at, description: "Back", reference: Self.odd,
                                   orderLines: [Self.fullLine]))
        try Self.same(KlarnaRefund(refundId: "", refundedAmount: 0, refundedAt: at, description: nil, reference: nil, orderLines: []))
    }

    @Test func anOrderManagementOrder_WithCapturesRefundsShippingInfoAndAnswers_IsWrittenAsJSONEncoderWritesIt() throws {
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.5)
        let order = OrderManagementLedger.Order(id: "o-1", placed: Shared(wrappedValue: Self.fullRequest), fraudStatus: "ACCEPTED",
                                                createdAt: created, expiresAt: created.addingTimeInterval(2_419_200), scenario: "s")
        order.captures = [KlarnaCapture(captureId: "c-1", klarnaReference: "4K7Q6QF6-1", capturedAmount: 400, capturedAt: created,
                                        description: nil, reference: "ref", orderLines: [Self.fullLine], refundedAmount: 0,
                                        billingAddress: nil, shippingAddress: Self.fullAddress, shippingInfo: [Self.fullShippingInfo])]
        order.refunds = [KlarnaRefund(refundId: "r-1", refundedAmount: 100, refundedAt: created, description: "Back", reference: nil,
                                      orderLines: [])]
        order.shippingInfo = [Self.fullShippingInfo, KlarnaShippingInfo()]
        order.sendOuts = ["c-1": 2, "c-2": 1, Self.odd: 3]
        order.dueDateExtensions = ["c-1": 7, "c-2": 14]
        let origins = OrderManagementLedger.Origins()
        order.answers = [
            IdempotentAnswer(operation: .capture, key: "k-1",
                             kept: .success(.created(OrderManagementCreated(kind: .capture, id: "c-1", origin: "http://127.0.0.1:1"))),
                             origins: origins),
            IdempotentAnswer(operation: .cancel, key: Self.odd, kept: .success(.changed), origins: origins),
        ]
        try Self.same(order)
    }
}
