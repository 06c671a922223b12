// SPDX-License-Identifier: MIT
//
// inprocess-instructions - the requests of scripts/bench/instructions.py's KINDs, served in-process (SandboxClient,
// no socket), N times; instructions.py's `measure-inprocess` runs it under callgrind at two N and differences.
//
// Run:    inprocess-instructions KIND N     (KIND: health, klarna-session, klarna-flow, swedbankpay-order)
// Prints: kind=... n=... requests=...       and exits 0; any unexpected answer exits 1.
//
// The sandbox is the in-process default (bundled scenarios) with the scenario watcher off: its scans run by the clock,
// not per request. The ids are taken from the answers' bytes, not through JSONSerialization, so that the figure is
// mostly the sandbox's own work; SandboxClient's building of each URLRequest and SandboxResponse is counted in it.
// The main thread waits on a semaphore (the work is a detached task: top-level code is the main actor's) rather than
// running Dispatch's main queue: valgrind 3.19 crashes in the signal thread that a top-level `await` makes of it.
import BenchRequests
import Foundation
import PaymentSandbox
import PaymentSandboxTesting

let klarnaAuth = (user: "kp-instr-0", password: "secret")
let swedbankPayHeaders = ["Authorization": "Bearer spay-instr-0", "Content-Type": "application/json;version=3.1"]

/// The answer, which must have `status`.
func expect(_ response: SandboxResponse, _ status: Int, _ what: String) throws -> SandboxResponse {
    guard response.status.code == status else { throw BenchFailure(description: "\(what): \(response.status) \(response.text)") }
    return response
}

/// The string value of the first `"name":"..."` in `response`'s body (the sandbox writes no space after the colon),
/// found in its bytes (Foundation's `range(of:)` would cost more than the sandbox's answer).
func member(_ name: String, in response: SandboxResponse) throws -> String {
    let body = [UInt8](response.body), key = Array("\"\(name)\":\"".utf8)
    guard let start = firstIndex(of: key, in: body, from: 0),
          let end = body[(start + key.count)...].firstIndex(of: UInt8(ascii: "\"")) else { throw BenchFailure(description: "no \(name) in \(response.text)") }
    return String(decoding: body[(start + key.count)..<end], as: UTF8.self)
}

/// Where `needle` first starts in `bytes` at or after `from`, over unsafe buffers (a loop over Array slices costs the
/// client more than the sandbox spends on some answers).
func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
    bytes.withUnsafeBufferPointer { haystack in
        needle.withUnsafeBufferPointer { needle in
            var index = from
            while index + needle.count <= haystack.count {
                if haystack[index] == needle[0], memcmp(haystack.baseAddress! + index, needle.baseAddress!, needle.count) == 0 { return index }
                index += 1
            }
            return nil
        }
    }
}

func klarnaSession(_ client: SandboxClient) async throws -> String {
    try member("session_id", in: expect(try await client.send("POST", "/payments/v1/sessions", json: klarnaCart, basicAuth: klarnaAuth), 200, "session"))
}

func klarnaFlow(_ client: SandboxClient) async throws {
    let session = try await klarnaSession(client)
    let authorized = try await client.send("POST", "/__sandbox/klarna/payments/sessions/\(session)/authorize",
                                           json: #"{"jsonData":{"billing_address":{"postal_code":"W1S 3BE"}}}"#, basicAuth: klarnaAuth)
    let token = try member("authorization_token", in: expect(authorized, 200, "authorize"))
    let created = try await client.send("POST", "/payments/v1/authorizations/\(token)/order", json: klarnaOrder, basicAuth: klarnaAuth)
    let orderID = try member("order_id", in: expect(created, 200, "order"))
    _ = try expect(try await client.send("POST", "/ordermanagement/v1/orders/\(orderID)/captures",
                                         json: #"{"captured_amount":62400,"description":"Shipped"}"#,
                                         headers: ["Klarna-Idempotency-Key": UUID().uuidString], basicAuth: klarnaAuth), 201, "capture")
}

func swedbankPayOrder(_ client: SandboxClient, _ n: Int) async throws {
    let create = #"{"paymentorder":{"operation":"Purchase","currency":"SEK","amount":1500,"vatAmount":375,"description":"Test Purchase","#
        + #""userAgent":"instructions","language":"sv-SE","urls":{"hostUrls":["https://example.com"],"completeUrl":"https://example.com/done","#
        + #""cancelUrl":"https://example.com/cancel"},"payeeInfo":{"payeeId":"5cabf558-5283-482f-b252-4d58e06f6f3b","payeeReference":"PO\#(n)"}}}"#
    let created = try expect(try await client.send("POST", "/psp/paymentorders", json: create, headers: swedbankPayHeaders), 200, "create")
    // The redirect-checkout operation's href: the last "href" before its "rel".
    let body = [UInt8](created.body), href = Array(#""href":""#.utf8)
    guard let rel = firstIndex(of: Array(#""rel":"redirect-checkout""#.utf8), in: body, from: 0) else {
        throw BenchFailure(description: "no redirect-checkout in \(created.text)")
    }
    var hrefStart: Int?, from = 0
    while let found = firstIndex(of: href, in: body, from: from), found < rel { hrefStart = found + href.count; from = found + 1 }
    guard let hrefStart, let hrefEnd = body[hrefStart...].firstIndex(of: UInt8(ascii: "\"")) else {
        throw BenchFailure(description: "no redirect-checkout href in \(created.text)")
    }
    let checkout = String(decoding: body[hrefStart..<hrefEnd], as: UTF8.self)
    let paid = try await client.send("POST", checkout + "/card",
                                     headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                     body: Data("pan=4925000000000004&expiry=12/33&cvc=123".utf8))
    guard paid.status.code == 303, paid.header("Location") == "https://example.com/done" else {
        throw BenchFailure(description: "card: \(paid.status) \(paid.header("Location") ?? "no Location") \(paid.text)")
    }
}

/// KIND's requests n times; the number of requests sent.
func run(_ kind: String, _ n: Int, _ client: SandboxClient) async throws -> Int {
    for index in 0..<n {
        switch kind {
        case "health": _ = try expect(try await client.send("GET", "/__sandbox/health"), 200, "health")
        case "klarna-session": _ = try await klarnaSession(client)
        case "klarna-flow": try await klarnaFlow(client)
        case "swedbankpay-order": try await swedbankPayOrder(client, index)
        default: throw BenchFailure(description: "unknown kind \(kind)")
        }
    }
    return n * (["klarna-flow": 4, "swedbankpay-order": 2][kind] ?? 1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let n = Int(arguments[2]), n >= 0 else {
    FileHandle.standardError.write(Data("usage: inprocess-instructions KIND N\n".utf8))
    exit(2)
}
let kind = arguments[1]
var configuration = SandboxConfiguration()
configuration.scenarioWatchInterval = nil
let sandbox = PaymentSandbox(configuration: configuration)
let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        let requests = try await run(kind, n, try SandboxClient(sandbox: sandbox))
        print("kind=\(kind) n=\(n) requests=\(requests)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("inprocess-instructions: \(error)\n".utf8))
        exit(1)
    }
}
done.wait()
