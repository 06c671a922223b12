// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@Suite struct JournalTests {
    let registry = NamespaceRegistry(clock: ManualClock())

    func record(_ journal: Journal, _ method: HTTPMethod, _ target: String, status: Int, namespace: String = "a", body: String = "",
                note: (any CustomStringConvertible & Sendable)? = nil) throws {
        let request = try HTTPRequest(method: method, target: target, headers: ["Sandbox-Namespace": namespace], body: Data(body.utf8))
        journal.exchangeCompleted(request, HTTPResponse(status: HTTPStatus(code: status)), note: note, durationSeconds: 0.001)
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

    @Test func journal_JournalsAProvidersSandboxPrefix_OnlyOnceDeclared_InTheNamespaceItsHandlerNamed() throws {
        let journal = Journal(capacity: 10, registry: registry)
        try record(journal, .post, "/__sandbox/acme/pages/p1/pay", status: 200)
        #expect(journal.entries(Namespace("a"), .init()).isEmpty)
        journal.journal(sandboxPathPrefix: "/__sandbox/acme/")
        // The handler of p1 knows its page belongs to "owner" and says so in its note; p2's names no namespace.
        try record(journal, .post, "/__sandbox/acme/pages/p1/pay", status: 200, note: NamespaceNote(Namespace("owner")))
        try record(journal, .post, "/__sandbox/acme/pages/p2/pay", status: 200, note: NamespaceNote(nil))
        try record(journal, .get, "/__sandbox/acmeish", status: 404)
        #expect(journal.entries(Namespace("owner"), .init()).map(\.path) == ["/__sandbox/acme/pages/p1/pay"])
        #expect(journal.entries(Namespace("a"), .init()).map(\.path) == ["/__sandbox/acme/pages/p2/pay"])
    }

    /// A note of another ``JournalNote`` type names its namespace through the general cast; the entry point of an
    /// observer that read the namespace itself (the metrics, for a scenario's note) journals the same entries.
    @Test func journal_FilesAJournalNote_AsAnObserverThatReadItsNamespaceDoes() throws {
        struct OtherNote: JournalNote {
            var namespace: Namespace?
            var description: String { "other note" }
        }
        let viaCast = Journal(capacity: 4, registry: registry), viaObserver = Journal(capacity: 4, registry: registry)
        for namespace in [Namespace("owner"), nil] {
            let request = try HTTPRequest(method: .post, target: "/payments/v1/sessions?x=1", headers: ["Sandbox-Namespace": "a"],
                                          body: Data("{}".utf8))
            let exchange = HTTPExchange(request: request, response: HTTPResponse(status: .ok), note: OtherNote(namespace: namespace))
            viaCast.exchangeCompleted(exchange, durationSeconds: 0.5)
            viaObserver.exchangeCompleted(exchange, durationSeconds: 0.5, noteNamespace: namespace)
        }
        func summary(_ journal: Journal) -> [String] {
            (journal.allEntries(Namespace("owner")) + journal.allEntries(Namespace("a"))).map {
                "\($0.namespace) \($0.method) \($0.path) \($0.query ?? "-") \($0.status) \($0.note) \($0.requestBody) \($0.headers.count)"
            }
        }
        #expect(summary(viaCast) == ["owner POST /payments/v1/sessions x=1 200 other note {} 1",
                                     "a POST /payments/v1/sessions x=1 200 other note {} 1"])
        #expect(summary(viaObserver) == summary(viaCast))
    }

    @Test func journal_IsPerNamespace_AndLeavesOutControlEndpoints() throws {
        let journal = Journal(capacity: 10, registry: registry)
        journal.journal(sandboxPathPrefix: "/__sandbox/klarna/")   // a provider's endpoints under /__sandbox/
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

    /// An entry's body is a copy of the prefix, not a slice of the request's buffer (which would keep all of it alive).
    @Test func journal_EntryOwnsItsPrefix_NotTheRequestBuffer() throws {
        let journal = Journal(capacity: 4, registry: registry)
        let body = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        let request = try HTTPRequest(method: .post, target: "/payments/v1/sessions", headers: ["Sandbox-Namespace": "a"], body: body)
        journal.exchangeCompleted(request, HTTPResponse(status: HTTPStatus(code: 401)), durationSeconds: 0.001)
        journal.record(Namespace("a"), method: "DISTRIBUTION", path: "http://localhost/hpp/payments/x", status: 0, note: "", body: body)
        let entries = journal.entries(Namespace("a"), .init())
        #expect(entries.count == 2)
        let buffer = body.withUnsafeBytes { UInt(bitPattern: $0.baseAddress)..<(UInt(bitPattern: $0.baseAddress) + UInt($0.count)) }
        for entry in entries {
            #expect(entry.requestBodyBytes.count == journal.bodyLimit)
            #expect(entry.requestBodyTruncated)
            let stored = entry.requestBodyBytes.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
            #expect(!buffer.contains(stored), "\(entry.method): the entry points into the request's 1 MiB buffer")
        }
    }

    /// A 60 KB path and a 3 KB query are kept as their first 2 KiB (cut back to a whole character), flagged;
    /// normal targets are kept whole and the path filter still finds them.
    @Test func journal_CutsLongPathsAndQueries() throws {
        let journal = Journal(capacity: 4, registry: registry)
        // "é" is two bytes: the 2 KiB cut falls inside one and backs off to 2047 bytes.
        let long = "/payments/v1/sessions/x" + String(repeating: "%C3%A9", count: 30_000)
        try record(journal, .get, long + "?q=" + String(repeating: "x", count: 3000), status: 401)
        try record(journal, .get, "/payments/v1/sessions/abc?expand=all", status: 404)
        let entries = journal.entries(Namespace("a"), .init())
        #expect(entries.count == 2)
        let cut = try #require(entries.first)
        #expect(cut.path.utf8.count == 2047 && cut.path.hasPrefix("/payments/v1/sessions/xé") && cut.path.hasSuffix("é"))
        #expect(!cut.path.contains("\u{FFFD}"))
        #expect(cut.pathTruncated)
        #expect(cut.query == "q=" + String(repeating: "x", count: Journal.textLimit - 2))
        #expect(cut.queryTruncated)
        let whole = try #require(entries.last)
        #expect(whole.path == "/payments/v1/sessions/abc" && whole.query == "expand=all")
        #expect(!whole.pathTruncated && !whole.queryTruncated)
        #expect(journal.entries(Namespace("a"), .init(pathPrefix: "/payments/v1/sessions/abc")).map(\.status) == [404])
        #expect(journal.entries(Namespace("a"), .init(pathPrefix: "/payments/v1/sessions/x")).map(\.status) == [401])
    }

    struct LongDescription: CustomStringConvertible, Sendable { var description: String { String(repeating: "d", count: 10_000) } }

    /// Notes of every kind are cut to 2 KiB and marked: text given to ``Journal/record`` (a DISTRIBUTION's
    /// 4 MiB "e-mail"), text and described values handed over as an exchange's note. Short notes stay whole.
    @Test func journal_CutsLongNotes() throws {
        let journal = Journal(capacity: 8, registry: registry)
        let huge = String(repeating: "e", count: 4 << 20)
        journal.record(Namespace("a"), method: "DISTRIBUTION", path: "http://localhost/hpp/payments/x", status: 0, note: "email to " + huge)
        journal.record(Namespace("a"), method: "CALLBACK", path: "http://localhost/cb", status: 0, note: "attempt 1: refused")
        for diagnostic in [huge as any CustomStringConvertible & Sendable, LongDescription()] {
            let request = try HTTPRequest(method: .post, target: "/payments/v1/sessions", headers: ["Sandbox-Namespace": "a"])
            journal.exchangeCompleted(request, HTTPResponse(status: .ok), note: diagnostic, durationSeconds: 0.001)
        }
        let notes = journal.entries(Namespace("a"), .init()).map(\.note)
        #expect(notes.count == 4)
        #expect(notes[0] == "email to " + String(repeating: "e", count: Journal.textLimit - 9) + Journal.truncationMarker)
        #expect(notes[1] == "attempt 1: refused")
        #expect(notes[2] == String(repeating: "e", count: Journal.textLimit) + Journal.truncationMarker)
        #expect(notes[3] == String(repeating: "d", count: Journal.textLimit) + Journal.truncationMarker)
    }

    /// A DISTRIBUTION's or CALLBACK's path (a URL the sandbox was given) is cut likewise.
    @Test func journal_CutsLongRecordedPaths() {
        let journal = Journal(capacity: 2, registry: registry)
        journal.record(Namespace("a"), method: "CALLBACK", path: "http://localhost/" + String(repeating: "p", count: 70_000), status: 0, note: "")
        let entry = journal.entries(Namespace("a"), .init()).first
        #expect(entry?.path.utf8.count == Journal.textLimit && entry?.pathTruncated == true)
    }

    #if os(Linux)
    /// Resident memory from /proc/self/statm (its second field, in pages).
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// 300 calls with 1 MiB bodies (a 401 journals its body too) leave the process no more than a few MiB
    /// bigger: each entry keeps its 4 KiB prefix (1.2 MiB in all), not the 300 MiB of bodies.
    @Test func journal_OfLargeBodies_KeepsOnlyThePrefixesInMemory() throws {
        let journal = Journal(capacity: 10_000, registry: registry)
        let before = try #require(Self.residentBytes())
        for _ in 0..<300 {
            // Filled with 'x': every page is written, so each body is resident while it lives.
            let body = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
            let request = try HTTPRequest(method: .post, target: "/payments/v1/sessions", headers: ["Sandbox-Namespace": "rss"], body: body)
            journal.exchangeCompleted(request, HTTPResponse(status: HTTPStatus(code: 401)), durationSeconds: 0.001)
        }
        let after = try #require(Self.residentBytes())
        #expect(journal.entries(Namespace("rss"), .init(limit: 1000)).count == 300)
        // Other tests of the process run at the same time: the margin is wide, the old slices kept 300 MiB.
        #expect(after - before < 64 << 20, "resident memory grew by \((after - before) >> 20) MiB")
    }

    #endif
}
