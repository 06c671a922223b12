// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

@Suite struct RouterTests {
    enum Resolved {
        case handler(label: String, parameters: RouteParameters)
        case error(HTTPError)

        var label: String? { if case .handler(let label, _) = self { label } else { nil } }
        var parameters: RouteParameters? { if case .handler(_, let parameters) = self { parameters } else { nil } }
        var error: HTTPError? { if case .error(let error) = self { error } else { nil } }
    }

    /// A router whose handlers answer with their own label as the body.
    static func router(_ routes: [String], async asyncRoutes: [String] = []) -> Router {
        var router = Router()
        for route in routes { router.addImmediate(route) { _ in .text(route) } }
        for route in asyncRoutes { router.add(route) { _ in .text(route) } }
        return router
    }

    static func resolve(_ router: Router, _ method: String, _ target: String) async throws -> Resolved {
        var request = try HTTPRequest(method: HTTPMethod(method), target: target)
        let reply: HTTPReply
        switch router.resolve(&request) {
        case .error(let error): return .error(error)
        case .handler(.immediate(let handler)): reply = try handler(request)
        case .handler(.async(let handler)): reply = try await handler(request)
        }
        guard case .response(let response) = reply.answer else { throw HTTPError(.internalServerError, "not an answer now") }
        return .handler(label: String(decoding: response.body, as: UTF8.self), parameters: request.parameters)
    }

    @Test func router_MatchesLiteralRoutes() async throws {
        let router = Self.router(["GET /", "GET /health", "GET /payments/v1/sessions"], async: ["POST /payments/v1/sessions"])
        #expect(try await Self.resolve(router, "GET", "/").label == "GET /")
        #expect(try await Self.resolve(router, "GET", "/health").label == "GET /health")
        #expect(try await Self.resolve(router, "GET", "/payments/v1/sessions?x=1").label == "GET /payments/v1/sessions")
        #expect(try await Self.resolve(router, "POST", "/payments/v1/sessions").label == "POST /payments/v1/sessions")
        #expect(try await Self.resolve(router, "GET", "/health/").error?.status == .notFound)
        #expect(try await Self.resolve(router, "GET", "/Health").error?.status == .notFound)
    }

    @Test func router_BindsParameters() async throws {
        let router = Self.router(["POST /orders/:order_id/captures/:capture_id"])
        let resolved = try await Self.resolve(router, "POST", "/orders/o-1/captures/c-2")
        #expect(resolved.label == "POST /orders/:order_id/captures/:capture_id")
        #expect(resolved.parameters?["order_id"] == "o-1")
        #expect(resolved.parameters?["capture_id"] == "c-2")
        #expect(try resolved.parameters?.require("order_id") == "o-1")
        #expect(throws: HTTPError.self) { try resolved.parameters?.require("missing") }
    }

    @Test func router_PercentDecodesParameters_AfterSplittingOnSlash() async throws {
        let router = Self.router(["GET /orders/:id", "GET /orders/:id/lines"])
        let resolved = try await Self.resolve(router, "GET", "/orders/a%20b%2Fc")
        #expect(resolved.label == "GET /orders/:id")
        #expect(resolved.parameters?["id"] == "a b/c")
        #expect(try await Self.resolve(router, "GET", "/orders/x%2Flines").parameters?["id"] == "x/lines")
    }

    @Test func router_DoesNotBindEmptySegmentToParameter() async throws {
        let router = Self.router(["GET /orders/:id/lines"])
        #expect(try await Self.resolve(router, "GET", "/orders//lines").error?.status == .notFound)
    }

    @Test func router_PrefersLiteral_AndBacktracksToParameter() async throws {
        let router = Self.router(["GET /orders/new", "GET /orders/:id", "GET /orders/:id/edit"])
        #expect(try await Self.resolve(router, "GET", "/orders/new").label == "GET /orders/new")
        #expect(try await Self.resolve(router, "GET", "/orders/42").label == "GET /orders/:id")
        let backtracked = try await Self.resolve(router, "GET", "/orders/new/edit")
        #expect(backtracked.label == "GET /orders/:id/edit")
        #expect(backtracked.parameters?["id"] == "new")
    }

    @Test func router_BindsRestOfPath_ToTrailingWildcard() async throws {
        let router = Self.router(["GET /static/*", "GET /static/special"])
        let deep = try await Self.resolve(router, "GET", "/static/css/site%20main.css")
        #expect(deep.label == "GET /static/*")
        #expect(deep.parameters?["*"] == "css/site main.css")
        #expect(try await Self.resolve(router, "GET", "/static").parameters?["*"] == "")
        #expect(try await Self.resolve(router, "GET", "/static/").parameters?["*"] == "")
        #expect(try await Self.resolve(router, "GET", "/static/special").label == "GET /static/special")
        #expect(try await Self.resolve(router, "GET", "/other").error?.status == .notFound)
    }

    /// A path without `%` is walked as byte ranges, one with `%` segment by segment after decoding: the same routes.
    @Test func router_MatchesAPlainPath_AsItsPercentEncodedTwin() async throws {
        let router = Self.router(["GET /static/*", "GET /static/special", "GET /orders/:id", "GET /orders/:id/lines/:line",
                                  "GET /orders/new/lines/x", "POST /orders/:id"])
        let paths = ["/static/css/a/b.css", "/static//x/", "/static/special", "/static/special/", "/orders/a-very-long-order-id-0123456789",
                     "/orders/new/lines/x", "/orders/new/lines/y", "/orders/ä/lines/ö", "/orders//lines/a", "/orders/a/", "/orders/a/lines"]
        for path in paths {
            let plain = try await Self.resolve(router, "GET", path)
            let encoded = try await Self.resolve(router, "GET", path.replacingOccurrences(of: "a", with: "%61"))
            #expect(plain.label == encoded.label, "\(path)")
            #expect(plain.parameters == encoded.parameters, "\(path)")
            #expect(plain.error?.status == encoded.error?.status, "\(path)")
        }
        #expect(try await Self.resolve(router, "GET", "/static/css/a/b.css").parameters?["*"] == "css/a/b.css")
        #expect(try await Self.resolve(router, "GET", "/orders/a/lines/7").parameters == {
            var expected = RouteParameters()
            expected.append(name: "id", value: "a")
            expected.append(name: "line", value: "7")
            return expected
        }())
    }

    /// Literal segments are compared as bytes while they and the path's segment are ASCII, else as strings compare
    /// (canonical equivalence), as the dictionary of literals did.
    @Test func router_ComparesLiteralSegments_AsStringsDo() async throws {
        let router = Self.router(["GET /caf\u{E9}/menu", "GET /\u{212A}elvin", "GET /orders/new", "GET /orders/:id", "GET /a//b"])
        #expect(try await Self.resolve(router, "GET", "/cafe\u{301}/menu").label == "GET /caf\u{E9}/menu")
        #expect(try await Self.resolve(router, "GET", "/caf\u{E9}/menu").label == "GET /caf\u{E9}/menu")
        #expect(try await Self.resolve(router, "GET", "/Kelvin").label == "GET /\u{212A}elvin")
        #expect(try await Self.resolve(router, "GET", "/kelvin").error?.status == .notFound)
        #expect(try await Self.resolve(router, "GET", "/orders/new").label == "GET /orders/new")
        for other in ["nex", "ne", "newx", "New", "n\u{E9}w"] {
            #expect(try await Self.resolve(router, "GET", "/orders/\(other)").label == "GET /orders/:id", "\(other)")
        }
        #expect(try await Self.resolve(router, "GET", "/a//b").label == "GET /a//b")
        #expect(try await Self.resolve(router, "GET", "/a/b").error?.status == .notFound)
        #expect(router.routes.contains("GET /caf\u{E9}/menu"))
    }

    @Test func router_Answers404_WhenNoPathMatches() async throws {
        let router = Self.router(["GET /a"])
        let error = try #require(try await Self.resolve(router, "GET", "/b").error)
        #expect(error.status == .notFound)
        #expect(error.kind == .notFound)
    }

    @Test func router_Answers405WithAllow_WhenPathMatchesButMethodDoesNot() async throws {
        let router = Self.router(["GET /x", "POST /x", "PUT /only-put"])
        let error = try #require(try await Self.resolve(router, "DELETE", "/x").error)
        #expect(error.status == .methodNotAllowed)
        #expect(error.kind == .methodNotAllowed(allowed: [.get, .post, .head]))
        let response = DefaultErrorRenderer().render(error, for: try HTTPRequest(method: .delete, target: "/x"))
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, POST, HEAD")
        // No GET, so no HEAD either.
        let putOnly = try #require(try await Self.resolve(router, "GET", "/only-put").error)
        #expect(putOnly.kind == .methodNotAllowed(allowed: [.put]))
    }

    @Test func router_FallsBackToGet_WhenHeadHasNoHandler() async throws {
        let router = Self.router(["GET /a", "GET /b", "HEAD /b"])
        #expect(try await Self.resolve(router, "HEAD", "/a").label == "GET /a")
        #expect(try await Self.resolve(router, "HEAD", "/b").label == "HEAD /b")
    }

    @Test func router_MatchesAnyMethod_WithMethodAsterisk() async throws {
        let router = Self.router(["* /echo", "GET /echo", "* /echo/*"])
        #expect(try await Self.resolve(router, "PATCH", "/echo").label == "* /echo")
        #expect(try await Self.resolve(router, "DELETE", "/echo").label == "* /echo")
        #expect(try await Self.resolve(router, "GET", "/echo").label == "GET /echo")
        #expect(try await Self.resolve(router, "POST", "/echo/a/b").parameters?["*"] == "a/b")
    }

    /// A literal segment that only has other methods must not hide a parameter route that has this method.
    @Test func router_FindsParameterRoute_WhenLiteralSiblingLacksTheMethod() async throws {
        let router = Self.router(["GET /orders/search", "POST /orders/:id"])
        let resolved = try await Self.resolve(router, "POST", "/orders/search")
        #expect(resolved.label == "POST /orders/:id")
        #expect(resolved.parameters?["id"] == "search")
        #expect(try await Self.resolve(router, "GET", "/orders/search").label == "GET /orders/search")
        // Neither route has DELETE: 405 lists the methods of both.
        let refused = try #require(try await Self.resolve(router, "DELETE", "/orders/search").error)
        #expect(refused.status == .methodNotAllowed)
        #expect(refused.kind == .methodNotAllowed(allowed: [.get, .post, .head]))
    }

    // MARK: Error rendering

    struct LabelRenderer: HTTPErrorRenderer {
        var label: String
        func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(status: error.status, headers: ["X-Renderer": label], body: Data(error.message.utf8))
        }
    }

    struct TeapotError: HTTPResponseError {
        func response(for request: HTTPRequest) -> HTTPResponse { .text("teapot for \(request.path)", status: HTTPStatus(code: 418)) }
    }

    struct PlainError: Error, CustomStringConvertible { var description: String { "disk on fire" } }

    static func renderingRouter() -> Router {
        var router = Router()
        router.setErrorRenderer(LabelRenderer(label: "payments"), forPathPrefix: "/payments/")
        router.setErrorRenderer(LabelRenderer(label: "payments-v1"), forPathPrefix: "/payments/v1/")
        router.setErrorRenderer(LabelRenderer(label: "psp"), forPathPrefix: "/psp/")
        return router
    }

    @Test func router_ChoosesErrorRendererByLongestPathPrefix() throws {
        var router = Self.renderingRouter()
        let error = HTTPError(.badRequest, "bad")
        func label(_ path: String) throws -> String? {
            router.errorRenderer(forPath: path).render(error, for: try HTTPRequest(method: .get, target: path)).headers["X-Renderer"]
        }
        #expect(try label("/payments/v1/sessions") == "payments-v1")
        #expect(try label("/payments/v2/sessions") == "payments")
        #expect(try label("/psp/x") == "psp")
        #expect(try label("/other") == nil)
        #expect(try label("/payments") == nil)
        router.setErrorRenderer(LabelRenderer(label: "replaced"), forPathPrefix: "/payments/")
        #expect(try label("/payments/x") == "replaced")
        router.setFallbackErrorRenderer(LabelRenderer(label: "fallback"))
        #expect(try label("/other") == "fallback")
    }

    @Test func router_RendersDefaultJSON_WhenNoPrefixMatches() throws {
        let router = Router()
        let response = router.errorRenderer(forPath: "/x").render(.notFound("/x"), for: try HTTPRequest(method: .get, target: "/x"))
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"] == "application/json")
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect(object?["status"] as? Int == 404)
        #expect(object?["error"] as? String == "Not Found")
        #expect(object?["message"] as? String == "No route for /x")
    }

    @Test func router_LetsHTTPResponseErrorAnswerForItself() throws {
        let router = Self.renderingRouter()
        let response = router.response(for: TeapotError(), to: try HTTPRequest(method: .get, target: "/payments/v1/x"))
        #expect(response.status.code == 418)
        #expect(response.body == Data("teapot for /payments/v1/x".utf8))
        #expect(response.headers["X-Renderer"] == nil)
    }

    @Test func router_RendersHTTPError_WithPathRenderer() throws {
        let router = Self.renderingRouter()
        let response = router.response(for: HTTPError(.conflict, "already captured"), to: try HTTPRequest(method: .post, target: "/psp/c"))
        #expect(response.status == .conflict)
        #expect(response.headers["X-Renderer"] == "psp")
        #expect(response.body == Data("already captured".utf8))
    }

    @Test func router_Renders500_WhenHandlerThrowsOtherError() throws {
        let router = Self.renderingRouter()
        let response = router.response(for: PlainError(), to: try HTTPRequest(method: .get, target: "/payments/v1/s"))
        #expect(response.status == .internalServerError)
        #expect(response.headers["X-Renderer"] == "payments-v1")
        let fallback = router.response(for: PlainError(), to: try HTTPRequest(method: .get, target: "/elsewhere"))
        #expect(fallback.status == .internalServerError)
        #expect(fallback.headers["Content-Type"] == "application/json")
    }
}
