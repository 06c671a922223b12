// SPDX-License-Identifier: MIT
import Foundation

/// Everything the sandbox adds beyond the faked APIs lives under `/__sandbox/`.
struct ControlRoutes: Sendable {
    let startedAt: ContinuousClock.Instant

    func add(to router: inout Router) {
        // GET /__sandbox/health -> {"status":"ok","version":...,"uptime_seconds":...}
        router.addImmediate("GET /__sandbox/health") { _ in
            let uptime = ContinuousClock.now - startedAt
            return .json(JSONText.object([
                ("status", .string("ok")),
                ("version", .string(SandboxVersion.current)),
                ("uptime_seconds", .int(Int(uptime.components.seconds))),
            ]).data)
        }
        // Any method: what the server parsed, for debugging clients and for the parser tests.
        router.addImmediate("* /__sandbox/echo") { request in .json(Self.echo(request).data) }
        router.addImmediate("* /__sandbox/echo/*") { request in .json(Self.echo(request).data) }
    }

    static func echo(_ request: HTTPRequest) -> JSONText {
        func pairs(_ headers: HTTPHeaders) -> JSONText {
            .array(headers.map { .array([.string($0.name), .string($0.value)]) })
        }
        return .object([
            ("request_id", .string(request.id)),
            ("method", .string(request.method.rawValue)),
            ("target", .string(request.target)),
            ("path", .string(request.path)),
            ("query", .array(request.query.map { .array([.string($0.name), .string($0.value)]) })),
            ("version", .string(request.version.description)),
            ("headers", pairs(request.headers)),
            ("trailers", pairs(request.trailers)),
            ("body_length", .int(request.body.count)),
            ("body_base64", .string(request.body.base64EncodedString())),
        ])
    }
}
