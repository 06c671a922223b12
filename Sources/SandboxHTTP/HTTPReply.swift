// SPDX-License-Identifier: MIT

/// What a handler decided, beyond the response a client sees: when the answer comes (now, or from a task
/// after a wait), or that there is none (the connection is dropped), and a note for ``HTTPExchangeObserver``s.
///
/// Handlers that answer at once may return a plain ``HTTPResponse``; the ``Router`` takes both.
///
/// ```swift
/// router.addImmediate("POST /orders/:id/capture") { request in
///     HTTPReply(try .json(store.capture(request)), note: "capture: approve (rule 0)").delayed(by: .milliseconds(200))
/// }
/// ```
package struct HTTPReply: Sendable {
    package enum Answer: Sendable {
        /// This response, now.
        case response(HTTPResponse)
        /// The reply a task produces: an `immediate` handler decided on the event loop but must wait before
        /// answering (a scenario's delay). The connection awaits it under the handler timeout.
        case later(@Sendable () async -> HTTPReply)
        /// No answer at all: the connection is closed (a simulated network fault, scenarios' `drop_connection`).
        case dropConnection
    }

    package var answer: Answer
    /// Never sent: what the handler decided, for ``HTTPExchangeObserver``s (the sandbox's journal shows it, e.g.
    /// which scenario rule applied). Any description, so a handler can hand over its values and the text is only
    /// made when someone reads it. A ``Answer/later(_:)`` reply's note stands unless the reply it produces has one.
    package var note: (any CustomStringConvertible & Sendable)?

    package init(_ answer: Answer, note: (any CustomStringConvertible & Sendable)? = nil) {
        self.answer = answer
        self.note = note
    }

    /// `response`, now.
    package init(_ response: HTTPResponse, note: (any CustomStringConvertible & Sendable)? = nil) {
        self.init(.response(response), note: note)
    }

    /// The reply `body` produces in a task (see ``Answer/later(_:)``).
    package static func later(note: (any CustomStringConvertible & Sendable)? = nil,
                             _ body: @escaping @Sendable () async -> HTTPReply) -> HTTPReply {
        HTTPReply(.later(body), note: note)
    }

    /// No answer: the connection is closed (see ``Answer/dropConnection``).
    package static func dropConnection(note: (any CustomStringConvertible & Sendable)? = nil) -> HTTPReply {
        HTTPReply(.dropConnection, note: note)
    }

    /// This reply with its answer lost: whatever the handler decided took effect, then the connection is closed
    /// instead of answering (scenarios' `commit_then_drop`), when the answer would have been sent (a reply handed
    /// to a task drops when the task is done).
    package func droppingAnswer() -> HTTPReply {
        switch answer {
        case .response, .dropConnection:
            return HTTPReply(.dropConnection, note: note)
        case .later(let body):
            return .later(note: note) { await body().droppingAnswer() }
        }
    }

    /// This reply, given `delay` later from a task; a reply that is already handed to a task is awaited after
    /// the delay. The wait ends early only if the server gives up on the request (handler timeout, stop).
    package func delayed(by delay: Duration) -> HTTPReply {
        let reply = self
        return .later(note: note) {
            try? await Task.sleep(for: delay)
            return reply
        }
    }

    /// This reply with `note` (replacing any other).
    package func noted(_ note: (any CustomStringConvertible & Sendable)?) -> HTTPReply {
        var reply = self
        reply.note = note
        return reply
    }
}

/// An error that answers with a reply of its own (``HTTPResponseError`` for one that answers with a response),
/// e.g. a scenario's `drop_connection` thrown from deep inside an operation.
package protocol HTTPReplyError: Error {
    func reply(for request: HTTPRequest) -> HTTPReply
}

/// What became of one request: the response the client got, or a dropped connection; and the handler's note.
/// ``Router/respond(to:timeout:)`` gives it; ``HTTPExchangeObserver``s see it.
package struct HTTPExchange: Sendable {
    package enum Outcome: Sendable {
        case response(HTTPResponse)
        /// The connection was closed without an answer.
        case connectionDropped
    }

    /// The request as the handler saw it (path parameters bound).
    package var request: HTTPRequest
    package var outcome: Outcome
    /// The handler's ``HTTPReply/note``.
    package var note: (any CustomStringConvertible & Sendable)?
    /// What a handler threw that was not an answer of its own (the client got a 500 naming the request id):
    /// for the server's log.
    package var unexpectedError: (any Error)?

    package init(request: HTTPRequest, outcome: Outcome, note: (any CustomStringConvertible & Sendable)? = nil,
                unexpectedError: (any Error)? = nil) {
        self.request = request
        self.outcome = outcome
        self.note = note
        self.unexpectedError = unexpectedError
    }

    package init(request: HTTPRequest, response: HTTPResponse, note: (any CustomStringConvertible & Sendable)? = nil) {
        self.init(request: request, outcome: .response(response), note: note)
    }

    /// What the client got; nil when the connection was dropped.
    package var response: HTTPResponse? {
        if case .response(let response) = outcome { response } else { nil }
    }

    /// The status logs and journals record: the response's, or ``droppedStatus``.
    package var status: Int {
        if case .response(let response) = outcome { response.status.code } else { Self.droppedStatus }
    }

    /// The pseudo-status logged for a dropped connection (the client sees no status at all).
    package static let droppedStatus = 499
}
