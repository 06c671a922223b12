// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// `Router.respond(to:timeout:)`: the whole way from a parsed request to its answer, without a socket.
@Suite struct RouterRespondTests {
    /// Errors as `<label> <code>: <message>`, with `Allow` as a list of its own format for a 405.
    struct BracketRenderer: HTTPErrorRenderer {
        var label: String
        func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse {
            var response = HTTPResponse.text("\(label) \(error.status.code): \(error.message)", status: error.status)
            if case .methodNotAllowed(let allowed) = error.kind {
                response.headers.set(name: "Allow", value: "[" + allowed.map(\.rawValue).joined(separator: "|") + "]")
            }
            return response
        }
    }

    struct Note: CustomStringConvertible, Sendable { var description: String }
    struct TeapotError: HTTPResponseError {
        func response(for request: HTTPRequest) -> HTTPResponse { .text("teapot", status: HTTPStatus(code: 418)) }
    }
    struct DropError: HTTPReplyError {
        func reply(for request: HTTPRequest) -> HTTPReply { .dropConnection(note: "dropped from deep inside") }
    }
    struct PlainError: Error {}

    static func router() -> Router {
        var router = Router()
        router.setErrorRenderer(BracketRenderer(label: "api"), forPathPrefix: "/api/")
        router.addImmediate("GET /api/orders/:id") { request in .text("order \(try request.parameters.require("id"))") }
        router.add("POST /api/orders/:id/captures") { request in
            await Task.yield()
            return .text("captured \(try request.parameters.require("id"))", status: .created)
        }
        router.addImmediate("GET /api/later") { _ in
            .later(note: Note(description: "decided: wait")) {
                await Task.yield()
                return HTTPReply(.text("later"))
            }
        }
        router.addImmediate("GET /api/later/own-note") { _ in
            .later(note: Note(description: "decided: wait")) { HTTPReply(.text("later"), note: "answered: approve") }
        }
        router.addImmediate("GET /api/delayed") { _ in HTTPReply(.text("delayed"), note: "slow").delayed(by: .milliseconds(1)) }
        router.addImmediate("GET /api/never") { _ in
            .later {
                try? await Task.sleep(for: .seconds(3600))
                return HTTPReply(.text("too late"))
            }
        }
        router.addImmediate("POST /api/drop") { _ in .dropConnection(note: "scenario: drop_connection") }
        router.addImmediate("POST /api/drop/thrown") { _ in throw DropError() }
        router.add("POST /api/teapot") { _ in throw TeapotError() }
        router.addImmediate("POST /api/fails") { _ in throw PlainError() }
        router.addImmediate("GET /api/noted") { _ in HTTPReply(.text("ok"), note: Note(description: "rule 2")) }
        router.setAccessCheck(forPathPrefix: "/api/admin/") { request in
            guard request.headers["Authorization"] == "Bearer secret" else { throw HTTPError(.unauthorized, "token required") }
            request.headers.remove(name: "Authorization")
        }
        router.addImmediate("GET /api/admin/state") { request in .text("state, credential seen: \(request.headers["Authorization"] ?? "none")") }
        return router
    }

    static func respond(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], timeout: Duration? = nil) async throws -> HTTPExchange {
        try await router().respond(to: HTTPRequest(method: method, target: target, headers: headers), timeout: timeout)
    }

    static func text(_ exchange: HTTPExchange) -> String? { exchange.response.map { String(decoding: $0.body, as: UTF8.self) } }

    @Test func respond_AnswersWithTheRoute_AndBindsPathParameters() async throws {
        let exchange = try await Self.respond(.get, "/api/orders/a%20b")
        #expect(exchange.response?.status == .ok)
        #expect(Self.text(exchange) == "order a b")
        #expect(exchange.request.parameters["id"] == "a b")
        #expect(exchange.note == nil)
        let captured = try await Self.respond(.post, "/api/orders/o-7/captures")
        #expect(captured.status == 201 && Self.text(captured) == "captured o-7")
    }

    @Test func respond_Renders404And405_InThePathsFormat_WithAllow() async throws {
        let missing = try await Self.respond(.get, "/api/nothing")
        #expect(missing.status == 404)
        #expect(Self.text(missing) == "api 404: No route for /api/nothing")
        let refused = try await Self.respond(.delete, "/api/orders/1")
        #expect(refused.status == 405)
        #expect(refused.response?.headers["Allow"] == "[GET|HEAD]")
        #expect(Self.text(refused)?.hasPrefix("api 405: ") == true)
    }

    @Test func respond_RunsTheAccessCheck_BeforeTheHandler() async throws {
        let refused = try await Self.respond(.get, "/api/admin/state")
        #expect(refused.status == 401)
        #expect(Self.text(refused) == "api 401: token required")
        let allowed = try await Self.respond(.get, "/api/admin/state", headers: ["Authorization": "Bearer secret"])
        #expect(Self.text(allowed) == "state, credential seen: none")
    }

    @Test func respond_MapsThrownErrors() async throws {
        let teapot = try await Self.respond(.post, "/api/teapot")
        #expect(teapot.status == 418 && Self.text(teapot) == "teapot" && teapot.unexpectedError == nil)
        let failed = try await Self.respond(.post, "/api/fails")
        #expect(failed.status == 500)
        #expect(Self.text(failed) == "api 500: Internal error (request test)")
        #expect(failed.unexpectedError is PlainError)
        let dropped = try await Self.respond(.post, "/api/drop/thrown")
        #expect(dropped.response == nil && dropped.status == HTTPExchange.droppedStatus)
        #expect(dropped.note?.description == "dropped from deep inside")
    }

    @Test func respond_AwaitsALaterAnswer_AndKeepsItsNote() async throws {
        let later = try await Self.respond(.get, "/api/later")
        #expect(Self.text(later) == "later")
        #expect(later.note?.description == "decided: wait")
        let ownNote = try await Self.respond(.get, "/api/later/own-note")
        #expect(ownNote.note?.description == "answered: approve")
        let delayed = try await Self.respond(.get, "/api/delayed", timeout: .seconds(60))
        #expect(Self.text(delayed) == "delayed" && delayed.note?.description == "slow")
    }

    @Test func respond_Answers503_WhenALaterAnswerOutlastsTheTimeout() async throws {
        let clock = ContinuousClock(), started = clock.now
        let exchange = try await Self.respond(.get, "/api/never", timeout: .milliseconds(50))
        #expect(exchange.status == 503)
        #expect(Self.text(exchange)?.hasPrefix("api 503: handler did not answer within") == true)
        #expect(clock.now - started < .seconds(60))
    }

    @Test func respond_DropsTheConnection_WithTheNote() async throws {
        let exchange = try await Self.respond(.post, "/api/drop")
        guard case .connectionDropped = exchange.outcome else {
            Issue.record("expected a dropped connection, got \(exchange.status)")
            return
        }
        #expect(exchange.status == 499)
        #expect(exchange.note?.description == "scenario: drop_connection")
    }

    /// What an in-process caller does: respond, then hand the exchange to the observer, as the server does.
    @Test func respond_FeedsAnObserver_WithTheNote() async throws {
        final class Recorder: HTTPExchangeObserver {
            let seen = Locked<[(path: String, status: Int, note: String?)]>([])
            func exchangeCompleted(_ exchange: HTTPExchange, durationSeconds: Double) {
                seen.withLock { $0.append((exchange.request.path, exchange.status, exchange.note?.description)) }
            }
        }
        let recorder = Recorder()
        for target in ["/api/noted", "/api/missing"] {
            recorder.exchangeCompleted(try await Self.respond(.get, target), durationSeconds: 0)
        }
        recorder.exchangeCompleted(try await Self.respond(.post, "/api/drop"), durationSeconds: 0)
        let seen = recorder.seen.withLock { $0 }
        #expect(seen.map(\.path) == ["/api/noted", "/api/missing", "/api/drop"])
        #expect(seen.map(\.status) == [200, 404, 499])
        #expect(seen.map(\.note) == ["rule 2", nil, "scenario: drop_connection"])
    }

    /// A handler's `Connection: close` closes the connection after its answer; the server writes the header once.
    @Test func serializer_HonoursAHandlersConnectionClose() {
        var out: [UInt8] = []
        let closing = HTTPResponse(status: .ok, headers: ["Connection": "keep-alive, Close"])
        let keptAlive = ResponseSerializer.write(closing, requestMethod: .get, requestVersion: .http1_1, keepAlive: true,
                                                 date: Array("d".utf8), into: &out)
        #expect(!keptAlive)
        let head = String(decoding: out, as: UTF8.self)
        #expect(head.components(separatedBy: "Connection:").count == 2 && head.contains("Connection: close\r\n"))
        out.removeAll()
        #expect(ResponseSerializer.write(.text("x"), requestMethod: .get, requestVersion: .http1_1, keepAlive: true,
                                         date: Array("d".utf8), into: &out))
    }
}
