// SPDX-License-Identifier: MIT
// SandboxURLProtocol: URLSession.shared (and a session from a configuration) reaching a sandbox that never listens.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox
import PaymentSandboxTesting
import Testing

private let klarnaHost = "api.playground.klarna.com"
private let payexHost = "api.externalintegration.payex.com"
private let klarna = "https://\(klarnaHost)"
private let payex = "https://\(payexHost)"
private let basicAuth = "Basic " + Data("PK12345_0123456789ab:sandbox-secret".utf8).base64EncodedString()

/// The GB cart of Tests/KlarnaSandboxTests/Behaviour/KlarnaBehaviourSupport.swift (klarna-api.md §2.1).
private let gbSession = #"""
    {"purchase_country": "GB", "purchase_currency": "GBP", "locale": "en-GB", "order_amount": 62400, "order_tax_amount": 10400,
     "order_lines": [
       {"type": "physical", "reference": "19-402", "name": "Battery Power Pack", "quantity": 1, "unit_price": 59500,
        "tax_rate": 2000, "total_amount": 59500, "total_discount_amount": 0, "total_tax_amount": 9917},
       {"type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2900, "tax_rate": 2000, "total_amount": 2900,
        "total_tax_amount": 483}],
     "merchant_urls": {"authorization": "https://example.com/authorization_callbacks"},
     "merchant_reference1": "45aa52f387871e3a210645d4"}
    """#

/// The same cart as a create-order request, whose order then leads to `confirmation` (klarna-api.md §2.5).
private func gbOrder(confirmation: String = "https://example.com/confirmation?sid={session.id}&oid={order.id}") -> String {
    gbSession.replacingOccurrences(of: #""authorization": "https://example.com/authorization_callbacks""#,
                                   with: #""confirmation": "\#(confirmation)""#)
}

/// The order of docs/swedbankpay.md, "A native payment step by step, with curl".
private let paymentOrder = """
    {"paymentorder": {"operation": "Purchase", "currency": "SEK", "amount": 1500, "vatAmount": 375,
      "description": "Test Purchase", "userAgent": "URLSession", "language": "sv-SE", "payer": {"msisdn": "+46739000001"},
      "urls": {"hostUrls": ["https://example.com"], "completeUrl": "https://example.com/done",
               "cancelUrl": "https://example.com/cancelled", "paymentUrl": "https://example.com/pay"},
      "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "AB832"}}}
    """

private struct Answer {
    var response: HTTPURLResponse
    var data: Data
    var status: Int { response.statusCode }
    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:] }
    var text: String { String(decoding: data, as: UTF8.self) }
}

private func send(_ method: String, _ url: String, json body: String? = nil, headers: [String: String] = [:],
                  session: URLSession = .shared) async throws -> Answer {
    var request = URLRequest(url: try #require(URL(string: url)))
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let body {
        request.httpBody = Data(body.utf8)
        if request.value(forHTTPHeaderField: "Content-Type") == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
    }
    return try await send(request, session: session)
}

private func send(_ request: URLRequest, session: URLSession = .shared) async throws -> Answer {
    let (data, response) = try await session.data(for: request)
    return Answer(response: try #require(response as? HTTPURLResponse), data: data)
}

/// A fresh sandbox (never started) answering `hosts` through URLSession.shared while `body` runs.
private func withRegistered<T>(_ configure: (inout SandboxConfiguration) -> Void = { _ in }, hosts: [String] = [klarnaHost, payexHost],
                               _ body: (PaymentSandbox) async throws -> T) async throws -> T {
    var configuration = SandboxConfiguration()
    configuration.scenarioWatchInterval = nil
    configure(&configuration)
    let sandbox = PaymentSandbox(configuration: configuration)
    SandboxURLProtocol.register(sandbox, forHosts: hosts)
    defer { SandboxURLProtocol.unregister() }
    let result = try await body(sandbox)
    #expect(sandbox.baseURL == nil, "the sandbox never listened")
    return result
}

/// A Klarna Payments order placed through URLSession.shared: returns its create-order answer.
private func placeKlarnaOrder(confirmation: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
    let auth = ["Authorization": basicAuth].merging(headers) { $1 }
    let session = try await send("POST", "\(klarna)/payments/v1/sessions", json: gbSession, headers: auth)
    try #require(session.status == 200, "create session: \(session.status) \(session.text)")
    let sessionID = try #require(session.json["session_id"] as? String)
    let authorized = try await send("POST", "\(klarna)/__sandbox/klarna/payments/sessions/\(sessionID)/authorize", json: "{}", headers: auth)
    try #require(authorized.status == 200, "authorize: \(authorized.text)")
    let token = try #require(authorized.json["authorization_token"] as? String, "\(authorized.text)")
    let body = confirmation.map { gbOrder(confirmation: $0) } ?? gbOrder()
    let order = try await send("POST", "\(klarna)/payments/v1/authorizations/\(token)/order", json: body, headers: auth)
    try #require(order.status == 200, "create order: \(order.status) \(order.text)")
    return order
}

private func operations(_ object: [String: Any]?) -> [[String: Any]] { object?["operations"] as? [[String: Any]] ?? [] }
private func href(_ operations: [[String: Any]], _ rel: String) -> String? {
    operations.first { $0["rel"] as? String == rel }?["href"] as? String
}

@Suite("SandboxURLProtocol", .serialized)
struct SandboxURLProtocolTests {
    @Test("Klarna Payments through URLSession.shared: session, SDK authorize, order; redirect_url on the host the app used")
    func klarnaPaymentsFlow() async throws {
        // Sessions made and URLSession.shared used before register() (on Linux shared then holds its own class list).
        URLSession(configuration: .ephemeral).finishTasksAndInvalidate()
        _ = URLSession.shared.configuration
        // The request's own origin wins over a configured public base URL.
        try await withRegistered({ $0.publicBaseURL = "https://public.example.test" }) { sandbox in
            let order = try await placeKlarnaOrder()
            let redirect = try #require(order.json["redirect_url"] as? String, "\(order.text)")
            #expect(redirect.hasPrefix("\(klarna)/"), "\(redirect)")
            #expect(order.response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/json") == true)
            #expect(order.response.url?.host == klarnaHost)
        }
    }

    @Test("Swedbank Pay native Swish payment through URLSession.shared: every href https on api.externalintegration.payex.com")
    func swedbankPayNativePayment() async throws {
        try await withRegistered({ $0.publicBaseURL = "https://public.example.test"; $0.swedbankPay.publicBaseURL = "https://pay.example.test" }) { _ in
            let merchant = ["Authorization": "Bearer url-protocol-merchant", "Content-Type": "application/json;version=3.1"]
            let created = try await send("POST", "\(payex)/psp/paymentorders", json: paymentOrder, headers: merchant)
            try #require(created.status == 200, "create: \(created.status) \(created.text)")
            let orderHrefs = operations(created.json).compactMap { $0["href"] as? String }
            #expect(!orderHrefs.isEmpty && orderHrefs.allSatisfy { $0.hasPrefix("\(payex)/") }, "\(orderHrefs)")
            let orderID = try #require((created.json["paymentOrder"] as? [String: Any])?["id"] as? String)
            let sessionURL = try #require(href(operations(created.json), "view-paymentsession"))
            try #require(sessionURL.hasPrefix("\(payex)/psp/paymentsessions/"), "\(sessionURL)")

            // The SDK: read the session, prepare-payment (iOS's body), then Swish with the payer's number.
            let session = try await send("GET", sessionURL, headers: ["Accept": "application/json"])
            try #require(session.status == 200, "\(session.text)")
            let prepare = try #require(operations(session.json).first { $0["next"] as? Bool == true }?["href"] as? String)
            #expect(prepare.hasPrefix("\(payex)/"), "\(prepare)")
            let idle = try await send("POST", prepare, json: #"{"integration": "App", "client": {"userAgent": "SwedbankPaySDK-iOS/5.0.2"}}"#)
            try #require(idle.status == 200, "prepare-payment: \(idle.text)")
            let methods = (idle.json["paymentSession"] as? [String: Any])?["methods"] as? [[String: Any]] ?? []
            let swish = methods.first { $0["paymentMethod"] as? String == "Swish" }
            let start = try #require(href(operations(swish), "start-payment-attempt"), "\(idle.text)")
            #expect(start.hasPrefix("\(payex)/"), "\(start)")
            let started = try await send("POST", start, json: #"""
                {"culture": "sv-SE", "msisdn": "+46739000001", "client": {"userAgent": "SwedbankPaySDK-iOS/5.0.2", "clientType": "Native"}}
                """#)
            #expect(started.status == 200, "start-payment-attempt: \(started.text)")

            // The payer answers in Swish 3 s later on the namespace clock (docs/swedbankpay.md); then redirect-payer to completeUrl.
            let clock = try await send("POST", "\(payex)/__sandbox/clock", json: #"{"advance_seconds": 3}"#,
                                       headers: ["Sandbox-Namespace": "url-protocol-merchant"])
            #expect(clock.status == 200, "\(clock.text)")
            let ended = try await send("GET", sessionURL, headers: ["Accept": "application/json"])
            #expect(href(operations(ended.json), "redirect-payer") == "https://example.com/done", "\(ended.text)")
            let paid = try await send("GET", "\(payex)\(orderID)?$expand=paid", headers: ["Authorization": merchant["Authorization"]!])
            let paymentOrder = paid.json["paymentOrder"] as? [String: Any]
            #expect(paymentOrder?["status"] as? String == "Paid", "\(paid.text)")
            #expect((paymentOrder?["paid"] as? [String: Any])?["instrument"] as? String == "Swish", "\(paid.text)")
        }
    }

    @Test("only the registered hosts are intercepted: any scheme and port, case-insensitive")
    func unregisteredHosts_AreNotIntercepted() throws {
        try #require(!SandboxURLProtocol.canInit(with: URLRequest(url: URL(string: "\(klarna)/payments/v1/sessions")!)))
        SandboxURLProtocol.register(PaymentSandbox(), forHosts: [klarnaHost.uppercased()])
        defer { SandboxURLProtocol.unregister() }
        for url in ["\(klarna)/payments/v1/sessions", "http://API.Playground.Klarna.com:8080/x"] {
            #expect(SandboxURLProtocol.canInit(with: URLRequest(url: URL(string: url)!)), "\(url)")
        }
        for url in ["https://api.klarna.com/payments/v1/sessions", "\(payex)/psp/paymentorders", "https://example.com/"] {
            #expect(!SandboxURLProtocol.canInit(with: URLRequest(url: URL(string: url)!)), "\(url)")
        }
    }

    @Test("unregister stops the interception: the request goes to the network (a closed loopback port) again")
    func unregister_StopsInterception() async throws {
        let sandbox = PaymentSandbox()
        // localhost: no other test sends to it through URLSession; port 1 has no listener.
        let health = URLRequest(url: URL(string: "http://localhost:1/__sandbox/health")!)
        SandboxURLProtocol.register(sandbox, forHosts: ["localhost"])
        defer { SandboxURLProtocol.unregister() }
        let answered = try await send(health)
        #expect(answered.status == 200 && answered.json["status"] as? String == "ok", "\(answered.text)")
        SandboxURLProtocol.unregister()
        #expect(!SandboxURLProtocol.canInit(with: health))
        await #expect(throws: URLError.self) { _ = try await send(health) }
        #expect(sandbox.baseURL == nil)
    }

    @Test("commit_then_drop: the session is created, URLSession fails with URLError.networkConnectionLost")
    func commitThenDrop_IsANetworkConnectionLost() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("url-protocol-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("""
            {"name": "commit-drop-create", "description": "creates the session, then drops the connection",
             "rules": [{"operation": "klarna.payments.create_session", "outcome": "commit_then_drop"}]}
            """.utf8).write(to: directory.appendingPathComponent("commit-drop-create.json"))
        try await withRegistered({ $0.scenarioDirectories = [directory] }) { _ in
            let headers = ["Authorization": basicAuth, "Sandbox-Namespace": "commit-drop", "Sandbox-Scenario": "commit-drop-create"]
            let error = await #expect(throws: URLError.self) {
                _ = try await send("POST", "\(klarna)/payments/v1/sessions", json: gbSession, headers: headers)
            }
            #expect(error?.code == .networkConnectionLost)
            let state = try await send("GET", "\(klarna)/__sandbox/state", headers: ["Sandbox-Namespace": "commit-drop"])
            let sessions = (state.json["klarna_payments"] as? [String: Any])?["sessions"] as? [Any]
            #expect(sessions?.count == 1, "\(state.text)")
        }
    }

    @Test("enable(on:) puts the protocol first in a configuration's protocolClasses: its session is answered in-process")
    func enable_CustomSession() async throws {
        try await withRegistered { _ in
            // Only the configuration routes to the sandbox now.
            URLProtocol.unregisterClass(SandboxURLProtocol.self)
            let configuration = URLSessionConfiguration.ephemeral
            SandboxURLProtocol.enable(on: configuration)
            SandboxURLProtocol.enable(on: configuration)
            let classes = (configuration.protocolClasses ?? []).map { ObjectIdentifier($0) }
            #expect(classes.first == ObjectIdentifier(SandboxURLProtocol.self))
            #expect(classes.filter { $0 == ObjectIdentifier(SandboxURLProtocol.self) }.count == 1)
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            let health = try await send("GET", "\(klarna)/__sandbox/health", session: session)
            #expect(health.status == 200 && health.json["status"] as? String == "ok", "\(health.text)")
        }
    }

    @Test("a body sent as httpBodyStream arrives whole; one over maxBodyBytes fails the task")
    func bodyStream_IsRead() async throws {
        try await withRegistered({ $0.http.limits.maxBodyBytes = 300_000 }) { _ in
            let payload = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            var request = URLRequest(url: URL(string: "\(klarna)/__sandbox/echo")!)
            request.httpMethod = "POST"
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            request.httpBodyStream = InputStream(data: payload)
            let echo = try await send(request)
            #expect(echo.status == 200, "\(echo.text)")
            #expect(echo.json["body_length"] as? Int == payload.count)
            #expect((echo.json["body_base64"] as? String).flatMap { Data(base64Encoded: $0) } == payload)

            request.httpBodyStream = InputStream(data: Data(count: 300_001))
            let error = await #expect(throws: URLError.self) { _ = try await send(request) }
            #expect(error?.code == .dataLengthExceedsMaximum)
        }
    }

    @Test("a redirect within the registered hosts is followed, like a server's")
    func redirect_WithinTheSandbox_IsFollowed() async throws {
        try await withRegistered { _ in
            let order = try await placeKlarnaOrder(confirmation: "\(klarna)/__sandbox/echo?order={order.id}")
            let orderID = try #require(order.json["order_id"] as? String)
            let redirect = try #require(order.json["redirect_url"] as? String)
            let followed = try await send("GET", redirect)
            #expect(followed.status == 200, "\(followed.text)")
            #expect(followed.response.url?.absoluteString == "\(klarna)/__sandbox/echo?order=\(orderID)")
            #expect(followed.json["path"] as? String == "/__sandbox/echo", "\(followed.text)")
            #expect(followed.json["method"] as? String == "GET")
        }
    }

    @Test("a redirect to an app's own scheme is not followed: the task gets the 303 with its Location")
    func redirect_ToACustomScheme_IsDelivered() async throws {
        try await withRegistered { _ in
            let order = try await placeKlarnaOrder(confirmation: "myapp://klarna/done?order={order.id}")
            let orderID = try #require(order.json["order_id"] as? String)
            let redirect = try #require(order.json["redirect_url"] as? String)
            let answer = try await send("GET", redirect)
            #expect(answer.status == 303)
            #expect(answer.response.value(forHTTPHeaderField: "Location") == "myapp://klarna/done?order=\(orderID)")
            #expect(answer.response.url?.absoluteString == redirect)
        }
    }

    #if canImport(FoundationNetworking)
    @Test("Linux: a redirect leaving the registered hosts is delivered as the 3xx (URLSession there cannot be told to follow)")
    func redirect_LeavingTheSandbox_IsDeliveredOnLinux() async throws {
        try await withRegistered { _ in
            let order = try await placeKlarnaOrder(confirmation: "https://merchant.example/confirmation?order={order.id}")
            let orderID = try #require(order.json["order_id"] as? String)
            let answer = try await send("GET", try #require(order.json["redirect_url"] as? String))
            #expect(answer.status == 303)
            #expect(answer.response.value(forHTTPHeaderField: "Location") == "https://merchant.example/confirmation?order=\(orderID)")
        }
    }
    #endif

    @Test("a Klarna 401 completes the task with Klarna's envelope")
    func klarnaUnauthorized_Completes() async throws {
        try await withRegistered { _ in
            let answer = try await send("POST", "\(klarna)/payments/v1/sessions", json: gbSession)
            #expect(answer.status == 401)
            #expect(answer.json["error_code"] as? String == "UNAUTHORIZED", "\(answer.text)")
        }
    }
}
