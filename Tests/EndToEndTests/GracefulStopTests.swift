// SPDX-License-Identifier: MIT
// Stopping with requests received but not answered yet (in a handler, pipelined, or still in the socket's
// buffer): each gets exactly one answer, its own or 503 with Retry-After, the connection's last one
// Connection: close; idle and partial connections are closed without an answer.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxScenarios
import SwedbankPaySandbox
import SandboxHTTP
import Testing

@Suite("Graceful stop")
struct GracefulStopTests {
    /// What one request must get once the server stops.
    enum Expected: CustomStringConvertible {
        /// 200 with this body.
        case answer(String)
        /// 200 with this body, or 503 if the grace period ran out first.
        case answerOr503(String)
        /// 503: its handler (or one before it) runs far longer than the grace period.
        case refused
        /// `GET /__sandbox/health`'s 200, or 503.
        case healthOr503
        /// An error for malformed input, with this status.
        case malformed(Int)

        var description: String {
            switch self {
            case .answer(let body): "200 \(body)"
            case .answerOr503(let body): "200 \(body) or 503"
            case .refused: "503"
            case .healthOr503: "200 health or 503"
            case .malformed(let status): "\(status)"
            }
        }
    }

    /// One client: what it sends (all in one write, so several requests are pipelined) and what it must get back.
    struct Plan {
        var requests: [(target: String, expected: Expected)]
        var partial: String?
        /// Malformed bytes after the requests, answered by the last expectation.
        var malformed: String?

        static let kinds = 7

        /// Everything the client writes, in one write.
        var bytes: String {
            requests.filter { if case .malformed = $0.expected { false } else { true } }.map { rawRequest("GET", $0.target) }.joined()
                + (malformed ?? "") + (partial ?? "")
        }

        static func forClient(_ index: Int) -> Plan {
            let c = "c=\(index)"
            switch index % kinds {
            case 0: return Plan(requests: [("/fast?\(c)", .answer("fast /fast?\(c)"))])
            case 1: return Plan(requests: (1...3).map { ("/fast?\(c)&n=\($0)", .answer("fast /fast?\(c)&n=\($0)")) })
            case 2: return Plan(requests: [("/slow?ms=50&\(c)", .answerOr503("slow /slow?ms=50&\(c)")),
                                           ("/later?ms=50&\(c)", .answerOr503("later 50")),
                                           ("/fast?\(c)", .answerOr503("fast /fast?\(c)"))])
            case 3: return Plan(requests: [("/slow?ms=60000&\(c)", .refused), ("/fast?\(c)", .refused), ("/later?ms=0&\(c)", .refused)])
            case 4: return Plan(requests: [])  // idle keep-alive, after one exchange
            case 5: return Plan(requests: [], partial: "GET /fast?\(c) HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            default: return Plan(requests: [("/fast?\(c)", .answer("fast /fast?\(c)")), ("malformed", .malformed(400))],
                                 malformed: "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: y\r\n\r\n")
            }
        }
    }

    /// Reads every answer `plan` expects on `client`, then the close, and checks them. Returns problems found.
    /// `answeredWhileStopping`: every request was unread when the stop began, so the last answer must close.
    static func check(_ client: RawClient, _ plan: Plan, label: String, answeredWhileStopping: Bool = false) async -> [String] {
        var problems: [String] = []
        var refusedSeen = false
        for (index, request) in plan.requests.enumerated() {
            let response: RawResponse
            do {
                response = try await client.readResponse(timeout: .seconds(10))
            } catch {
                return problems + ["\(label): no answer to \(request.target) (request \(index + 1) of \(plan.requests.count)): \(error)"]
            }
            let isLast = index == plan.requests.count - 1
            let what = "\(label) \(request.target) expected \(request.expected)"
            // An answer sent before the stop keeps the connection alive; one sent while stopping closes it if it
            // is the last (a 503 always is sent while stopping).
            if response.closesConnection && !isLast {
                problems.append("\(what): Connection: close before the last answer: \(response.rawHead)")
            }
            if isLast && (response.status == 503 || answeredWhileStopping) && !response.closesConnection {
                problems.append("\(what): the last answer, sent while stopping, without Connection: close: \(response.rawHead)")
            }
            expectWellFramed(response)
            if case .malformed(let status) = request.expected {
                if response.status != status { problems.append("\(what): got \(response)") }
                continue
            }
            if response.status == 503 {
                refusedSeen = true
                if response.header("Retry-After") == nil { problems.append("\(what): 503 without Retry-After: \(response.rawHead)") }
                if (try? response.jsonObject()["status"] as? Int) != 503 { problems.append("\(what): 503 body \(response.bodyText)") }
                if case .answer = request.expected { problems.append("\(what): got 503") }
                continue
            }
            if refusedSeen { problems.append("\(what): an answer after a 503 on the same connection: \(response)") }
            switch request.expected {
            case .answer(let body), .answerOr503(let body):
                if response.status != 200 || response.bodyText != body { problems.append("\(what): got \(response)") }
            case .refused:
                problems.append("\(what): got \(response)")
            case .healthOr503:
                if response.status != 200 || (try? response.jsonObject()["status"] as? String) != "ok" { problems.append("\(what): got \(response)") }
            case .malformed:
                break  // checked above
            }
        }
        do {
            let observation = try await client.readUntilClose(timeout: .seconds(10))
            if plan.partial != nil {
                // A partial request gets no answer; a close or a reset is fine.
                if observation != .closed(received: []) && observation != .reset(received: []) {
                    problems.append("\(label): partial request: expected a close without an answer, got \(observation)")
                }
            } else if observation != .closed(received: []) {
                problems.append("\(label): expected a clean close after the last answer, got \(observation)")
            }
        } catch {
            problems.append("\(label): the server did not close the connection: \(error)")
        }
        return problems
    }

    /// A grace period of 2 s: enough for the fast answers even on a busy machine or under ThreadSanitizer,
    /// far short of the 60 s handlers.
    @Test("stop(): 120 keep-alive clients with requests written get exactly one answer each, their own or 503 + Retry-After")
    func everyReceivedRequestIsAnswered() async throws {
        let clientCount = 120
        try await withServer(TestRoutes.router(), alone: true, { $0.shutdownGracePeriod = .seconds(2) }) { server, running in
            var clients: [RawClient] = []
            defer { clients.forEach { $0.close() } }
            for _ in 0..<clientCount { clients.append(try await RawClient.connect(port: running.port)) }
            // The idle ones have answered a request before: they are keep-alive connections at rest.
            for index in clients.indices where index % Plan.kinds == 4 {
                try await clients[index].send(rawRequest("GET", "/fast?warm=\(index)"))
                #expect(try await clients[index].readResponse().status == 200)
            }
            // Every request is fully written (send returned) before stop() is called; many are not read yet.
            let plans = clients.indices.map { Plan.forClient($0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (client, plan) in zip(clients, plans) {
                    let bytes = plan.bytes
                    guard !bytes.isEmpty else { continue }
                    group.addTask { try await client.send(bytes) }
                }
                try await group.waitForAll()
            }
            async let stopped: Void = server.stop()
            let problems = await withTaskGroup(of: [String].self) { group in
                for (index, (client, plan)) in zip(clients, plans).enumerated() {
                    group.addTask { await Self.check(client, plan, label: "client \(index)") }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            await stopped
            #expect(problems.isEmpty, "\(problems.count) problems:\n\(problems.prefix(20).joined(separator: "\n"))")
            #expect(server.port == nil)
        }
    }

    /// Holds an event-loop thread inside an immediate handler until opened (at most 10 s).
    final class LoopBlocker: Sendable {
        private let isOpen = Locked(false)
        let entered = Counter()
        func open() { isOpen.withLock { $0 = true } }
        func block() {
            entered.increment()
            let deadline = monotonicNow() + 10_000_000_000
            while !isOpen.withLock({ $0 }) && monotonicNow() < deadline { usleep(1000) }
        }
    }

    /// The one event loop is held in a handler while clients write, so that when stop() is called their requests
    /// are surely unread: in the socket's buffer of accepted keep-alive connections, or on connections still in
    /// the listen backlog. Each must then be answered during the stop, so its last answer says Connection: close.
    @Test("stop() answers requests still unread in socket buffers and the listen backlog, the last with Connection: close")
    func unreadRequestsAreAnsweredAtStop() async throws {
        let blocker = LoopBlocker()
        var router = TestRoutes.router()
        router.addImmediate("GET /block") { _ in
            blocker.block()
            return .text("unblocked")
        }
        try await withServer(router, alone: true, { $0.eventLoopCount = 1; $0.shutdownGracePeriod = .seconds(2) }) { server, running in
            let planned = (0..<30).map { Plan.forClient($0) }
            var clients: [RawClient] = []
            defer { clients.forEach { $0.close() } }
            for index in planned.indices {
                let client = try await RawClient.connect(port: running.port)
                clients.append(client)
                try await client.send(rawRequest("GET", "/fast?warm=\(index)"))
                #expect(try await client.readResponse().status == 200)
            }
            let blocked = try await RawClient.connect(port: running.port)
            defer { blocked.close() }
            // Accepted and served once first: a handler that blocks inside the accept batch would let that batch
            // go on accepting (and serving) the backlog below before the loop sees the stop.
            try await blocked.send(rawRequest("GET", "/fast?warm=blocked"))
            #expect(try await blocked.readResponse().status == 200)
            try await blocked.send(rawRequest("GET", "/block"))
            #expect(try await blocker.entered.wait(for: 1), "the blocking handler never ran")

            // The loop is held: nothing below is read or accepted before the stop.
            for (client, plan) in zip(clients, planned) {
                let bytes = plan.bytes
                if !bytes.isEmpty { try await client.send(bytes) }
            }
            let backlog = try await withThrowingTaskGroup(of: (Int, RawClient).self) { group in
                for index in 0..<16 {
                    group.addTask { (index, try await RawClient.connect(port: running.port, sending: rawRequest("GET", "/fast?b=\(index)"))) }
                }
                return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
            }
            defer { backlog.forEach { $0.close() } }
            let stopper = Task { await server.stop() }
            // stop() marks the server stopped, then at once queues the stop for the loop; then let the loop go.
            while server.port != nil { try await Task.sleep(for: .milliseconds(1)) }
            try await Task.sleep(for: .milliseconds(50))
            blocker.open()

            #expect(try await blocked.readResponse().bodyText == "unblocked")
            var problems: [String] = []
            for (index, (client, plan)) in zip(clients, planned).enumerated() {
                problems += await Self.check(client, plan, label: "client \(index)", answeredWhileStopping: true)
            }
            for (index, client) in backlog.enumerated() {
                let plan = Plan(requests: [("/fast?b=\(index)", .answer("fast /fast?b=\(index)"))])
                problems += await Self.check(client, plan, label: "backlog client \(index)", answeredWhileStopping: true)
            }
            await stopper.value
            #expect(problems.isEmpty, "\(problems.count) problems:\n\(problems.prefix(20).joined(separator: "\n"))")
        }
    }

    /// One request of a client under load: when its write completed, and what came back.
    struct Sent: Sendable {
        var writtenAt: UInt64
        var response: RawResponse?
        var failure: String?
    }

    /// 150 keep-alive clients send request after request (every third client two at a time, pipelined) while
    /// SIGTERM arrives: every request whose write completed before the signal was sent must be answered, with
    /// its 200 or a 503 with Retry-After, and the process must exit 0. Requests written later may go unanswered.
    @Test("SIGTERM under load from 150 keep-alive clients: every request written before the signal is answered, exit 0")
    func sigtermAnswersEveryRequestWrittenBeforeIt() async throws {
        try await CLITests.withChild(["--port", "0", "--quiet"]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let port = try #require(CLITests.listeningPort(line), "unexpected startup line: \(line)")
            var clients: [RawClient] = []
            defer { clients.forEach { $0.close() } }
            for _ in 0..<150 { clients.append(try await RawClient.connect(port: port)) }
            let exchanges = Counter()
            let logs = await withTaskGroup(of: [Sent].self) { group in
                for (index, client) in clients.enumerated() {
                    let batch = index % 3 == 0 ? 2 : 1
                    group.addTask {
                        (try? await onThread { Self.sendUntilClosed(client, batch: batch, exchanges: exchanges) }) ?? []
                    }
                }
                // Load first, then the signal; the clients go on until the server closes their connections.
                _ = try? await exchanges.wait(for: 600, timeout: .seconds(10))
                let signalledAt = monotonicNow()
                child.terminate()
                var logs: [[Sent]] = []
                for await log in group { logs.append(log) }
                return logs.map { $0.filter { $0.writtenAt < signalledAt } }
            }
            var problems: [String] = []
            for (client, log) in logs.enumerated() {
                for sent in log {
                    guard let response = sent.response else {
                        problems.append("client \(client): a request written before SIGTERM got no answer: \(sent.failure ?? "")")
                        continue
                    }
                    if response.status == 503 && response.header("Retry-After") != nil { continue }
                    if response.status != 200 || (try? response.jsonObject()["status"] as? String) != "ok" {
                        problems.append("client \(client): \(response)")
                    }
                }
            }
            #expect(logs.map(\.count).reduce(0, +) >= 600)
            #expect(problems.isEmpty, "\(problems.count) problems:\n\(problems.prefix(20).joined(separator: "\n"))")
            try await CLITests.expectStopsCleanly(child, within: .seconds(5))
        }
    }

    /// Sends `batch` health requests at a time and reads their answers, until the connection ends.
    static func sendUntilClosed(_ client: RawClient, batch: Int, exchanges: Counter) -> [Sent] {
        let request = Array(String(repeating: rawRequest("GET", "/__sandbox/health"), count: batch).utf8)
        var log: [Sent] = []
        while log.count < 100_000 {
            do { try client.sendBlocking(request) } catch { return log }
            let writtenAt = monotonicNow()
            for _ in 0..<batch {
                do {
                    let response = try client.readResponseBlocking(timeout: .seconds(5))
                    log.append(Sent(writtenAt: writtenAt, response: response))
                    exchanges.increment()
                    if response.closesConnection { return log }
                } catch {
                    log.append(Sent(writtenAt: writtenAt, failure: "\(error)"))
                    return log
                }
            }
        }
        return log
    }
}
