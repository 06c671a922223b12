// SPDX-License-Identifier: MIT
// Held waits of the journal and the outbox: at once for what is there, woken by an append, nil on timeout and on
// cancellation, and let go afterwards; the journal's bounded copy of request headers.
import Foundation
import Testing
@testable import SandboxCore

@Suite struct HeldWaitTests {
    let registry = NamespaceRegistry(clock: ManualClock())

    func record(_ journal: Journal, _ target: String, namespace: String = "a", headers: [(String, String)] = []) throws {
        var fields = HTTPHeaders(headers)
        fields.add(name: "Sandbox-Namespace", value: namespace)
        let request = try HTTPRequest(method: .get, target: target, headers: fields)
        journal.exchangeCompleted(request, HTTPResponse(), note: nil, durationSeconds: 0.001)
    }

    @Test func journalWait_FindsAnEntryThere_AfterTheSequenceGiven() async throws {
        let journal = Journal(capacity: 10, registry: registry)
        try record(journal, "/x?n=1")
        try record(journal, "/x?n=2")
        let first = await journal.waitForEntry(Namespace("a"), timeout: .seconds(5)) { $0.path == "/x" }
        #expect(first?.query == "n=1")
        let later = await journal.waitForEntry(Namespace("a"), after: 1, timeout: .seconds(5)) { $0.path == "/x" }
        #expect(later?.query == "n=2")
        #expect(journal.heldWaits == 0)
    }

    @Test func journalWait_IsWokenByItsNamespacesAppend() async throws {
        let journal = Journal(capacity: 10, registry: registry)
        let waiting = Task { await journal.waitForEntry(Namespace("a"), timeout: .seconds(20)) { $0.path == "/y" } }
        while journal.heldWaits == 0 { await Task.yield() }
        try record(journal, "/y", namespace: "b")
        try record(journal, "/other")
        try record(journal, "/y")
        let entry = await waiting.value
        #expect(entry?.namespace == Namespace("a") && entry?.path == "/y")
        #expect(journal.heldWaits == 0)
    }

    @Test func journalWait_EndsWithNilOnTimeoutAndOnCancellation() async throws {
        let journal = Journal(capacity: 10, registry: registry)
        #expect(await journal.waitForEntry(Namespace("a"), timeout: .milliseconds(20)) { _ in true } == nil)
        #expect(journal.heldWaits == 0)
        let waiting = Task { await journal.waitForEntry(Namespace("a"), timeout: .seconds(60)) { _ in true } }
        while journal.heldWaits == 0 { await Task.yield() }
        let started = ContinuousClock.now
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(journal.heldWaits == 0)
    }

    @Test func outboxWait_IsWokenByAChange() async throws {
        let outbox = CallbackOutbox(registry: registry)
        let id = outbox.add(Namespace("a"), object: "o", operation: "op", description: "d", url: "http://127.0.0.1:1/", headers: [],
                            body: Data(), state: .pending)
        let waiting = Task { await outbox.waitForCallback(Namespace("a"), timeout: .seconds(20)) { $0.state == .delivered } }
        while outbox.heldWaits == 0 { await Task.yield() }
        outbox.record(Namespace("a"), id, CallbackOutbox.Attempt(time: Date(), url: "http://127.0.0.1:1/", status: 204, error: nil),
                      state: .pending, due: nil)
        #expect(await waiting.value?.id == id)
        let figures = outbox.figures
        #expect(figures.counters.made == 1 && figures.counters.callsDelivered == 1 && figures.counters.retries == 0)
        #expect(figures.byState[.delivered] == 1 && figures.kept == 1)
    }

    @Test func journal_KeepsHeadersUpToItsTextLimit() throws {
        let journal = Journal(capacity: 10, registry: registry)
        try record(journal, "/small", headers: [("X-One", "1")])
        try record(journal, "/big", headers: [("X-Big", String(repeating: "b", count: 3000)), ("X-After", "2")])
        let entries = journal.entries(Namespace("a"), .init())
        #expect(entries[0].headers["X-One"] == "1" && !entries[0].headersTruncated)
        #expect(entries[1].headers["X-Big"] == nil && entries[1].headers["X-After"] == "2" && entries[1].headersTruncated)
    }
}
