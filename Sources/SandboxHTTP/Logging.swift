// SPDX-License-Identifier: MIT
import Foundation

/// One finished request, as the server logs it.
public struct RequestLogEntry: Sendable {
    public var requestID: String
    public var method: String
    public var path: String
    public var status: Int
    /// From the complete request to the response handed to the socket.
    public var durationSeconds: Double
    public var responseBytes: Int
}

public enum LogLevel: String, Sendable { case debug, info, warning, error }

/// Where the server reports requests and notable events. Called from event-loop threads: keep it quick.
public protocol HTTPServerLogger: Sendable {
    func logRequest(_ entry: RequestLogEntry)
    func log(_ level: LogLevel, _ message: String)
}

/// Sees every answered request with its response (or dropped connection) and the handler's note, on the
/// event-loop thread that answered it: keep it quick and non-blocking (the sandbox's request journal is one).
/// An in-process caller of ``Router/respond(to:timeout:)`` hands it the exchange the same way.
package protocol HTTPExchangeObserver: Sendable {
    func exchangeCompleted(_ exchange: HTTPExchange, durationSeconds: Double)
}

extension HTTPExchangeObserver {
    /// Observes an answer that no router gave (a test's, an in-process caller's own).
    package func exchangeCompleted(_ request: HTTPRequest, _ response: HTTPResponse,
                                  note: (any CustomStringConvertible & Sendable)? = nil, durationSeconds: Double) {
        exchangeCompleted(HTTPExchange(request: request, response: response, note: note), durationSeconds: durationSeconds)
    }
}
