// SPDX-License-Identifier: MIT
import Foundation
import SandboxScenarios
import Testing

/// The one sender every provider callback passes through: the journal entry of each call, worded by the caller's
/// retry schedule. A URL without a scheme fails at once, without the network.
@Suite("Callback sender")
struct CallbackSenderTests {
    let registry = NamespaceRegistry(clock: ManualClock())

    /// The notes of the namespace's CALLBACK entries once there are `count` of them (30 s at most: a busy CI machine under
    /// ThreadSanitizer can take seconds to start the first send task).
    func notes(_ journal: Journal, _ namespace: Namespace, count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let entries = journal.entries(namespace, .init()).filter { $0.method == "CALLBACK" }
            if entries.count >= count { return entries.map(\.note) }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("fewer than \(count) CALLBACK entries")
        return []
    }

    @Test("each schedule words its calls: attempt n/m and retry in s, or call n/m and the offset after the first call")
    func journalNotesPerSchedule() async throws {
        let journal = Journal(capacity: 16, registry: registry)
        let sender = CallbackSender(registry: registry, journal: journal, timeout: 1, clockPollInterval: .milliseconds(5)) { _ in 0 }
        let cases: [(CallbackRetrySchedule, String)] = [
            (.afterEachFailure(delay: 10, calls: 3), "status_update, attempt 1/3: not a URL: nowhere; retry in 10 s (sandbox clock)"),
            (.afterEachFailure(delay: 10, calls: 1), "status_update, attempt 1/1: not a URL: nowhere; giving up"),
            (.afterFirstCall(offsets: [30, 60]), "payment order, call 1/3: not a URL: nowhere; retry 30 s after the first call (sandbox clock)"),
            (.afterFirstCall(offsets: []), "payment order, call 1/1: not a URL: nowhere; giving up"),
        ]
        for (index, (schedule, note)) in cases.enumerated() {
            let namespace = Namespace("callbacks-\(index)")
            let label = note.prefix { $0 != "," }
            sender.send(Callback(namespace: namespace, url: "nowhere", body: Data("{}".utf8), note: String(label), requestID: "r\(index)"),
                        retrying: schedule)
            #expect(try await notes(journal, namespace, count: 1) == [note])
            let entry = try #require(journal.entries(namespace, .init()).first)
            #expect(entry.status == 0 && entry.requestID == "r\(index)" && entry.path == "nowhere")
        }
    }
}
