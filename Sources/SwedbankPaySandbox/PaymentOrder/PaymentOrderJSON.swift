// SPDX-License-Identifier: MIT
import Foundation

// The payment order document and its sub-resources, written with JSONText in the reference's key order
// (swedbankpay-api.md §1.3, §1.4).

extension SwedbankPayOrderLedger.Order {
    /// The expandable nodes: the document's key and the sub-resource path segment (swedbankpay-api.md §1.3, §1.4).
    static let nodes: [(key: String, segment: String)] = [
        ("orderItems", "orderitems"), ("urls", "urls"), ("payeeInfo", "payeeinfo"), ("payer", "payers"), ("history", "history"),
        ("failed", "failed"), ("aborted", "aborted"), ("paid", "paid"), ("cancelled", "cancelled"), ("reversed", "reversed"),
        ("financialTransactions", "financialtransactions"), ("failedAttempts", "failedattempts"),
        ("postPurchaseFailedAttempts", "postpurchasefailedattempts"), ("metadata", "metadata"),
    ]

    /// `{"paymentOrder": {…}, "operations": [...]}` as compact JSON bytes; `expand` holds lower-cased node keys.
    func document(base: String, expand: Set<String>) -> Data {
        var json = JSONWriter()
        json.beginObject()
        json.key("paymentOrder")
        writePaymentOrder(&json, expand: expand)
        json.key("operations")
        json.beginArray()
        writeOperations(&json, base: base)
        json.endArray()
        json.endObject()
        return json.data
    }

    /// The `paymentOrder` object, its members in the reference's order (swedbankpay-api.md §1.3, §1.4).
    func writePaymentOrder(_ json: inout JSONWriter, expand: Set<String>) {
        let resourceID = resourceID
        json.beginObject()
        json.member("id", resourceID)
        json.member("created", SwedbankPayTimestamp.string(created))
        json.member("updated", SwedbankPayTimestamp.string(updated))
        json.member("operation", request.operation)
        json.member("status", status.rawValue)
        json.member("currency", request.currency)
        json.member("vatAmount", int: request.vatAmount)
        json.member("amount", int: request.amount)
        if payment != nil {
            // Only once a payment exists, right after the amounts (swedbankpay-api.md §1.4, §1.7).
            json.member("remainingCaptureAmount", int: remainingCaptureAmount)
            json.member("remainingCancellationAmount", int: remainingCancellationAmount)
            json.member("remainingReversalAmount", int: remainingReversalAmount)
        }
        json.member("description", request.description)
        json.member("initiatingSystemUserAgent", initiatingSystemUserAgent)
        json.member("language", request.language)
        json.key("availableInstruments")
        json.beginArray()
        for instrument in availableInstruments { json.element(instrument) }
        json.endArray()
        json.member("implementation", request.implementation ?? "PaymentsOnly")
        json.member("integration", integration)
        json.member("instrumentMode", bool: request.instrument != nil)
        json.member("guestMode", bool: request.payer?.payerReference == nil)
        if let instrument = request.instrument { json.member("instrument", instrument) }
        if let used = request.useToken, request.orderOperation.isMerchantInitiated {
            // The token the order was paid with, as the Recur page's response table lists `recurrenceToken` (developer
            // portal's Recur page; `unscheduledToken` inferred alike).
            json.member(used.kind.field, used.token)
        }
        for node in Self.nodes {
            json.key(node.key)
            if !expand.isEmpty && expand.contains(node.key.lowercased()) {
                json.value(expandedNode(node.key))
            } else {
                json.beginObject()
                json.member("id", resourceID, "/", node.segment)
                json.endObject()
            }
        }
        json.endObject()
    }

    func nodeID(_ segment: String) -> String { resourceID + "/" + segment }

    /// The operations the order's state offers, in the reference's order (swedbankpay-api.md §1.3); each href written
    /// from its parts.
    func writeOperations(_ json: inout JSONWriter, base: String) {
        let resourceID = resourceID
        switch status {
        case .initialized:
            if isAvailable("update-order") { Self.operation(&json, "PATCH", (base, resourceID, ""), "update-order") }
            if isAvailable("abort") { Self.operation(&json, "PATCH", (base, resourceID, ""), "abort") }
            Self.operation(&json, "PATCH", (base, resourceID, ""), "abort-paymentattempt")
            writeCheckoutOperations(&json, base: base)
            Self.operation(&json, "GET", (base, "/psp/paymentsessions/", token), "view-paymentsession")
        case .paid:
            if payment?.transactionType == .authorization, capturedAmount == 0, cancelledAmount == 0 {
                // No payer pages for a server-to-server order (inferred).
                Self.operation(&json, "POST", (base, resourceID, "/cancellations"), "cancel")
                Self.operation(&json, "POST", (base, resourceID, "/captures"), "capture")
                if !request.orderOperation.isMerchantInitiated { writeCheckoutOperations(&json, base: base) }
                return
            }
            if isAvailable("capture") { Self.operation(&json, "POST", (base, resourceID, "/captures"), "capture") }
            if isAvailable("cancel") { Self.operation(&json, "POST", (base, resourceID, "/cancellations"), "cancel") }
            if isAvailable("reversal") { Self.operation(&json, "POST", (base, resourceID, "/reversals"), "reversal") }
        case .failed, .cancelled, .aborted, .reversed:
            return
        }
    }

    /// redirect-checkout and view-checkout, the payer's pages.
    private func writeCheckoutOperations(_ json: inout JSONWriter, base: String) {
        Self.operation(&json, "GET", (base, "/checkout/", token), "redirect-checkout", contentType: "text/html")
        json.beginObject()
        json.member("method", "GET")
        json.member("href", base, "/checkout/client/", token, "?culture=", request.language)
        json.member("rel", "view-checkout")
        json.member("contentType", "application/javascript")
        json.endObject()
    }

    /// One entry of `operations`, its href the three parts joined.
    private static func operation(_ json: inout JSONWriter, _ method: String, _ href: (String, String, String), _ rel: String,
                                  contentType: String = "application/json") {
        json.beginObject()
        json.member("method", method)
        json.member("href", href.0, href.1, href.2)
        json.member("rel", rel)
        json.member("contentType", contentType)
        json.endObject()
    }

    /// One node, expanded (swedbankpay-api.md §1.4). Nodes that do not apply yet are just `{"id": …}` (inferred).
    func expandedNode(_ key: String) -> JSONText {
        let segment = Self.nodes.first { $0.key == key }?.segment ?? key.lowercased()
        var members: [(String, JSONText)] = [("id", .string(nodeID(segment)))]
        switch key {
        case "orderItems": members.append(("orderItemList", .array((request.orderItems ?? []).map(\.jsonText))))
        case "urls": members += urlsMembers()
        case "payeeInfo": members += payeeInfoMembers()
        case "payer": members += payerMembers()
        case "history": members.append(("historyList", .array(history.map(Self.historyJSON))))
        case "failed": if status == .failed, let failure { members.append(("problem", Self.problemJSON(failure))) }
        case "aborted": if let abortReason { members.append(("abortReason", .string(abortReason))) }
        case "paid": members += paidMembers()
        case "cancelled": members += cancelledMembers()
        case "reversed": members += reversedMembers()
        // `financialTransactionsList`, with the s: Swedbank Pay's PHP SDK (FinancialTransactionsInterface), its recorded
        // v3 capture response and the .NET SDK's fixtures (swedbankpay-api.md, Corrections and additions).
        case "financialTransactions": members.append(("financialTransactionsList", .array(transactions.map(financialTransactionJSON))))
        case "failedAttempts": members.append(("failedAttemptList", .array(failedAttempts.map(Self.failedAttemptJSON))))
        case "postPurchaseFailedAttempts": members.append(("postPurchaseFailedAttemptList", .array([])))
        case "metadata":
            for member in request.metadata?.members ?? [] where member.key != "id" { members.append((member.key, member.value.jsonText)) }
        default: break
        }
        return .object(members)
    }

    /// `urls`: a Recur or UnscheduledPurchase may send callbackUrl only: what was not sent is not shown.
    private func urlsMembers() -> [(String, JSONText)] {
        let urls = request.urls
        var members: [(String, JSONText)] = []
        if !urls.hostUrls.isEmpty || !request.orderOperation.isMerchantInitiated {
            members.append(("hostUrls", .array(urls.hostUrls.map(JSONText.string))))
        }
        if !urls.completeUrl.isEmpty || !request.orderOperation.isMerchantInitiated {
            members.append(("completeUrl", .string(urls.completeUrl)))
        }
        for (name, value) in [("cancelUrl", urls.cancelUrl), ("paymentUrl", urls.paymentUrl), ("callbackUrl", urls.callbackUrl),
                              ("logoUrl", urls.logoUrl), ("termsOfServiceUrl", urls.termsOfServiceUrl)] {
            if let value { members.append((name, .string(value))) }
        }
        return members
    }

    private func payeeInfoMembers() -> [(String, JSONText)] {
        let payee = request.payeeInfo
        var members: [(String, JSONText)] = [("payeeId", .string(payee.payeeId)), ("payeeReference", .string(payee.payeeReference))]
        for (name, value) in [("payeeName", payee.payeeName), ("orderReference", payee.orderReference),
                              ("productCategory", payee.productCategory), ("subsite", payee.subsite), ("siteId", payee.siteId)] {
            if let value { members.append((name, .string(value))) }
        }
        return members
    }

    private func payerMembers() -> [(String, JSONText)] {
        guard let payer = request.payer else { return [] }
        var members: [(String, JSONText)] = []
        if let reference = payer.payerReference { members.append(("reference", .string(reference))) }
        let name = [payer.firstName, payer.lastName].compactMap { $0 }.joined(separator: " ")
        if !name.isEmpty { members.append(("name", .string(name))) }
        if let email = payer.email { members.append(("email", .string(email))) }
        if let msisdn = payer.msisdn { members.append(("msisdn", .string(msisdn))) }
        return members
    }

    private static func historyJSON(_ entry: SwedbankPayOrderLedger.HistoryEntry) -> JSONText {
        var item: [(String, JSONText)] = [("created", .string(SwedbankPayTimestamp.string(entry.created))), ("name", .string(entry.name))]
        if let instrument = entry.instrument { item.append(("instrument", .string(instrument))) }
        if let number = entry.number { item.append(("number", .int(number))) }
        if let prefill = entry.prefill { item.append(("prefill", .bool(prefill))) }
        item.append(("initiatedBy", .string(entry.initiatedBy)))
        return .object(item)
    }

    private func paidMembers() -> [(String, JSONText)] {
        guard let payment else { return [] }
        var members: [(String, JSONText)] = [
            ("instrument", .string(payment.attempt.instrument)), ("number", .int(payment.attempt.id.number)),
            ("payeeReference", .string(request.payeeInfo.payeeReference)),
        ]
        if let reference = request.payeeInfo.orderReference { members.append(("orderReference", .string(reference))) }
        let tokenGenerated = generatedTokens.contains { $0.kind == .payment }
        members += [("transactionType", .string(payment.transactionType.rawValue)), ("amount", .int(payment.amount)),
                    ("submittedAmount", .int(payment.amount)), ("feeAmount", .int(0)), ("discountAmount", .int(0)),
                    ("paymentTokenGenerated", .bool(tokenGenerated))]
        if !generatedTokens.isEmpty {
            // `[{type, token, name, expiryDate}]` (developer portal, mobile SDK "Payment Tokens For Unscheduled Or
            // Recurring Purchases"); the list stays as generated after a token is deleted (inferred).
            members.append(("tokens", .array(generatedTokens.map { token in
                .object([("type", .string(token.kind.rawValue)), ("token", .string(token.token)), ("name", .string(token.name)),
                         ("expiryDate", .string(token.expiryDate))])
            })))
        }
        members.append(("details", payment.details))
        return members
    }

    private func cancelledMembers() -> [(String, JSONText)] {
        guard status == .cancelled || cancelledAmount > 0, let payment else { return [] }
        let cancellation = transactions.last { $0.type == "Cancellation" }
        var members: [(String, JSONText)] = [
            ("cancelReason", .string(cancelReason ?? "")), ("instrument", .string(payment.attempt.instrument)),
            ("number", .int(cancellation?.number ?? payment.attempt.id.number)),
            ("payeeReference", .string(cancellation?.payeeReference ?? request.payeeInfo.payeeReference)),
        ]
        if let reference = request.payeeInfo.orderReference { members.append(("orderReference", .string(reference))) }
        members += [("transactionType", .string("Authorization")), ("amount", .int(cancelledAmount)),
                    ("submittedAmount", .int(cancelledAmount)), ("feeAmount", .int(0)), ("discountAmount", .int(0))]
        return members
    }

    private func reversedMembers() -> [(String, JSONText)] {
        guard reversedAmount > 0, let payment, let last = transactions.last(where: { $0.type == "Reversal" }) else { return [] }
        return [("instrument", .string(payment.attempt.instrument)), ("number", .int(last.number)),
                ("payeeReference", .string(last.payeeReference)), ("transactionType", .string("Reversal")),
                ("amount", .int(reversedAmount))]
    }

    private func financialTransactionJSON(_ transaction: SwedbankPayOrderLedger.Transaction) -> JSONText {
        let id = "\(nodeID("financialtransactions"))/\(transaction.id)"
        var item: [(String, JSONText)] = [
            ("id", .string(id)), ("created", .string(SwedbankPayTimestamp.string(transaction.created))),
            ("updated", .string(SwedbankPayTimestamp.string(transaction.created))), ("type", .string(transaction.type)),
            ("number", .int(transaction.number)), ("amount", .int(transaction.amount)), ("vatAmount", .int(transaction.vatAmount)),
            ("description", .string(transaction.description)), ("payeeReference", .string(transaction.payeeReference)),
        ]
        if let receipt = transaction.receiptReference { item.append(("receiptReference", .string(receipt))) }
        item.append(("orderItems", .object([("id", .string("\(id)/orderitems"))])))
        return .object(item)
    }

    private static func failedAttemptJSON(_ attempt: SwedbankPayOrderLedger.FailedAttempt) -> JSONText {
        .object([("created", .string(SwedbankPayTimestamp.string(attempt.created))), ("instrument", .string(attempt.instrument)),
                 ("number", .int(attempt.number)), ("status", .string(attempt.status.rawValue)),
                 ("problem", problemJSON(attempt.problem))])
    }

    /// A problem inside a node: `{type, title, status, detail, problems}` (swedbankpay-api.md §1.4 `failed`).
    static func problemJSON(_ problem: SwedbankPayProblem) -> JSONText {
        .object([("type", .string(problem.type)), ("title", .string(problem.title)), ("status", .int(problem.status.code)),
                 ("detail", .string(problem.detail)),
                 ("problems", .array(problem.problems.map { .object([("name", .string($0.name)), ("description", .string($0.description))]) }))])
    }

    /// The v3.0 answer to a post-purchase call (swedbankpay-api.md §1.7): `{"payment": …, "<kind>": {id, transaction{…}}}`.
    func transactionAnswer(_ kind: SwedbankPayPostPurchase, _ transaction: SwedbankPayOrderLedger.Transaction) -> JSONText {
        guard let payment else { return .object([]) }
        let paymentPath = "/psp/\(SwedbankPayOrderLedger.instrumentSegment(payment.attempt.instrument))/payments/\(payment.attempt.paymentID)"
        let created = JSONText.string(SwedbankPayTimestamp.string(transaction.created))
        return .object([
            ("payment", .string(paymentPath)),
            (kind.key, .object([
                ("id", .string("\(paymentPath)/\(kind.collection)/\(transaction.id)")),
                ("transaction", .object([
                    ("id", .string("\(paymentPath)/transactions/\(transaction.id)")), ("created", created), ("updated", created),
                    ("type", .string(transaction.type)), ("state", .string("Completed")), ("number", .int(transaction.number)),
                    ("amount", .int(transaction.amount)), ("vatAmount", .int(transaction.vatAmount)),
                    ("description", .string(transaction.description)), ("payeeReference", .string(transaction.payeeReference)),
                ])),
            ])),
        ])
    }
}
