// SPDX-License-Identifier: MIT
//
// memory-per-flow - what one finished purchase keeps in the sandbox's stores, in KiB, measured in one process.
//
//   Klarna:        POST /payments/v1/sessions, POST /__sandbox/klarna/payments/sessions/{id}/authorize (the SDK's
//                  part), POST /payments/v1/authorizations/{token}/order, GET /ordermanagement/v1/orders/{id},
//                  POST /ordermanagement/v1/orders/{id}/captures (with a Klarna-Idempotency-Key)
//   Swedbank Pay:  POST /psp/paymentorders (v3.1 Purchase), POST {redirect-checkout}/card (what the checkout page's
//                  card form posts, frictionless test card), POST /psp/paymentorders/{id}/captures (no callbackUrl:
//                  its callbacks would go out over the network)
//
// How: one in-process PaymentSandbox (SandboxClient, no socket; the journal's ring is 1 entry, so the capped journal
// does not count), WARMUP whole flows first (namespaces made, caches and pools grown), then FLOWS flows spread over
// 32 namespaces, run step by step (every flow's first request, then every flow's second, ...); heap bytes in use
// (glibc mallinfo2: uordblks + hblkhd, with one malloc arena so every thread's allocations are counted) before,
// after each step and at the end, divided by FLOWS. Every answer's status is checked; the sandbox stays alive until
// after the last reading. RSS before/after is printed too (coarser: whole pages, and freed memory is not given back).
//
// Run:    memory-per-flow [--flows 20000] [--warmup 2000]
// Prints: klarna_kib_per_flow=... swedbankpay_kib_per_order=... klarna_rss_kib_per_flow=... swedbankpay_rss_kib_per_order=... flows=...
//         klarna_steps: session=... authorize=... order=... read=... capture=... | swedbankpay_steps: create=... pay=... capture=...
import BenchRequests
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import HeapStatistics

// One arena: mallinfo2 reports the main arena only, and the concurrency pool's threads would otherwise get their own.
heap_statistics_use_one_arena()

let (flows, warmup) = { () -> (Int, Int) in
    var flows = 20_000, warmup = 2_000
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        if argument == "--flows", let value = arguments.popFirst().flatMap(Int.init), value > 0 {
            flows = value
        } else if argument == "--warmup", let value = arguments.popFirst().flatMap(Int.init), value >= 0 {
            warmup = value
        } else {
            FileHandle.standardError.write(Data("usage: memory-per-flow [--flows N] [--warmup N]\n".utf8))
            exit(2)
        }
    }
    return (flows, warmup)
}()

/// Heap bytes in use (glibc), else nil.
func heapInUse() -> Int? {
    let bytes = heap_statistics_in_use()
    return bytes < 0 ? nil : bytes
}

/// VmRSS in bytes (Linux), else nil.
func residentBytes() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
    return kib * 1024
}

func json(_ response: SandboxResponse, _ expected: Int, _ what: String) throws -> [String: Any] {
    guard response.status.code == expected else { throw BenchFailure(description: "\(what): \(response.status) \(response.text)") }
    return response.jsonObject() ?? [:]
}

/// A flow as steps, each run for every flow before the next (so the heap growth of each step shows on its own); a step
/// gets the flow's number and what the previous step returned.
struct Step {
    var name: String
    var run: (SandboxClient, Int, String) async throws -> String
}

/// The whole Klarna flow as user `kp-mem-<n mod 32>` (its namespace).
func klarnaAuth(_ n: Int) -> (user: String, password: String) { (user: "kp-mem-\(n % 32)", password: "secret") }
let klarnaSteps = [
    Step(name: "session") { client, n, _ in
        let session = try json(try await client.send("POST", "/payments/v1/sessions", json: klarnaCart, basicAuth: klarnaAuth(n)), 200, "session")
        guard let sessionID = session["session_id"] as? String else { throw BenchFailure(description: "no session_id") }
        return sessionID
    },
    Step(name: "authorize") { client, n, sessionID in
        let authorized = try json(try await client.send("POST", "/__sandbox/klarna/payments/sessions/\(sessionID)/authorize",
                                                        json: #"{"jsonData":{"billing_address":{"postal_code":"W1S 3BE"}}}"#,
                                                        basicAuth: klarnaAuth(n)), 200, "authorize")
        guard let token = authorized["authorization_token"] as? String else { throw BenchFailure(description: "no authorization_token") }
        return token
    },
    Step(name: "order") { client, n, token in
        let order = try json(try await client.send("POST", "/payments/v1/authorizations/\(token)/order", json: klarnaOrder,
                                                   basicAuth: klarnaAuth(n)), 200, "order")
        guard let orderID = order["order_id"] as? String else { throw BenchFailure(description: "no order_id") }
        return orderID
    },
    Step(name: "read") { client, n, orderID in
        _ = try json(try await client.send("GET", "/ordermanagement/v1/orders/\(orderID)", basicAuth: klarnaAuth(n)), 200, "read order")
        return orderID
    },
    Step(name: "capture") { client, n, orderID in
        let capture = try await client.send("POST", "/ordermanagement/v1/orders/\(orderID)/captures",
                                            json: #"{"captured_amount":62400,"description":"Shipped"}"#,
                                            headers: ["Klarna-Idempotency-Key": UUID().uuidString], basicAuth: klarnaAuth(n))
        guard capture.status == 201 else { throw BenchFailure(description: "capture: \(capture.status) \(capture.text)") }
        return orderID
    },
]

/// A paid and captured Swedbank Pay order with Bearer token `spay-mem-<n mod 32>` (its namespace); the order's id and
/// its redirect-checkout href travel between the steps as "<id> <href>".
func swedbankPayHeaders(_ n: Int) -> [String: String] {
    ["Authorization": "Bearer spay-mem-\(n % 32)", "Content-Type": "application/json;version=3.1"]
}
let swedbankPaySteps = [
    Step(name: "create") { client, n, _ in
        let create = #"""
        {"paymentorder": {"operation": "Purchase", "currency": "SEK", "amount": 1500, "vatAmount": 375,
        "description": "Test Purchase", "userAgent": "memory-per-flow", "language": "sv-SE",
        "urls": {"hostUrls": ["https://example.com"], "completeUrl": "https://example.com/done",
        "cancelUrl": "https://example.com/cancel"},
        "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "PO\#(n)"}}}
        """#
        let created = try json(try await client.send("POST", "/psp/paymentorders", json: create, headers: swedbankPayHeaders(n)),
                               200, "create")
        guard let id = (created["paymentOrder"] as? [String: Any])?["id"] as? String,
              let checkout = (created["operations"] as? [[String: Any]])?
                .first(where: { $0["rel"] as? String == "redirect-checkout" })?["href"] as? String
        else { throw BenchFailure(description: "no id or redirect-checkout in \(created)") }
        return id + " " + checkout
    },
    Step(name: "pay") { client, _, state in
        let checkout = String(state.split(separator: " ")[1])
        let paid = try await client.send("POST", checkout + "/card", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                         body: Data("pan=4925000000000004&expiry=12/33&cvc=123".utf8))
        guard paid.status.code < 400 else { throw BenchFailure(description: "card: \(paid.status) \(paid.text)") }
        return state
    },
    Step(name: "capture") { client, n, state in
        let id = String(state.split(separator: " ")[0])
        _ = try json(try await client.send("POST", id + "/captures", json: #"""
            {"transaction": {"description": "Capture", "amount": 1500, "vatAmount": 375, "payeeReference": "CAP\#(n)"}}
            """#, headers: swedbankPayHeaders(n)), 200, "capture")
        return state
    },
]

/// Runs `warmup` flows unmeasured, then `flows` flows step by step; heap and RSS bytes added per flow, in all and per step.
func measure(_ client: SandboxClient, _ steps: [Step]) async throws -> (heap: Double?, rss: Double?, perStep: [(String, Double?)]) {
    for n in 0..<warmup {
        var carried = ""
        for step in steps { carried = try await step.run(client, n, carried) }
    }
    let heapBefore = heapInUse(), rssBefore = residentBytes()
    var carried = [String](repeating: "", count: flows)
    var perStep: [(String, Double?)] = []
    var heapLast = heapBefore
    for step in steps {
        for index in 0..<flows { carried[index] = try await step.run(client, warmup + index, carried[index]) }
        let heap = heapInUse()
        perStep.append((step.name, perFlow(heapLast, heap)))
        heapLast = heap
    }
    carried = []
    let heapAfter = heapInUse(), rssAfter = residentBytes()
    return (perFlow(heapBefore, heapAfter), perFlow(rssBefore, rssAfter), perStep)
}

func perFlow(_ before: Int?, _ after: Int?) -> Double? {
    guard let before, let after else { return nil }
    return Double(after - before) / Double(flows) / 1024
}

var configuration = SandboxConfiguration()
configuration.journalCapacity = 1
let sandbox = PaymentSandbox(configuration: configuration)
let client = try SandboxClient(sandbox: sandbox)
// Swedbank Pay first, then Klarna: each figure is what its own flows added.
let swedbankPay = try await measure(client, swedbankPaySteps)
let klarna = try await measure(client, klarnaSteps)
withExtendedLifetime(sandbox) {}
func format(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "n/a" }
print("klarna_kib_per_flow=\(format(klarna.heap)) swedbankpay_kib_per_order=\(format(swedbankPay.heap))"
      + " klarna_rss_kib_per_flow=\(format(klarna.rss)) swedbankpay_rss_kib_per_order=\(format(swedbankPay.rss)) flows=\(flows)")
// The heap growth per step, KiB per flow (what each request left behind).
print("klarna_steps: " + klarna.perStep.map { "\($0.0)=\(format($0.1))" }.joined(separator: " ")
      + " | swedbankpay_steps: " + swedbankPay.perStep.map { "\($0.0)=\(format($0.1))" }.joined(separator: " "))
