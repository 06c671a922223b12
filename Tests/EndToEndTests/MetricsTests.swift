// SPDX-License-Identifier: MIT
// GET /__sandbox/metrics (Prometheus text format 0.0.4) and the figures on /__sandbox/ui, over sockets.
import Foundation
@testable import PaymentSandbox
import SandboxCore
import SandboxTestSupport
import Testing

@Suite("Metrics")
struct MetricsTests {
    /// The page's samples as `name{labels}` → value; every line must be a comment or a sample.
    static func samples(_ page: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in page.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            #expect(parts.count == 2, "not a sample line: \(line)")
            guard parts.count == 2, let value = Double(parts[1]) ?? (parts[1] == "+Inf" ? .infinity : nil) else { continue }
            samples[String(parts[0])] = value
        }
        return samples
    }

    static func scrape(_ server: RunningServer, headers: [(String, String)] = []) async throws -> (RawResponse, [String: Double]) {
        let response = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/metrics", headers: headers))
        return (response, samples(response.bodyText))
    }

    @Test("requests by provider, operation and status class; scenario outcomes; latency histogram; no namespace label")
    func requestFigures() async throws {
        try await withSandbox { server in
            let namespace = uniqueNamespace("metrics")
            let klarna = KlarnaClient(server, namespace: namespace)
            #expect(try await klarna.createSession().status == 200)
            #expect(try await klarna.readSession("no-such-session").status == 404)
            #expect(try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health")).status == 200)

            let (response, samples) = try await Self.scrape(server)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            #expect(samples[#"sandbox_requests_total{provider="klarna",operation="klarna.payments.create_session",status_class="2xx"}"#] == 1)
            #expect(samples[#"sandbox_requests_total{provider="sandbox",operation="control",status_class="2xx"}"#] == 1)
            #expect(samples[#"sandbox_scenario_outcomes_total{operation="klarna.payments.create_session",outcome="approve"}"#] == 1)
            // The unknown session: a 4xx of Klarna's, whichever operation it counts under.
            let klarna4xx = samples.filter { $0.key.hasPrefix(#"sandbox_requests_total{provider="klarna""#) && $0.key.contains(#"status_class="4xx""#) }
            #expect(klarna4xx.values.reduce(0, +) == 1, "\(response.bodyText)")
            #expect(samples[#"sandbox_request_duration_seconds_count{provider="klarna"}"#] == 2)
            #expect(samples[#"sandbox_request_duration_seconds_bucket{provider="klarna",le="+Inf"}"#] == 2)
            #expect((samples[#"sandbox_request_duration_seconds_sum{provider="klarna"}"#] ?? -1) >= 0)
            #expect(samples["sandbox_namespaces"] == 1)
            #expect((samples["sandbox_journal_entries"] ?? 0) >= 2)
            #expect(samples["sandbox_objects_held"] == 1)
            #expect(!response.bodyText.contains(namespace), "no namespace label")
        }
    }

    @Test("callbacks and journal figures come from the outbox and the journal")
    func storeFigures() async throws {
        try await withSandboxInstance { sandbox, server in
            let namespace = Namespace(uniqueNamespace("metrics-cb"))
            let id = sandbox.outbox.add(namespace, object: "o1", operation: "test.callback", description: "a test callback",
                                        url: "http://127.0.0.1:1/cb", headers: [], body: Data("{}".utf8), state: .pending)
            sandbox.outbox.record(namespace, id, CallbackOutbox.Attempt(time: Date(), url: "http://127.0.0.1:1/cb", status: 500, error: nil),
                                  state: .pending, due: Date())
            sandbox.outbox.record(namespace, id, CallbackOutbox.Attempt(time: Date(), url: "http://127.0.0.1:1/cb", status: nil, error: "refused"),
                                  state: .failed, due: nil)
            let (_, samples) = try await Self.scrape(server)
            #expect(samples["sandbox_callbacks_made_total"] == 1)
            #expect(samples[#"sandbox_callback_calls_total{result="failed"}"#] == 2)
            #expect(samples[#"sandbox_callback_calls_total{result="delivered"}"#] == 0)
            #expect(samples["sandbox_callback_retries_total"] == 1)
            #expect(samples["sandbox_callbacks_failed_total"] == 1)
            #expect(samples[#"sandbox_callbacks{state="failed"}"#] == 1)
            #expect(samples[#"sandbox_callbacks{state="pending"}"#] == 0)
            #expect(samples["sandbox_outbox_callbacks"] == 1)
        }
    }

    @Test("behind the control token like the rest of /__sandbox/")
    func controlToken() async throws {
        try await withSandbox({ $0.controlToken = "metrics-token" }) { server in
            #expect(try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/metrics")).status == 401)
            let (response, samples) = try await Self.scrape(server, headers: [("Authorization", "Bearer metrics-token")])
            #expect(response.status == 200)
            #expect(samples["sandbox_journal_capacity"] != nil)
        }
    }

    @Test("/__sandbox/ui shows the figures")
    func pageFigures() async throws {
        try await withSandbox { server in
            let klarna = KlarnaClient(server, namespace: uniqueNamespace("metrics-ui"))
            #expect(try await klarna.createSession().status == 200)
            let page = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/ui"))
            #expect(page.status == 200)
            #expect(page.bodyText.contains(#"<section id="figures">"#))
            #expect(page.bodyText.contains(#"<dd id="figure-objects">1, 0 evicted</dd>"#) || page.bodyText.contains(#"<dd id="figure-objects">1 of "#))
            #expect(page.bodyText.contains(#"<dd id="figure-namespaces">1</dd>"#))
        }
    }
}
