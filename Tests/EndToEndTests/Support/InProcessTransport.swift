// SPDX-License-Identifier: MIT
// The in-process transport: a test's request bytes parsed as a connection parses them, answered by
// `PaymentSandbox.respond(to:)` (the server's routes, handler timeout, forwarded-header trust and journal), and the
// answer framed as the server frames it, so tests assert on the same `RawResponse` without a socket.
// Provider behaviour tests use it; what the connection does (framing, keep-alive, timeouts, limits) stays on sockets.
import Foundation
import PaymentSandbox
import SandboxHTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a test's requests reach the sandbox.
enum RequestTransport: Sendable {
    /// One TCP connection per exchange (``RawClient``).
    case socket
    /// No socket: ``PaymentSandbox/respond(to:)``.
    case inProcess
}

/// The port in-process servers report: nothing listens there, so a request sent to it over a socket by mistake
/// fails with connection refused. Requests name it in `Host`, so hrefs carry it as they carry a real port.
let inProcessPlaceholderPort = 9

extension RunningServer {
    /// The one request function: sends `request` (the bytes a client writes) and returns the first response, over
    /// this server's transport. A dropped connection throws ``RawClientError/closedBeforeResponse(partial:)`` with
    /// nothing received, on either transport.
    func exchange(_ request: String, toHEAD: Bool = false, timeout: Duration = .seconds(30)) async throws -> RawResponse {
        guard let sandbox = inProcess else {
            return try await RawClient.exchange(port: port, request, toHEAD: toHEAD, timeout: timeout)
        }
        return try await InProcessExchange.exchange(sandbox, request, toHEAD: toHEAD, timeout: timeout)
    }
}

enum InProcessExchange {
    private static let connectionCounter = Locked(0)

    static func exchange(_ sandbox: PaymentSandbox, _ text: String, toHEAD: Bool, timeout: Duration) async throws -> RawResponse {
        // Request ids as the server gives them: one prefix per connection, a counter per request.
        let connection = connectionCounter.withLock { $0 += 1; return $0 }
        var parser = HTTPRequestParser(limits: sandbox.configuration.http.limits, idPrefix: "inproc\(String(connection, radix: 36))-")
        parser.append(contentsOf: Array(text.utf8))
        var parsed: HTTPRequest?
        do {
            while parsed == nil, let event = try parser.next() {
                if case .request(let request) = event { parsed = request }
            }
        } catch {
            throw RawClientError.malformedResponse("in-process: the parser rejected the request (\(error)); such tests belong on sockets")
        }
        guard let request = parsed else {
            throw RawClientError.timedOut("in-process: the request is incomplete: \(text.debugDescription)")
        }
        let response: HTTPResponse
        do {
            response = try await withTimeout(timeout, "waiting for an in-process response to \(request.method) \(request.target)") {
                try await sandbox.respond(to: request)
            }
        } catch let error as URLError where error.code == .networkConnectionLost {
            // What a socket client reads when the server closes without answering.
            throw RawClientError.closedBeforeResponse(partial: "")
        }
        let keepAlive = request.wantsKeepAlive && !parser.isFinished
        let bytes = frame(response, requestMethod: request.method, requestVersion: request.version, keepAlive: keepAlive)
        guard let (parsedResponse, _) = try ResponseParser.parse(bytes[...], requestWasHEAD: toHEAD, atEOF: !keepAlive) else {
            throw RawClientError.malformedResponse("in-process: incomplete framing \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
        return parsedResponse
    }

    /// `body`'s result, or ``RawClientError/timedOut(_:)`` after `timeout` (as ``RawClient/readResponse(toHEAD:timeout:)``).
    private static func withTimeout<T: Sendable>(_ timeout: Duration, _ what: String,
                                                 _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else { throw RawClientError.timedOut(what) }
            return result
        }
    }

    /// The bytes the server writes for `response` (SandboxHTTP's ResponseSerializer, RFC 9112 §4, §6): the server owns
    /// `Date`, `Content-Length`, `Connection` and `Transfer-Encoding`; a handler's `Connection: close` closes.
    static func frame(_ response: HTTPResponse, requestMethod: HTTPMethod, requestVersion: HTTPVersion, keepAlive: Bool) -> [UInt8] {
        var keepAlive = keepAlive
        let code = response.status.code
        var out: [UInt8] = []
        func sanitized(_ text: String) { for byte in text.utf8 { out.append(byte < 0x20 && byte != 0x09 || byte == 0x7F ? 0x20 : byte) } }
        out += Array("HTTP/1.1 \(code) ".utf8)
        sanitized(response.status.reasonPhrase)
        out += Array("\r\n".utf8)
        for field in response.headers.fields {
            let name = field.name.lowercased()
            if ["content-length", "date", "connection", "transfer-encoding"].contains(name) {
                if name == "connection",
                   field.value.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }) {
                    keepAlive = false
                }
                continue
            }
            sanitized(field.name)
            out += Array(": ".utf8)
            sanitized(field.value)
            out += Array("\r\n".utf8)
        }
        out += Array("Date: \(imfFixdate(Date()))\r\n".utf8)
        let bodyAllowed = code >= 200 && code != 204 && code != 304
        if bodyAllowed || code == 304 { out += Array("Content-Length: \(response.body.count)\r\n".utf8) }
        if !keepAlive {
            out += Array("Connection: close\r\n".utf8)
        } else if requestVersion == .http1_0 {
            out += Array("Connection: keep-alive\r\n".utf8)
        }
        out += Array("\r\n".utf8)
        if bodyAllowed && requestMethod != .head { out += Array(response.body) }
        return out
    }

    private static func imfFixdate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
