// SPDX-License-Identifier: MIT
import Foundation
import SandboxTestSupport
import Testing
@testable import KlarnaSandbox

// Klarna's validation rules (klarna-api.md §2.9) over bodies decoded from wire JSON, so the snake_case names are
// exercised too. Each rejection test checks the exact envelope: 400 BAD_VALUE "Bad value: <path>".

/// The docs' GB example (klarna-api.md §2.1; tax-handling worked example).
private let gbExample = KlarnaExamples.gbSession

/// The docs' US create-order example (klarna-api.md §2.5).
private let usOrderExample = KlarnaExamples.usOrder

/// Klarna's US sales-tax example (klarna-api.md §2.9 rule 6: order_amount 21000, order_tax_amount 1000).
private let usSalesTaxExample = #"""
{
  "purchase_country": "US", "purchase_currency": "USD", "locale": "en-US",
  "order_amount": 21000, "order_tax_amount": 1000,
  "order_lines": [
    { "type": "physical", "reference": "19-402", "name": "Battery Power Pack",
      "quantity": 1, "unit_price": 20000, "total_amount": 20000 },
    { "type": "sales_tax", "name": "Tax", "quantity": 1, "unit_price": 1000, "total_amount": 1000 }
  ]
}
"""#

private let customerTokenExample = #"""
{ "description": "Monthly coffee subscription", "intended_use": "SUBSCRIPTION", "locale": "sv-SE",
  "purchase_country": "SE", "purchase_currency": "SEK",
  "billing_address": { "given_name": "Testperson-se", "family_name": "Approved", "country": "SE" } }
"""#

// MARK: - Helpers

private typealias JSONObject = [String: Any]

private func decode<T: KlarnaJSONDecodable>(_ type: T.Type, _ json: String) throws -> T {
    try KlarnaJSON.decode(type, from: Data(json.utf8))
}

/// A wire body: `base` with `edit` applied to its JSON object, decoded through `KlarnaJSON`.
private func body<T: KlarnaJSONDecodable>(_ type: T.Type = KlarnaSessionFields.self, _ base: String = gbExample,
                                _ edit: (inout JSONObject) -> Void = { _ in }) throws -> T {
    var object = try #require(try JSONSerialization.jsonObject(with: Data(base.utf8)) as? JSONObject)
    edit(&object)
    let data = try JSONSerialization.data(withJSONObject: object)
    return try KlarnaJSON.decode(type, from: data)
}

/// Edits order line `index` of a JSON body in place.
private func editLine(_ object: inout JSONObject, _ index: Int, _ edit: (inout JSONObject) -> Void) {
    var lines = object["order_lines"] as! [JSONObject]
    edit(&lines[index])
    object["order_lines"] = lines
}

/// Edits (creating if needed) a nested object of a JSON body in place.
private func editObject(_ object: inout JSONObject, _ key: String, _ edit: (inout JSONObject) -> Void) {
    var nested = object[key] as? JSONObject ?? [:]
    edit(&nested)
    object[key] = nested
}

private func failure(_ run: () throws(KlarnaError) -> Void) -> KlarnaError? {
    do { try run(); return nil } catch { return error }
}

private func sessionFailure(_ fields: KlarnaSessionFields) -> KlarnaError? {
    failure { () throws(KlarnaError) in try PaymentsValidation.validateSession(fields) }
}

private func sessionFailure(_ edit: (inout JSONObject) -> Void) throws -> KlarnaError? {
    sessionFailure(try body(KlarnaSessionFields.self, gbExample, edit))
}

private func tokenFailure(_ edit: (inout JSONObject) -> Void) throws -> KlarnaError? {
    let request = try body(KlarnaCustomerTokenRequest.self, customerTokenExample, edit)
    return failure { () throws(KlarnaError) in try PaymentsValidation.validateCustomerToken(request) }
}

private func string(_ length: Int, _ character: Character = "a") -> String {
    String(repeating: character, count: length)
}

// MARK: - Valid examples

@Suite struct PaymentsValidationExampleTests {
    @Test func validateSession_Accepts_DocsGBExample() throws {
        #expect(sessionFailure(try decode(KlarnaSessionFields.self, gbExample)) == nil)
    }

    @Test func validateSession_Accepts_DocsGBExample_AsAnUpdate() throws {
        let fields = try decode(KlarnaSessionFields.self, gbExample)
        #expect(failure { () throws(KlarnaError) in try PaymentsValidation.validateSession(fields, isUpdate: true) } == nil)
    }

    @Test func validateSession_Accepts_DocsUSExample() throws {
        #expect(sessionFailure(try decode(KlarnaSessionFields.self, usOrderExample)) == nil)
    }

    @Test func validateSession_Accepts_USSalesTaxLineExample() throws {
        #expect(sessionFailure(try decode(KlarnaSessionFields.self, usSalesTaxExample)) == nil)
    }

    @Test func validateCreateOrder_Accepts_DocsUSExample_WithAutoCapture() throws {
        let request = try body(KlarnaCreateOrderRequest.self, usOrderExample) { $0["auto_capture"] = true }
        #expect(request.autoCapture == true)
        #expect(failure { () throws(KlarnaError) in try PaymentsValidation.validateCreateOrder(request) } == nil)
    }

    @Test func validateCustomerToken_Accepts_ACompleteRequest() throws {
        #expect(try tokenFailure { _ in } == nil)
    }

    @Test func validateSession_Accepts_EveryOptionalFieldAtItsLimits() throws {
        let failure = try sessionFailure {
            $0["merchant_reference1"] = string(255)
            $0["merchant_reference2"] = string(255)
            $0["merchant_data"] = string(6000)
            $0["acquiring_channel"] = "IN_STORE"
            $0["intent"] = "buy_and_tokenize"
            $0["custom_payment_method_ids"] = ["promo-1"]
            $0["design"] = "klarna"
            $0["attachment"] = ["body": #"{"customer_account_info":[]}"#,
                                "content_type": "application/vnd.klarna.internal.emd-v2+json"]
            $0["options"] = ["color_border": "#FF9900", "color_border_selected": "#ff9900",
                             "color_details": "#AbCdEf", "color_text": "#000000", "radius_border": "5px"]
            $0["customer"] = ["type": "organization", "last_four_ssn": "123456789",
                              "organization_entity_type": "LIMITED_COMPANY", "date_of_birth": "1970-01-01"]
            $0["billing_address"] = ["postal_code": string(10, "1"), "title": string(20), "city": string(99),
                                     "street_address2": string(99), "country": "gb"]
            $0["merchant_urls"] = ["confirmation": "https://e.example/" + string(1982), "push": "https://e.example/" + string(1982)]
            editLine(&$0, 0) { line in
                line["quantity_unit"] = string(8)
                line["reference"] = string(255)
                line["name"] = string(255)
                line["merchant_data"] = string(1024)
                line["product_url"] = string(1024)
                line["image_url"] = string(1024)
                line["product_identifiers"] = ["brand": string(70), "category_path": string(750),
                                               "global_trade_item_number": string(50),
                                               "manufacturer_part_number": string(70),
                                               "color": string(64), "size": string(64)]
                line["subscription"] = ["name": "Coffee", "interval": "MONTH", "interval_count": 1]
            }
        }
        #expect(failure == nil)
    }

    @Test func validateSession_Accepts_DiscountLineWithNegativeAmountsAndTax() throws {
        // 59500 − 5950 discount line at 20 %: tax 9917 − 992 = 8925.
        let failure = try sessionFailure {
            var lines = $0["order_lines"] as! [JSONObject]
            lines.append(["type": "discount", "name": "10 % off", "quantity": 1, "unit_price": -5950,
                          "tax_rate": 2000, "total_amount": -5950, "total_tax_amount": -992])
            $0["order_lines"] = lines
            $0["order_amount"] = 62400 - 5950
            $0["order_tax_amount"] = 10400 - 992
        }
        #expect(failure == nil)
    }

    @Test func validateSession_Accepts_LineDiscountInTheArithmetic() throws {
        let failure = try sessionFailure {
            editLine(&$0, 0) { line in
                line["quantity"] = 3
                line["unit_price"] = 20000
                line["total_discount_amount"] = 500
                line["total_amount"] = 59500
            }
            // Tax tolerance grows with the quantities: 3 + 1 = 4.
            $0["order_tax_amount"] = 10404
        }
        #expect(failure == nil)
    }
}

// MARK: - Rule 1: schema level

@Suite struct PaymentsValidationSchemaTests {
    @Test(arguments: ["purchase_country", "purchase_currency", "order_amount", "order_lines"])
    func validateSession_Rejects_WhenRequiredFieldMissing(field: String) throws {
        #expect(try sessionFailure { $0[field] = nil } == .badValue(field))
    }

    @Test func validateSession_ReportsRequiredFieldsFirst_InDocsOrder() throws {
        #expect(sessionFailure(KlarnaSessionFields()) == .badValue("purchase_country"))
        // A missing required field wins over an earlier field's bad format.
        #expect(try sessionFailure { $0["purchase_currency"] = "GBPX"; $0["order_amount"] = nil } == .badValue("order_amount"))
    }

    @Test func validateSession_ErrorIs400BadValue() throws {
        let error = try #require(try sessionFailure { $0["order_amount"] = 1 })
        #expect(error.status == .badRequest)
        #expect(error.code == "BAD_VALUE")
        #expect(error.messages == ["Bad value: order_amount"])
    }

    @Test(arguments: ["G", "GBR", "G1", "ÅB", ""])
    func validateSession_Rejects_WhenPurchaseCountryBreaksPattern(country: String) throws {
        #expect(try sessionFailure { $0["purchase_country"] = country } == .badValue("purchase_country"))
    }

    @Test(arguments: ["GB", "GBPP", "£££", "G P"])
    func validateSession_Rejects_WhenPurchaseCurrencyBreaksPattern(currency: String) throws {
        #expect(try sessionFailure { $0["purchase_currency"] = currency } == .badValue("purchase_currency"))
    }

    @Test(arguments: ["en_GB", "eng-GB", "en-", "-GB", "en-GBR", "e1-GB", ""])
    func validateSession_Rejects_WhenLocaleBreaksPattern(locale: String) throws {
        #expect(try sessionFailure { $0["locale"] = locale } == .badValue("locale"))
    }

    /// The pattern is checked before the amounts, the market after them: a locale that breaks only the pattern is named
    /// ahead of a negative amount; one that keeps it (any number of parts, either case) is not.
    @Test(arguments: [("en-GB", false), ("EN-gb-Xy", false), ("ab", false), ("ab-cd-ef-gh", false), ("en_GB", true), ("en-", true),
                      ("-GB", true), ("e1-GB", true), ("en-GBR", true), ("é-GB", true), ("", true), ("en--GB", true), ("a", true)])
    func validateSession_ChecksLocalePattern_BeforeAmounts(locale: String, breaksPattern: Bool) throws {
        #expect(try sessionFailure { $0["locale"] = locale; $0["order_amount"] = -1 } == .badValue(breaksPattern ? "locale" : "order_amount"))
    }

    /// Lengths count Unicode scalars, not bytes: 255 two-byte names pass, 256 do not; the unit's 1...8 likewise.
    @Test func validateSession_CountsLengthsInScalars() throws {
        let line = "order_lines[0]"
        #expect(try sessionFailure { editLine(&$0, 0) { $0["name"] = String(repeating: "é", count: 255) } } == nil)
        #expect(try sessionFailure { editLine(&$0, 0) { $0["name"] = String(repeating: "é", count: 256) } } == .badValue("\(line).name"))
        #expect(try sessionFailure { editLine(&$0, 0) { $0["quantity_unit"] = String(repeating: "é", count: 8) } } == nil)
        #expect(try sessionFailure { editLine(&$0, 0) { $0["quantity_unit"] = "😀" } } == nil)
        #expect(try sessionFailure { editLine(&$0, 0) { $0["quantity_unit"] = String(repeating: "😀", count: 9) } } == .badValue("\(line).quantity_unit"))
        #expect(try sessionFailure { editLine(&$0, 0) { $0["quantity_unit"] = "" } } == .badValue("\(line).quantity_unit"))
    }

    @Test func validateSession_Rejects_NegativeOrderAmounts() throws {
        #expect(try sessionFailure { $0["order_amount"] = -1 } == .badValue("order_amount"))
        #expect(try sessionFailure { $0["order_tax_amount"] = -1 } == .badValue("order_tax_amount"))
    }

    @Test func validateSession_Rejects_WhenOrderLinesEmptyOrOverAThousand() throws {
        #expect(try sessionFailure { $0["order_lines"] = [] as [Any] } == .badValue("order_lines"))
        let line: JSONObject = ["name": "Pin", "quantity": 1, "unit_price": 1, "total_amount": 1]
        #expect(try sessionFailure {
            $0["order_lines"] = Array(repeating: line, count: 1001)
            $0["order_amount"] = 1001
            $0["order_tax_amount"] = nil
        } == .badValue("order_lines"))
        // Exactly 1000 is fine.
        #expect(try sessionFailure {
            $0["order_lines"] = Array(repeating: line, count: 1000)
            $0["order_amount"] = 1000
            $0["order_tax_amount"] = nil
        } == nil)
    }

    @Test func validateSession_Rejects_TooLongTopLevelStrings() throws {
        #expect(try sessionFailure { $0["merchant_reference1"] = string(256) } == .badValue("merchant_reference1"))
        #expect(try sessionFailure { $0["merchant_reference2"] = string(256) } == .badValue("merchant_reference2"))
        #expect(try sessionFailure { $0["merchant_data"] = string(6001) } == .badValue("merchant_data"))
    }

    @Test func validateSession_CountsLengthsInUnicodeScalars() throws {
        // 255 "é" are 510 UTF-8 bytes but 255 scalars: accepted.
        #expect(try sessionFailure { $0["merchant_reference1"] = string(255, "é") } == nil)
        #expect(try sessionFailure { $0["merchant_reference1"] = string(256, "é") } == .badValue("merchant_reference1"))
    }

    @Test(arguments: [
        ("attention", 100), ("city", 100), ("email", 100), ("family_name", 100), ("given_name", 100),
        ("organization_name", 100), ("phone", 100), ("postal_code", 11), ("region", 100),
        ("street_address", 100), ("street_address2", 100), ("title", 21),
    ])
    func validateSession_Rejects_TooLongAddressField(field: String, length: Int) throws {
        #expect(try sessionFailure { editObject(&$0, "billing_address") { $0[field] = string(length) } }
                == .badValue("billing_address.\(field)"))
        #expect(try sessionFailure { editObject(&$0, "shipping_address") { $0[field] = string(length) } }
                == .badValue("shipping_address.\(field)"))
    }

    @Test func validateSession_Rejects_AddressCountryBreakingPattern() throws {
        #expect(try sessionFailure { $0["billing_address"] = ["country": "GBR"] } == .badValue("billing_address.country"))
    }

    @Test func validateSession_ChecksBillingBeforeShipping() throws {
        #expect(try sessionFailure {
            $0["shipping_address"] = ["city": string(100)]
            $0["billing_address"] = ["title": string(21)]
        } == .badValue("billing_address.title"))
    }

    @Test func validateSession_Rejects_BadCustomerFields() throws {
        #expect(try sessionFailure { $0["customer"] = ["type": "company"] } == .badValue("customer.type"))
        #expect(try sessionFailure { $0["customer"] = ["type": "Person"] } == .badValue("customer.type"))
        #expect(try sessionFailure { $0["customer"] = ["last_four_ssn": "12345"] } == .badValue("customer.last_four_ssn"))
        #expect(try sessionFailure { $0["customer"] = ["last_four_ssn": "12a4"] } == .badValue("customer.last_four_ssn"))
        #expect(try sessionFailure { $0["customer"] = ["organization_entity_type": "LLC"] }
                == .badValue("customer.organization_entity_type"))
        #expect(try sessionFailure { $0["customer"] = ["type": "person", "last_four_ssn": "1234"] } == nil)
    }

    @Test func validateSession_Rejects_TooLongMerchantURL() throws {
        for name in ["confirmation", "notification", "push", "authorization"] {
            #expect(try sessionFailure { $0["merchant_urls"] = [name: string(2001)] } == .badValue("merchant_urls.\(name)"))
        }
    }

    @Test func validateSession_Rejects_AttachmentWithoutBodyOrContentType() throws {
        #expect(try sessionFailure { $0["attachment"] = ["content_type": "application/json"] } == .badValue("attachment.body"))
        #expect(try sessionFailure { $0["attachment"] = ["body": "{}"] } == .badValue("attachment.content_type"))
    }

    @Test func validateSession_Rejects_AttachmentBodyThatIsNotAJSONObject() throws {
        for bad in ["not json", "[1,2]", "\"text\""] {
            #expect(try sessionFailure { $0["attachment"] = ["body": bad, "content_type": "application/json"] }
                    == .badValue("attachment.attachment"))
        }
    }

    @Test(arguments: ["color_border", "color_border_selected", "color_details", "color_text"])
    func validateSession_Rejects_OptionColorsBreakingPattern(option: String) throws {
        for bad in ["FF9900", "#FF990", "#FF99000", "#GG9900", "red"] {
            #expect(try sessionFailure { $0["options"] = [option: bad] } == .badValue("options.\(option)"))
        }
    }

    @Test func validateSession_Rejects_UnknownAcquiringChannelAndIntent() throws {
        #expect(try sessionFailure { $0["acquiring_channel"] = "ecommerce" } == .badValue("acquiring_channel"))
        #expect(try sessionFailure { $0["intent"] = "BUY" } == .badValue("intent"))
    }

    @Test(arguments: ["name", "quantity", "unit_price", "total_amount"])
    func validateSession_Rejects_WhenOrderLineRequiredFieldMissing(field: String) throws {
        #expect(try sessionFailure { editLine(&$0, 1) { $0[field] = nil } } == .badValue("order_lines[1].\(field)"))
    }

    @Test func validateSession_ChecksOrderLinesInIndexOrder_AfterTopLevelFields() throws {
        #expect(try sessionFailure {
            editLine(&$0, 1) { $0["name"] = nil }
            editLine(&$0, 0) { $0["quantity_unit"] = "" }
        } == .badValue("order_lines[0].quantity_unit"))
        #expect(try sessionFailure {
            editLine(&$0, 0) { $0["name"] = "" }
            $0["intent"] = "shop"
        } == .badValue("intent"))
    }

    @Test func validateSession_Rejects_OrderLineFieldsOutOfRange() throws {
        let cases: [(String, Any, String)] = [
            ("type", "return_fee", "type"),
            ("type", "Physical", "type"),
            ("reference", string(256), "reference"),
            ("name", "", "name"),
            ("name", string(256), "name"),
            ("quantity", -1, "quantity"),
            ("quantity_unit", "", "quantity_unit"),
            ("quantity_unit", string(9), "quantity_unit"),
            ("unit_price", 100_000_001, "unit_price"),
            ("tax_rate", -1, "tax_rate"),
            ("tax_rate", 10_001, "tax_rate"),
            ("total_amount", 100_000_001, "total_amount"),
            ("total_discount_amount", -1, "total_discount_amount"),
            ("merchant_data", string(1025), "merchant_data"),
            ("product_url", string(1025), "product_url"),
            ("image_url", string(1025), "image_url"),
        ]
        for (field, value, path) in cases {
            let error = try sessionFailure { editLine(&$0, 0) { $0[field] = value } }
            #expect(error == .badValue("order_lines[0].\(path)"), "\(field) = \(value)")
        }
    }

    @Test(arguments: ["physical", "discount", "shipping_fee", "sales_tax", "digital", "gift_card", "store_credit", "surcharge"])
    func validateSession_Accepts_EveryOrderLineType(type: String) throws {
        // An untaxed single line keeps every type's arithmetic trivially right.
        let failure = try sessionFailure {
            $0["order_lines"] = [["type": type, "name": "x", "quantity": 1, "unit_price": 100, "total_amount": 100]]
            $0["order_amount"] = 100
            $0["order_tax_amount"] = type == "sales_tax" ? 100 : 0
        }
        #expect(failure == nil)
    }

    @Test func validateSession_Rejects_TooLongProductIdentifiers() throws {
        let limits = [("brand", 70), ("category_path", 750), ("global_trade_item_number", 50),
                      ("manufacturer_part_number", 70), ("color", 64), ("size", 64)]
        for (field, max) in limits {
            let error = try sessionFailure { editLine(&$0, 0) { $0["product_identifiers"] = [field: string(max + 1)] } }
            #expect(error == .badValue("order_lines[0].product_identifiers.\(field)"))
        }
    }

    @Test func validateSession_Rejects_IncompleteOrBadSubscription() throws {
        let valid: JSONObject = ["name": "Coffee", "interval": "MONTH", "interval_count": 1]
        for missing in ["name", "interval", "interval_count"] {
            var subscription = valid
            subscription[missing] = nil
            #expect(try sessionFailure { editLine(&$0, 0) { $0["subscription"] = subscription } }
                    == .badValue("order_lines[0].subscription.\(missing)"))
        }
        let bad: [(String, Any)] = [("name", ""), ("interval", "month"), ("interval", "QUARTER"), ("interval_count", 0)]
        for (field, value) in bad {
            var subscription = valid
            subscription[field] = value
            #expect(try sessionFailure { editLine(&$0, 0) { $0["subscription"] = subscription } }
                    == .badValue("order_lines[0].subscription.\(field)"))
        }
    }
}

// MARK: - Rules 2-6: arithmetic

@Suite struct PaymentsValidationArithmeticTests {
    @Test func validateSession_Rejects_WhenLineTotalIsNotQuantityTimesUnitPriceMinusDiscount() throws {
        #expect(try sessionFailure { editLine(&$0, 1) { $0["quantity"] = 2 } } == .badValue("order_lines[1].total_amount"))
        #expect(try sessionFailure { editLine(&$0, 0) { $0["total_discount_amount"] = 100 } }
                == .badValue("order_lines[0].total_amount"))
    }

    @Test func validateSession_Rejects_WhenOrderAmountDiffersFromLines() throws {
        #expect(try sessionFailure { $0["order_amount"] = 62401 } == .badValue("order_amount"))
        #expect(try sessionFailure { $0["order_amount"] = 0 } == .badValue("order_amount"))
    }

    @Test func validateSession_ChecksLineTotalsBeforeOrderAmount() throws {
        #expect(try sessionFailure {
            editLine(&$0, 1) { $0["total_amount"] = 3000 }
            $0["order_amount"] = 1
        } == .badValue("order_lines[1].total_amount"))
    }

    @Test func validateSession_LineTax_AcceptsWithinOneOfTheExactTax() throws {
        // 59500 at 20 %: exact tax 9916.67; 9916 and 9917 are within ±1 (order tax stays within ±2).
        for tax in [9916, 9917] {
            #expect(try sessionFailure { editLine(&$0, 0) { $0["total_tax_amount"] = tax } } == nil, "tax \(tax)")
        }
        // 2900 at 20 %: exact tax 483.33; 483 and 484 pass.
        for tax in [483, 484] {
            #expect(try sessionFailure { editLine(&$0, 1) { $0["total_tax_amount"] = tax } } == nil, "tax \(tax)")
        }
    }

    @Test func validateSession_Rejects_WhenLineTaxIsMoreThanOneOff() throws {
        for tax in [9915, 9918, 11900, 0] {
            #expect(try sessionFailure { editLine(&$0, 0) { $0["total_tax_amount"] = tax } }
                    == .badValue("order_lines[0].total_tax_amount"), "tax \(tax)")
        }
        for tax in [482, 485] {
            #expect(try sessionFailure { editLine(&$0, 1) { $0["total_tax_amount"] = tax } }
                    == .badValue("order_lines[1].total_tax_amount"), "tax \(tax)")
        }
    }

    @Test func validateSession_Rejects_TaxedLineWithoutTotalTaxAmount() throws {
        // Decision: an absent total_tax_amount counts as 0.
        #expect(try sessionFailure { editLine(&$0, 1) { $0["total_tax_amount"] = nil } } == .badValue("order_lines[1].total_tax_amount"))
    }

    @Test func validateSession_SkipsLineTax_WhenTaxRateIsZeroOrAbsent() throws {
        #expect(try sessionFailure {
            editLine(&$0, 0) { $0["tax_rate"] = 0; $0["total_tax_amount"] = 9917 }
        } == nil)
        #expect(try sessionFailure {
            editLine(&$0, 1) { $0["tax_rate"] = nil; $0["total_tax_amount"] = 483 }
        } == nil)
    }

    @Test func validateSession_ChecksOrderAmountBeforeLineTax() throws {
        #expect(try sessionFailure {
            editLine(&$0, 0) { $0["total_tax_amount"] = 1 }
            $0["order_amount"] = 5
        } == .badValue("order_amount"))
    }

    @Test func validateSession_OrderTax_FollowsTheDocsToleranceExample() throws {
        // (9917 + 483) − 2 ≤ order_tax_amount ≤ (9917 + 483) + 2: two lines of quantity 1.
        for tax in [10398, 10399, 10400, 10401, 10402] {
            #expect(try sessionFailure { $0["order_tax_amount"] = tax } == nil, "order tax \(tax)")
        }
        for tax in [10397, 10403, 0, 12480] {
            #expect(try sessionFailure { $0["order_tax_amount"] = tax } == .badValue("order_tax_amount"), "order tax \(tax)")
        }
    }

    @Test func validateSession_OrderTaxTolerance_IsTheSumOfQuantities() throws {
        // 5 + 1 items: ±6.
        func withFiveBatteries(_ orderTax: Int) throws -> KlarnaError? {
            try sessionFailure {
                editLine(&$0, 0) { line in
                    line["quantity"] = 5
                    line["unit_price"] = 11900
                    line["total_amount"] = 59500
                }
                $0["order_tax_amount"] = orderTax
            }
        }
        #expect(try withFiveBatteries(10406) == nil)
        #expect(try withFiveBatteries(10394) == nil)
        #expect(try withFiveBatteries(10407) == .badValue("order_tax_amount"))
        #expect(try withFiveBatteries(10393) == .badValue("order_tax_amount"))
    }

    @Test func validateSession_OrderTaxIsOptional() throws {
        #expect(try sessionFailure { $0["order_tax_amount"] = nil } == nil)
    }

    @Test func validateSession_USStyle_OrderTaxMustEqualSalesTaxLines() throws {
        func us(_ edit: (inout JSONObject) -> Void) throws -> KlarnaError? {
            sessionFailure(try body(KlarnaSessionFields.self, usSalesTaxExample, edit))
        }
        // No ±quantity tolerance in the US style.
        #expect(try us { $0["order_tax_amount"] = 999 } == .badValue("order_tax_amount"))
        #expect(try us { $0["order_tax_amount"] = 1001 } == .badValue("order_tax_amount"))
        #expect(try us { $0["order_tax_amount"] = 0 } == .badValue("order_tax_amount"))
        // The sales_tax line is part of order_amount.
        #expect(try us { $0["order_amount"] = 20000 } == .badValue("order_amount"))
        // tax_rate 0 on the lines: no per-line tax check.
        #expect(try us { editLine(&$0, 0) { $0["tax_rate"] = 0; $0["total_tax_amount"] = 0 } } == nil)
    }

    @Test func validateSession_OverflowingLineProduct_IsBadTotalAmount_NotACrash() throws {
        #expect(try sessionFailure {
            editLine(&$0, 0) { line in
                line["quantity"] = Int.max
                line["unit_price"] = 2
            }
        } == .badValue("order_lines[0].total_amount"))
        #expect(try sessionFailure {
            editLine(&$0, 0) { line in
                line["quantity"] = 1
                line["unit_price"] = Int.min
                line["total_discount_amount"] = 1
            }
        } == .badValue("order_lines[0].total_amount"))
    }

    @Test func validateSession_OverflowingLineSum_IsBadOrderAmount() throws {
        let huge = Int.min / 2
        let line: JSONObject = ["type": "discount", "name": "x", "quantity": 1, "unit_price": huge, "total_amount": huge]
        #expect(try sessionFailure {
            $0["order_lines"] = [line, line, line]
            $0["order_tax_amount"] = nil
        } == .badValue("order_amount"))
    }

    @Test func validateSession_OverflowingTaxProduct_IsBadTotalTaxAmount() throws {
        #expect(try sessionFailure { editLine(&$0, 0) { $0["total_tax_amount"] = Int.max } }
                == .badValue("order_lines[0].total_tax_amount"))
    }

    @Test func validateSession_OverflowingTaxSum_IsBadOrderTaxAmount() throws {
        let line: JSONObject = ["name": "x", "quantity": 1, "unit_price": 1, "total_amount": 1, "total_tax_amount": Int.max]
        #expect(try sessionFailure {
            $0["order_lines"] = [line, line]
            $0["order_amount"] = 2
            $0["order_tax_amount"] = 0
        } == .badValue("order_tax_amount"))
    }
}

// MARK: - Rule 7: market

@Suite struct PaymentsValidationMarketTests {
    @Test func validateSession_Rejects_CurrencyOfAnotherCountry() throws {
        #expect(try sessionFailure { $0["purchase_currency"] = "EUR" } == .badValue("purchase_currency"))
    }

    @Test func validateSession_Rejects_LocaleOfAnotherCountry() throws {
        #expect(try sessionFailure { $0["locale"] = "sv-SE" } == .badValue("locale"))
        #expect(try sessionFailure { $0["locale"] = "en-US" } == .badValue("locale"))
        // A bare language passes the pattern but is no market locale.
        #expect(try sessionFailure { $0["locale"] = "en" } == .badValue("locale"))
    }

    @Test func validateSession_Rejects_UnknownCountry() throws {
        #expect(try sessionFailure { $0["purchase_country"] = "XX" } == .badValue("purchase_country"))
        #expect(try sessionFailure { $0["purchase_country"] = "JP"; $0["purchase_currency"] = "JPY" } == .badValue("purchase_country"))
    }

    @Test func validateSession_ComparesMarketCaseInsensitively() throws {
        #expect(try sessionFailure {
            $0["purchase_country"] = "gb"
            $0["purchase_currency"] = "gbp"
            $0["locale"] = "EN-gb"
        } == nil)
    }

    @Test func validateSession_LocaleIsOptional() throws {
        #expect(try sessionFailure { $0["locale"] = nil } == nil)
    }

    @Test func validateSession_ChecksMarketLast() throws {
        // Currency and locale of another market, and a wrong order amount: the arithmetic is reported.
        #expect(try sessionFailure {
            $0["purchase_currency"] = "SEK"
            $0["locale"] = "sv-SE"
            $0["order_amount"] = 1
        } == .badValue("order_amount"))
        // Country before currency before locale.
        #expect(try sessionFailure { $0["purchase_currency"] = "SEK"; $0["locale"] = "sv-SE" } == .badValue("purchase_currency"))
    }

    @Test func markets_CoverEveryRowOfTheDocsTable() {
        let expected: [String: String] = [
            "AU": "AUD", "AT": "EUR", "BE": "EUR", "CA": "CAD", "CZ": "CZK", "DK": "DKK", "FI": "EUR", "FR": "EUR",
            "DE": "EUR", "GR": "EUR", "ES": "EUR", "GB": "GBP", "IT": "EUR", "NL": "EUR", "NO": "NOK", "PL": "PLN",
            "SE": "SEK", "CH": "CHF", "US": "USD", "IE": "EUR", "PT": "EUR", "HU": "HUF", "RO": "RON", "SK": "EUR",
            "MX": "MXN", "NZ": "NZD",
        ]
        #expect(Set(PaymentsValidation.markets.keys) == Set(expected.keys))
        for (country, currency) in expected {
            let market = PaymentsValidation.markets[country]
            #expect(market?.currency == currency, "\(country)")
            // Every market takes English for its own country.
            #expect(market?.locales.contains("en-\(country)") == true, "\(country)")
        }
        #expect(PaymentsValidation.markets["AT"]?.locales.contains("de-DE") == true)
        #expect(PaymentsValidation.markets["DE"]?.locales.contains("de-AT") == true)
        #expect(PaymentsValidation.markets["CH"]?.locales == ["de-CH", "fr-CH", "it-CH", "en-CH"])
    }

    @Test(arguments: PaymentsValidation.markets.keys.sorted())
    func validateSession_Accepts_EveryMarketLocale(country: String) throws {
        let market = try #require(PaymentsValidation.markets[country])
        for locale in market.locales {
            let error = try sessionFailure {
                $0["purchase_country"] = country
                $0["purchase_currency"] = market.currency
                $0["locale"] = locale
            }
            #expect(error == nil, "\(country) \(locale)")
        }
    }
}

// MARK: - Create order and customer token

@Suite struct PaymentsValidationOrderAndTokenTests {
    @Test func validateCreateOrder_AppliesTheSessionRules() throws {
        func orderFailure(_ edit: (inout JSONObject) -> Void) throws -> KlarnaError? {
            let request = try body(KlarnaCreateOrderRequest.self, usOrderExample, edit)
            return failure { () throws(KlarnaError) in try PaymentsValidation.validateCreateOrder(request) }
        }
        #expect(try orderFailure { $0["order_lines"] = nil } == .badValue("order_lines"))
        #expect(try orderFailure { $0["order_amount"] = 11 } == .badValue("order_amount"))
        #expect(try orderFailure { editObject(&$0, "billing_address") { $0["postal_code"] = "90210-12345" } }
                == .badValue("billing_address.postal_code"))
        #expect(try orderFailure { $0["purchase_currency"] = "CAD" } == .badValue("purchase_currency"))
    }

    @Test(arguments: ["description", "intended_use", "locale", "purchase_country", "purchase_currency"])
    func validateCustomerToken_Rejects_WhenRequiredFieldMissing(field: String) throws {
        #expect(try tokenFailure { $0[field] = nil } == .badValue(field))
    }

    @Test func validateCustomerToken_ReportsRequiredFieldsInDocsOrder() throws {
        let request = try body(KlarnaCustomerTokenRequest.self, "{}")
        #expect(failure { () throws(KlarnaError) in try PaymentsValidation.validateCustomerToken(request) } == .badValue("description"))
    }

    @Test func validateCustomerToken_Rejects_BadDescription() throws {
        #expect(try tokenFailure { $0["description"] = "" } == .badValue("description"))
        #expect(try tokenFailure { $0["description"] = string(256) } == .badValue("description"))
        #expect(try tokenFailure { $0["description"] = string(255) } == nil)
    }

    @Test func validateCustomerToken_Rejects_IntendedUseOtherThanSubscription() throws {
        #expect(try tokenFailure { $0["intended_use"] = "subscription" } == .badValue("intended_use"))
        #expect(try tokenFailure { $0["intended_use"] = "ONE_TIME" } == .badValue("intended_use"))
    }

    @Test func validateCustomerToken_Rejects_BadFormats() throws {
        #expect(try tokenFailure { $0["locale"] = "sv_SE" } == .badValue("locale"))
        #expect(try tokenFailure { $0["purchase_country"] = "SWE" } == .badValue("purchase_country"))
        #expect(try tokenFailure { $0["purchase_currency"] = "KR" } == .badValue("purchase_currency"))
        #expect(try tokenFailure { editObject(&$0, "billing_address") { $0["postal_code"] = string(11, "1") } }
                == .badValue("billing_address.postal_code"))
        #expect(try tokenFailure { $0["customer"] = ["type": "robot"] } == .badValue("customer.type"))
    }

    @Test func validateCustomerToken_Rejects_MarketInconsistency() throws {
        #expect(try tokenFailure { $0["purchase_currency"] = "NOK" } == .badValue("purchase_currency"))
        #expect(try tokenFailure { $0["locale"] = "nb-NO" } == .badValue("locale"))
        #expect(try tokenFailure { $0["purchase_country"] = "ZZ" } == .badValue("purchase_country"))
        #expect(try tokenFailure { $0["purchase_country"] = "se"; $0["purchase_currency"] = "sek"; $0["locale"] = "EN-se" } == nil)
    }
}

// MARK: - Rule 8: mismatch (create-order consistency)

@Suite struct PaymentsValidationMismatchTests {
    private func order(_ edit: (inout JSONObject) -> Void = { _ in }) throws -> KlarnaSessionFields {
        try body(KlarnaSessionFields.self, usOrderExample, edit)
    }

    @Test func mismatch_IsNil_WhenEverythingMatches() throws {
        #expect(PaymentsValidation.mismatch(authorized: try order(), order: try order()) == nil)
    }

    @Test func mismatch_NamesTheDifferingPostalCode_As409BadValue() throws {
        let error = try #require(PaymentsValidation.mismatch(
            authorized: try order(),
            order: try order { editObject(&$0, "billing_address") { $0["postal_code"] = "90211" } }))
        #expect(error.status == .conflict)
        #expect(error.code == "BAD_VALUE")
        #expect(error.messages == ["Not matching fields: [billing_address.postal_code]"])
        #expect(error == .notMatching(["billing_address.postal_code"]))
    }

    @Test func mismatch_ReportsCartSizeAsOneMessage() throws {
        let authorized = try order {
            var lines = $0["order_lines"] as! [JSONObject]
            lines.append(lines[0])
            $0["order_lines"] = lines
        }
        let placed = try order {
            var lines = $0["order_lines"] as! [JSONObject]
            lines += [lines[0], lines[0]]
            $0["order_lines"] = lines
        }
        #expect(PaymentsValidation.mismatch(authorized: authorized, order: placed)?.messages
                == ["Not matching fields: [Incorrect number of items in the cart. Expected: 2, Actual: 3]"])
    }

    @Test func mismatch_ListsSeveralFields_InDocumentedOrder() throws {
        let authorized = try order { $0["shipping_address"] = ["organization_name": "Acme", "city": "Beverly Hills"] }
        let placed = try order {
            $0["shipping_address"] = ["organization_name": "Acme Inc", "city": "Beverly Hills"]
            editObject(&$0, "billing_address") { address in
                address["postal_code"] = "10001"
                address["city"] = "New York"
                address["street_address2"] = nil
            }
            editLine(&$0, 0) { line in
                line["quantity"] = 2
                line["total_amount"] = 20
            }
            $0["order_amount"] = 20
            $0["purchase_currency"] = "EUR"
            $0["purchase_country"] = "DE"
        }
        #expect(PaymentsValidation.mismatch(authorized: authorized, order: placed) == .notMatching([
            "billing_address.city", "billing_address.postal_code", "billing_address.street_address2",
            "shipping_address.organization_name",
            "order_lines[0].quantity", "order_lines[0].total_amount",
            "order_amount", "purchase_currency", "purchase_country",
        ]))
    }

    @Test func mismatch_AcceptsAnyAddress_WhenNoneWasAuthorized() throws {
        let authorized = try order { $0["billing_address"] = nil }
        #expect(PaymentsValidation.mismatch(authorized: authorized, order: try order()) == nil)
        // An empty authorized object is "an empty payload" too.
        let emptyObject = try order { $0["billing_address"] = [:] as JSONObject; $0["shipping_address"] = [:] as JSONObject }
        let placed = try order { $0["shipping_address"] = ["city": "Springfield"] }
        #expect(PaymentsValidation.mismatch(authorized: emptyObject, order: placed) == nil)
    }

    @Test func mismatch_ReportsEveryAuthorizedField_WhenTheOrderDropsTheAddress() throws {
        let authorized = try order { $0["shipping_address"] = ["city": "Springfield", "country": "US"] }
        #expect(PaymentsValidation.mismatch(authorized: authorized, order: try order()) ==
                .notMatching(["shipping_address.city", "shipping_address.country"]))
    }

    @Test func mismatch_ComparesAddressCountryIgnoringCase_OtherFieldsExactly() throws {
        let lowerCountry = try order { editObject(&$0, "billing_address") { $0["country"] = "us" } }
        #expect(PaymentsValidation.mismatch(authorized: try order(), order: lowerCountry) == nil)
        let lowerCity = try order { editObject(&$0, "billing_address") { $0["city"] = "beverly hills" } }
        #expect(PaymentsValidation.mismatch(authorized: try order(), order: lowerCity) == .notMatching(["billing_address.city"]))
    }

    @Test func mismatch_ComparesCurrencyAndCountryIgnoringCase() throws {
        let lower = try order { $0["purchase_currency"] = "usd"; $0["purchase_country"] = "us" }
        #expect(PaymentsValidation.mismatch(authorized: try order(), order: lower) == nil)
    }

    @Test func mismatch_TreatsAbsentZeroDefaultsAsZero_InOrderLines() throws {
        let placed = try order {
            editLine(&$0, 0) { line in
                line["tax_rate"] = nil
                line["total_discount_amount"] = nil
                line["total_tax_amount"] = nil
            }
        }
        #expect(PaymentsValidation.mismatch(authorized: try order(), order: placed) == nil)
    }

    @Test func mismatch_NamesOtherLineFields() throws {
        let placed = try order {
            editLine(&$0, 0) { line in
                line["name"] = "Battery Power Pack XL"
                line["reference"] = nil
                line["product_identifiers"] = ["brand": "Acme"]
            }
        }
        #expect(PaymentsValidation.mismatch(authorized: try order(), order: placed) ==
                .notMatching(["order_lines[0].reference", "order_lines[0].name", "order_lines[0].product_identifiers"]))
    }
}
