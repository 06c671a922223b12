// SPDX-License-Identifier: MIT
import Foundation

/// One callback to deliver: `POST <urls.callbackUrl>` with `body` (swedbankpay-api.md §1.8).
struct SwedbankPayCallbackEvent: Sendable {
    let namespace: Namespace
    let url: String
    let body: Data
    let note: String
}

/// Sends payment-order callbacks (swedbankpay-api.md §1.8) through the shared ``CallbackSender``, as Klarna HPP's
/// status callbacks do: each in its own task, never on the event loop, `Content-Type: application/json`, no auth.
/// A 2xx ends it (the docs say "expects 200 OK"; any 2xx is inferred leniency); anything else, or no answer within
/// ``SwedbankPayConfiguration/callbackTimeout``, is retried at ``SwedbankPayConfiguration/callbackRetryOffsets``
/// after the first call on the namespace's sandbox clock (§1.8: 30, 60, 360, 432, 864, 1265 s). Every call is
/// journaled as `CALLBACK <url> <status or 0>`. A namespace reset drops pending retries.
final class SwedbankPayCallbacks: Sendable {
    private let configuration: SwedbankPayConfiguration
    private let sender: CallbackSender

    init(registry: NamespaceRegistry, configuration: SwedbankPayConfiguration, journal: Journal?,
         generation: @escaping @Sendable (Namespace) -> Int) {
        self.configuration = configuration
        sender = CallbackSender(registry: registry, journal: journal, timeout: configuration.callbackTimeout,
                                clockPollInterval: configuration.callbackClockPollInterval, generation: generation)
    }

    /// Starts delivering `event`; returns at once.
    func send(_ event: SwedbankPayCallbackEvent) {
        // Retried at fixed offsets after the first call (swedbankpay-api.md §1.8).
        sender.send(Callback(namespace: event.namespace, url: event.url, body: event.body, note: event.note),
                    retrying: .afterFirstCall(offsets: configuration.callbackRetryOffsets))
    }
}
