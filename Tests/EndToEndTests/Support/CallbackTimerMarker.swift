// SPDX-License-Identifier: MIT
// Markers that prove a provider's callback timer has looked at the namespace clocks since a test moved one, so a
// test can then assert that a callback was *not* called, without sleeping and hoping it would have been by then.
import Foundation
import PaymentSandbox
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

/// The port nothing listens on (connection refused): a marker's call fails at once and is journaled with status 0.
private let closedPortURL = "http://127.0.0.1:9/marker"

/// A Klarna HPP status_update callback in a namespace of its own, late by 300 s of that namespace's clock (the bundled
/// `callback-late` scenario), to a closed port. All of Klarna HPP's waiting callbacks share one timer, which looks
/// at every waiting callback each time it fires; ``fire()`` moves the marker's clock to its due time and returns once
/// the journal shows its call: by then the timer has looked at every other namespace's clock as moved before the
/// call to ``fire()``, and any callback due by then has been released (its call started).
///
/// Start it early in the test (before the clock move it is to follow), so its wait is on the timer well before.
struct KlarnaCallbackMarker {
    let client: KlarnaClient

    static func start(_ server: RunningServer, sourceLocation: SourceLocation = #_sourceLocation) async throws -> KlarnaCallbackMarker {
        let client = KlarnaClient(server, namespace: uniqueNamespace("timer-marker"))
        try await client.useScenario("callback-late", sourceLocation: sourceLocation)
        let kp = try await client.newSession(sourceLocation: sourceLocation)
        let id = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: #"{"status_update": "\#(closedPortURL)"}"#),
                                                        sourceLocation: sourceLocation)
        let deleted = try await client.delete("/hpp/v1/sessions/\(id)")   // DISABLED: its callback waits 300 s
        try #require(deleted.status == 204, "\(deleted)", sourceLocation: sourceLocation)
        let pending = try await client.outbox.list()
        try #require(states(pending) == ["pending"], "the marker waits: \(pending)", sourceLocation: sourceLocation)
        return KlarnaCallbackMarker(client: client)
    }

    /// Moves the marker's clock by its 300 s and waits for its call in the journal.
    func fire(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await client.advanceClock(seconds: 300, sourceLocation: sourceLocation)
        let entries = try await KlarnaHPP.waitForJournal(client, "method=CALLBACK", count: 1)
        try #require(entries.count == 1 && entries[0]["path"] as? String == closedPortURL, "the marker's call: \(entries)",
                     sourceLocation: sourceLocation)
    }
}

/// The same for Swedbank Pay's payment order callbacks (``KlarnaCallbackMarker``): an order in a namespace of its own,
/// paid under `swedbankpay-callback-late` (300 s of its clock), whose callbackUrl is a closed port.
struct SwedbankPayCallbackMarker {
    let client: SwedbankPayClient

    static func start(_ sandbox: PaymentSandbox, _ server: RunningServer, sourceLocation: SourceLocation = #_sourceLocation)
    async throws -> SwedbankPayCallbackMarker {
        let client = SwedbankPayClient(server, token: "timer-marker-\(UUID().uuidString.prefix(8).lowercased())")
        let id = try await client.newOrder(SwedbankPayExamples.order(callbackUrl: closedPortURL),
                                           headers: [("Sandbox-Scenario", "swedbankpay-callback-late")], sourceLocation: sourceLocation)
        let namespace = Namespace(client.namespaceName)
        let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
        sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization, details: SwedbankPayPaymentOrderTests.cardDetails)
        let pending = try await SwedbankPayCallbackScenarioTests.outbox(client).list()
        try #require(states(pending) == ["pending"], "the marker waits: \(pending)", sourceLocation: sourceLocation)
        return SwedbankPayCallbackMarker(client: client)
    }

    /// Moves the marker's clock by its 300 s and waits for its call in the journal.
    func fire(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await client.advanceClock(seconds: 300)
        let entries = try await client.waitForJournal("method=CALLBACK", count: 1)
        try #require(entries.count == 1 && entries[0]["path"] as? String == closedPortURL, "the marker's call: \(entries)",
                     sourceLocation: sourceLocation)
    }
}
