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
///
/// Each callback is kept in the outbox (`/__sandbox/callbacks`, object: the payment order id) and played as
/// `swedbankpay.paymentorders.callback` under the order's scenario, else the namespace default; field conditions
/// look at the body, sequences count the order's callbacks.
final class SwedbankPayCallbacks: Sendable {
    private let configuration: SwedbankPayConfiguration
    private let sender: CallbackSender
    private let scenarios: ScenarioEngine?
    private let scenarioOf: @Sendable (Namespace, String) -> String?
    /// Per order, the last callback whose scenario holds the payer's redirect (`callback_before_redirect`).
    private let heldRedirects = Locked<[String: CallbackDelivery]>([:])

    init(registry: NamespaceRegistry, configuration: SwedbankPayConfiguration, journal: Journal?, outbox: CallbackOutbox? = nil,
         scenarios: ScenarioEngine? = nil, scenarioOf: @escaping @Sendable (Namespace, String) -> String? = { _, _ in nil },
         generation: @escaping @Sendable (Namespace) -> Int) {
        self.configuration = configuration
        self.scenarios = scenarios
        self.scenarioOf = scenarioOf
        sender = CallbackSender(registry: registry, journal: journal, outbox: outbox, timeout: configuration.callbackTimeout,
                                clockPollInterval: configuration.callbackClockPollInterval, generation: generation)
    }

    /// Starts delivering `event`; returns at once.
    func send(_ event: SwedbankPayCallbackEvent) {
        // Both versions' bodies name the order as paymentOrder.id, "/psp/paymentorders/<id>" (swedbankpay-api.md §1.8).
        let resource = (try? JSONDocument.parse(event.body))?["paymentOrder"]?["id"]?.stringValue ?? ""
        let orderID = String(resource.split(separator: "/").last ?? "")
        let plan = scenarios?.planCallback(.swedbankPayPaymentOrderCallback, namespace: event.namespace, body: event.body,
                                           object: orderID, sticky: scenarioOf(event.namespace, orderID)) ?? .normal
        // Retried at fixed offsets after the first call (swedbankpay-api.md §1.8).
        let delivery = sender.send(Callback(namespace: event.namespace, url: event.url, body: event.body, note: event.note,
                                            object: orderID, operation: ScenarioOperation.swedbankPayPaymentOrderCallback.rawValue),
                                   retrying: .afterFirstCall(offsets: configuration.callbackRetryOffsets), plan: plan)
        if delivery.holdsRedirect {
            let key = Self.key(event.namespace, orderID), heldRedirects = self.heldRedirects
            heldRedirects.withLock { $0[key] = delivery }
            // Once answered there is nothing left to wait for.
            Task {
                await delivery.firstCallAnswered()
                heldRedirects.withLock { if $0[key]?.ids == delivery.ids { $0[key] = nil } }
            }
        }
    }

    /// `reply` (the answer that sends the payer to completeUrl or cancelUrl), after the order's last callback
    /// when its scenario says the redirect waits for it (`callback_before_redirect`).
    func beforeRedirect(_ namespace: Namespace, orderID: String, _ reply: HTTPReply) -> HTTPReply {
        let delivery = heldRedirects.withLock { $0.removeValue(forKey: Self.key(namespace, orderID)) }
        return delivery?.beforeRedirect(reply) ?? reply
    }

    private static func key(_ namespace: Namespace, _ orderID: String) -> String { "\(namespace.name)\u{0}\(orderID)" }
}
