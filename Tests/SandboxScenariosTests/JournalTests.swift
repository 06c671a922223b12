// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxScenarios

@Suite struct JournalTests {
    let registry = NamespaceRegistry(clock: ManualClock())

    func record(_ journal: Journal, _ method: HTTPMethod, _ target: String, status: Int, namespace: String = "a", body: String = "") throws {
        let request = try HTTPRequest(method: method, target: target, headers: ["Sandbox-Namespace": namespace], body: Data(body.utf8))
        journal.exchangeCompleted(request, HTTPResponse(status: HTTPStatus(code: status)), durationSeconds: 0.001)
    }

    @Test func journal_KeepsTheNewestEntries_AndCountsDropped() throws {
        let journal = Journal(capacity: 3, registry: registry)
        for index in 0..<5 { try record(journal, .post, "/payments/v1/sessions?n=\(index)", status: 200) }
        let entries = journal.entries(Namespace("a"), .init())
        #expect(entries.map(\.query) == ["n=2", "n=3", "n=4"])
        #expect(entries.map(\.sequence) == [3, 4, 5])
        #expect(journal.dropped == 2)
    }

    @Test func journal_Filters_ByMethodPathStatusAndLimit() throws {
        let journal = Journal(capacity: 10, registry: registry)
        try record(journal, .post, "/payments/v1/sessions", status: 200)
        try record(journal, .get, "/payments/v1/sessions/x", status: 404)
        try record(journal, .post, "/payments/v1/authorizations/t/order", status: 409)
        try record(journal, .post, "/ordermanagement/v1/orders/o/captures", status: 201)
        let a = Namespace("a")
        #expect(journal.entries(a, .init(method: "post")).count == 3)
        #expect(journal.entries(a, .init(pathPrefix: "/payments/")).count == 3)
        #expect(journal.entries(a, .init(status: 409)).map(\.path) == ["/payments/v1/authorizations/t/order"])
        #expect(journal.entries(a, .init(limit: 1)).map(\.path) == ["/ordermanagement/v1/orders/o/captures"])
    }

    @Test func journal_IsPerNamespace_AndLeavesOutControlEndpoints() throws {
        let journal = Journal(capacity: 10, registry: registry)
        try record(journal, .post, "/payments/v1/sessions", status: 200, namespace: "a")
        try record(journal, .post, "/payments/v1/sessions", status: 200, namespace: "b")
        try record(journal, .get, "/__sandbox/health", status: 200, namespace: "a")
        try record(journal, .post, "/__sandbox/klarna/payments/sessions/s/authorize", status: 200, namespace: "a")
        #expect(journal.entries(Namespace("a"), .init()).map(\.path) == ["/payments/v1/sessions", "/__sandbox/klarna/payments/sessions/s/authorize"])
        journal.reset(Namespace("a"))
        #expect(journal.entries(Namespace("a"), .init()).isEmpty)
        #expect(journal.entries(Namespace("b"), .init()).count == 1)
        try record(journal, .post, "/payments/v1/sessions", status: 201, namespace: "a")
        #expect(journal.entries(Namespace("a"), .init()).map(\.status) == [201])
    }

    @Test func journal_CutsLongBodies() throws {
        let journal = Journal(capacity: 2, bodyLimit: 8, registry: registry)
        try record(journal, .post, "/payments/v1/sessions", status: 200, body: "0123456789")
        let entry = try #require(journal.entries(Namespace("a"), .init()).first)
        #expect(entry.requestBody == "01234567")
        #expect(entry.requestBodyTruncated)
    }
}
