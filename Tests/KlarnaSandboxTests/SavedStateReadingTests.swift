// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox
import SandboxCore

/// The state file's readers for the stored Klarna models (SavedStateDirectDecodable): each reads back what the writer
/// wrote, the value `Codable` reads from the same text, with every member set and with none; a text it does not read
/// as `Codable` does (another type, a duplicate or escaped key, a required member missing, a date out of bounds) it
/// gives up on, and the restore reads that object through `Codable`.
@Suite struct SavedStateReadingTests {
    typealias Fixtures = PaymentsSavedStateTests

    /// `text` read by the direct reader (nil: it gave up) and through `Codable` (nil: refused), from one tape.
    static func readBothWays<T: SavedStateDirectDecodable>(_ type: T.Type, _ text: String) -> (direct: T?, codable: T?) {
        Array(text.utf8).withUnsafeBytes { buffer in
            let decoder = SavedStateDecoder(text: buffer)
            guard (try? decoder.parseObject(at: 0)) != nil else { return (nil, nil) }
            let direct = try? T(savedFrom: decoder, at: 0)
            let codable = try? decoder.decodeParsed(T.self)
            return (direct, codable)
        }
    }

    /// A value written, then read by its reader: equal to it and to what `Codable` reads.
    static func check<T: SavedStateDirectDecodable & SavedStateDirectEncodable & Equatable>(_ value: T,
                                                                                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (direct, codable) = readBothWays(T.self, try Fixtures.written(value))
        #expect(direct == value, sourceLocation: sourceLocation)
        #expect(codable == value, sourceLocation: sourceLocation)
    }

    /// An object of a class (no `==`): what its reader reads is written again byte for byte, as what `Codable` reads.
    static func checkWrittenAgain<T: SavedStateDirectDecodable & SavedStateDirectEncodable>(_ value: T,
                                                                                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = try Fixtures.written(value)
        let (direct, codable) = readBothWays(T.self, text)
        let directText = try direct.map { try Fixtures.written($0) }, codableText = try codable.map { try Fixtures.written($0) }
        #expect(directText == text, sourceLocation: sourceLocation)
        #expect(codableText == text, sourceLocation: sourceLocation)
    }

    @Test func eachModel_WithEveryMemberSetAndWithNone_ReadsBackAsWritten() throws {
        try Self.check(Fixtures.fullAddress)
        try Self.check(KlarnaAddress())
        try Self.check(Fixtures.fullCustomer)
        try Self.check(KlarnaCustomer())
        try Self.check(Fixtures.fullURLs)
        try Self.check(KlarnaMerchantURLs())
        try Self.check(KlarnaOptions(colorBorder: "#000", colorBorderSelected: "#111", colorDetails: "#222", colorText: "#333",
                                     radiusBorder: "5px"))
        try Self.check(KlarnaOptions())
        try Self.check(KlarnaAttachment(body: Fixtures.odd, contentType: "application/json"))
        try Self.check(KlarnaAttachment())
        try Self.check(KlarnaProductIdentifiers(brand: "B", categoryPath: "C", globalTradeItemNumber: "G", manufacturerPartNumber: "M",
                                                color: "red", size: "L"))
        try Self.check(KlarnaProductIdentifiers())
        try Self.check(KlarnaSubscription(name: "Monthly", interval: "MONTH", intervalCount: 3))
        try Self.check(KlarnaSubscription())
        try Self.check(Fixtures.fullLine)
        try Self.check(KlarnaOrderLine())
        try Self.check(Fixtures.fullFields)
        try Self.check(KlarnaSessionFields())
        try Self.check(Fixtures.fullRequest)
        try Self.check(KlarnaCreateOrderRequest())
        let method = KlarnaAuthorizedPaymentMethod(type: "invoice", numberOfDays: 14, numberOfInstallments: 3)
        try Self.check(method)
        try Self.check(KlarnaAuthorizedPaymentMethod(type: "", numberOfDays: nil, numberOfInstallments: nil))
        try Self.check(KlarnaOrder(orderId: "o-1", redirectUrl: "https://example.com/r", fraudStatus: "ACCEPTED", authorizedPaymentMethod: method))
        try Self.check(ClientToken.Claims(Fixtures.fullFields))
        try Self.check(ClientToken.Claims(KlarnaSessionFields()))
        try Self.check(Fixtures.fullShippingInfo)
        try Self.check(KlarnaShippingInfo())
    }

    @Test func theLedgerObjects_ReadBackAsWritten() throws {
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.125)
        let session = PaymentsLedger.Session(id: "s-1", fields: Fixtures.fullFields, createdAt: created,
                                             expiresAt: created.addingTimeInterval(172_800), scenario: "x")
        try Self.checkWrittenAgain(session)
        session.orderID = "o-1"
        session.authorizationTokens = ["t-1", Fixtures.odd]
        session.awaitingFinalize = true
        try Self.checkWrittenAgain(session)
        let authorization = PaymentsLedger.Authorization(token: "t-1", sessionID: "s-1", authorizedAt: created, snapshot: session.$fields)
        try Self.checkWrittenAgain(authorization)
        authorization.cancelled = true
        authorization.orderID = "o-1"
        try Self.checkWrittenAgain(authorization)
        let order = PaymentsLedger.Order(order: KlarnaOrder(orderId: "o-1", redirectUrl: nil, fraudStatus: "ACCEPTED",
                                                            authorizedPaymentMethod: KlarnaAuthorizedPaymentMethod(type: "invoice")),
                                         sessionID: "s-1", authorizationToken: "t-1", request: Fixtures.fullRequest, createdAt: created)
        try Self.checkWrittenAgain(order)
    }

    @Test func anOrderManagementOrder_WithAndWithoutCapturesRefundsAndShippingInfo_ReadsBackAsWritten() throws {
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.5)
        let order = OrderManagementLedger.Order(id: "o-1", placed: Shared(wrappedValue: Fixtures.fullRequest), fraudStatus: "ACCEPTED",
                                                createdAt: created, expiresAt: created.addingTimeInterval(2_419_200), scenario: nil)
        try Self.checkWrittenAgain(order)
        order.orderAmount = 900
        order.capturedAmount = 400
        order.refundedAmount = 100
        order.cancelled = true
        order.released = true
        order.acknowledged = true
        order.captures = [KlarnaCapture(captureId: "c-1", klarnaReference: "4K7Q6QF6-1", capturedAmount: 400, capturedAt: created,
                                        description: Fixtures.odd, reference: "ref", orderLines: [Fixtures.fullLine, KlarnaOrderLine()],
                                        refundedAmount: 100, billingAddress: Fixtures.fullAddress, shippingAddress: KlarnaAddress(),
                                        shippingInfo: [Fixtures.fullShippingInfo, KlarnaShippingInfo()]),
                          KlarnaCapture(captureId: "", klarnaReference: "", capturedAmount: 0, capturedAt: created, description: nil,
                                        reference: nil, orderLines: [], refundedAmount: 0, billingAddress: nil, shippingAddress: nil,
                                        shippingInfo: [])]
        order.refunds = [KlarnaRefund(refundId: "r-1", refundedAmount: 100, refundedAt: created, description: "Back",
                                      reference: Fixtures.odd, orderLines: [Fixtures.fullLine])]
        order.shippingInfo = [Fixtures.fullShippingInfo]
        order.sendOuts = [Fixtures.odd: 3]  // one: a dictionary of two writes its members in either order
        order.dueDateExtensions = ["c-1": 7]
        let scenario = OrderManagementLedger.Order(id: "o-2", placed: Shared(wrappedValue: KlarnaCreateOrderRequest()),
                                                   fraudStatus: "PENDING", createdAt: created, expiresAt: created, scenario: "s")
        try Self.checkWrittenAgain(order)
        try Self.checkWrittenAgain(scenario)
    }

    @Test func anOrderManagementOrder_WithAnswers_IsLeftToCodable() throws {
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.5)
        let order = OrderManagementLedger.Order(id: "o-1", placed: Shared(wrappedValue: KlarnaCreateOrderRequest()), fraudStatus: "ACCEPTED",
                                                createdAt: created, expiresAt: created, scenario: nil)
        order.answers = [IdempotentAnswer(operation: .cancel, key: "k", kept: .success(.changed), origins: OrderManagementLedger.Origins())]
        let text = try Fixtures.written(order)
        let (direct, codable) = Self.readBothWays(OrderManagementLedger.Order.self, text)
        #expect(direct == nil)
        #expect(try codable.map { try Fixtures.written($0) } == text)
    }

    /// Texts a reader must not read as it likes: for each, either it gives up, or it reads what `Codable` reads; never a
    /// value from a text `Codable` refuses.
    @Test func aReader_NeverReadsATextCodableRefuses_AndReadsAsCodableWhereItReads() throws {
        let line = #"{"type":"physical","name":"A","quantity":2,"unitPrice":100,"totalAmount":200}"#
        let lines: [String] = [
            line,
            #"{"name":"A","name":"B"}"#,  // a duplicate key
            #"{"n\u0061me":"A"}"#,  // an escaped key
            #"{"name":"A","unknown":[1,{"x":null}]}"#,  // a member of no field
            #"{"name":null,"quantity":null}"#,  // null for optionals
            #"{"quantity":"2"}"#, #"{"quantity":2.0}"#, #"{"quantity":2.5}"#, #"{"quantity":1e3}"#, #"{"quantity":99999999999999999999}"#,
            #"{"name":1}"#, #"{"extras":{"imageUrl":"i","subscription":{"intervalCount":true}}}"#, #"{"extras":null}"#,
            #"{"extras":{}}"#, #"[]"#, #""line""#, #"{"name":"\ud83d\ude00 \u00e9\n"}"#,
        ]
        for text in lines { Self.expectNoDisagreement(KlarnaOrderLine.self, text) }
        let addresses = [#"{"values":[{"field":1,"text":"London"}]}"#, #"{"values":[{"field":99,"text":"x"}]}"#,
                         #"{"values":[{"field":1}]}"#, #"{}"#, #"{"values":null}"#, #"{"values":[{"field":-1,"text":"x"}]}"#]
        for text in addresses { Self.expectNoDisagreement(KlarnaAddress.self, text) }
        let at = 786_000_000.5
        let authorizations = [
            #"{"token":"t","sessionID":"s","authorizedAt":\#(at),"snapshot":{},"cancelled":false}"#,
            #"{"token":"t","sessionID":"s","authorizedAt":\#(at),"snapshot":{}}"#,  // `cancelled` missing
            #"{"token":"t","sessionID":"s","authorizedAt":1e300,"snapshot":{},"cancelled":false}"#,  // a date out of bounds
            #"{"token":"t","sessionID":"s","authorizedAt":"now","snapshot":{},"cancelled":false}"#,
            #"{"token":"t","sessionID":"s","authorizedAt":\#(at),"snapshot":null,"cancelled":false}"#,
            #"{"token":"t","sessionID":"s","authorizedAt":\#(at),"snapshot":{"orderLines":[{}]},"cancelled":false,"orderID":null}"#,
        ]
        for text in authorizations {
            let (direct, codable) = Self.readBothWays(PaymentsLedger.Authorization.self, text)
            #expect(codable != nil || direct == nil, "\(text)")
            if let direct, let codable { #expect(try Fixtures.written(direct) == Fixtures.written(codable), "\(text)") }
        }
        let (direct, _) = Self.readBothWays(PaymentsLedger.Authorization.self, authorizations[0])
        #expect(direct != nil)
    }

    static func expectNoDisagreement<T: SavedStateDirectDecodable & Equatable>(_ type: T.Type, _ text: String,
                                                                                sourceLocation: SourceLocation = #_sourceLocation) {
        let (direct, codable) = readBothWays(T.self, text)
        #expect(codable != nil || direct == nil, "\(text)", sourceLocation: sourceLocation)
        if let direct { #expect(direct == codable, "\(text)", sourceLocation: sourceLocation) }
    }

    /// Equal texts read as one shared value, as `Codable`'s reading shares them: a session's fields and its
    /// authorization's snapshot are one box after a restore.
    @Test func equalFieldTexts_ReadWithOneCache_AreOneBox() throws {
        let created = Date(timeIntervalSinceReferenceDate: 786_000_000.125)
        let session = PaymentsLedger.Session(id: "s-1", fields: Fixtures.fullFields, createdAt: created, expiresAt: created, scenario: nil)
        let authorization = PaymentsLedger.Authorization(token: "t-1", sessionID: "s-1", authorizedAt: created, snapshot: session.$fields)
        let text = try Fixtures.written(session) + " " + Fixtures.written(authorization)
        let (readSession, readAuthorization) = try Array(text.utf8).withUnsafeBytes { buffer in
            let decoder = SavedStateDecoder(text: buffer, values: SavedValueCache())
            try decoder.parseObject(at: 0)
            let readSession = try PaymentsLedger.Session(savedFrom: decoder, at: 0)
            try decoder.parseObject(at: try Fixtures.written(session).utf8.count + 1)
            return (readSession, try PaymentsLedger.Authorization(savedFrom: decoder, at: 0))
        }
        // A `Shared` is its box's reference.
        func box(_ shared: Shared<KlarnaSessionFields>) -> ObjectIdentifier { ObjectIdentifier(unsafeBitCast(shared, to: AnyObject.self)) }
        #expect(box(readSession.$fields) == box(readAuthorization.$snapshot))
        let separately = try #require(Self.readBothWays(PaymentsLedger.Session.self, try Fixtures.written(session)).direct)
        #expect(box(separately.$fields) != box(readSession.$fields))
    }
}
