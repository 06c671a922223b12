// SPDX-License-Identifier: MIT

extension Router {
    /// Answers one parsed request without a socket: everything ``HTTPServer``'s connections do between "a whole
    /// request was read" and "the answer is serialized". The access check of the path's prefix, the route (path
    /// parameters bound), 404 / 405 with `Allow` / bad percent-encoding rendered by the path's ``HTTPErrorRenderer``,
    /// thrown errors (``HTTPReplyError``, ``HTTPResponseError``, ``HTTPError``, else a 500 naming the request id),
    /// a later answer awaited, and the handler's note.
    ///
    /// - Parameter timeout: as the server's handler timeout: a later or `async` answer that takes longer is
    ///   cancelled and answered 503 in the path's format (``handlerTimeoutResponse(for:after:)``). nil: no limit.
    ///
    /// An in-process caller hands the result to the journal (any ``HTTPExchangeObserver``) as the server does:
    ///
    /// ```swift
    /// let started = Date()
    /// let exchange = await router.respond(to: try HTTPRequest(method: .get, target: "/psp/paymentsessions/t-1"),
    ///                                     timeout: .seconds(30))
    /// journal.exchangeCompleted(exchange, durationSeconds: Date().timeIntervalSince(started))
    /// switch exchange.outcome {
    /// case .response(let response): print(response.status.code)
    /// case .connectionDropped: print("no answer")   // the journal records status 499
    /// }
    /// ```
    package func respond(to request: HTTPRequest, timeout: Duration? = nil) async -> HTTPExchange {
        switch route(request) {
        case .answered(let exchange):
            return exchange
        case .pending(let pending):
            guard let timeout else { return await pending.run(self) }
            return await Self.run(pending, self, timeout: timeout)
        }
    }

    /// The 503 a request gets when its handler did not answer within `timeout`, in the path's format.
    package func handlerTimeoutResponse(for request: HTTPRequest, after timeout: Duration) -> HTTPResponse {
        let error = HTTPError(.serviceUnavailable, "handler did not answer within \(timeout)", kind: .handlerTimeout)
        return errorRenderer(forPath: request.path).render(error, for: request)
    }

    /// The answer to what a handler threw (see ``respond(to:timeout:)``); `unexpected` is true for the 500s.
    func reply(for error: any Error, to request: HTTPRequest) -> (reply: HTTPReply, unexpected: Bool) {
        if let error = error as? any HTTPReplyError { return (error.reply(for: request), false) }
        let unexpected = !(error is any HTTPResponseError) && !(error is HTTPError)
        return (HTTPReply(response(for: error, to: request)), unexpected)
    }

    // MARK: The steps the connection shares

    /// How far routing got on the caller's thread.
    enum Routing {
        /// Answered without waiting: an error, or an `immediate` handler's answer.
        case answered(HTTPExchange)
        /// An `async` handler or a later answer remains to be awaited (``PendingAnswer/run(_:)``).
        case pending(PendingAnswer)
    }

    /// What a task must still await for one request.
    struct PendingAnswer: Sendable {
        enum Work: Sendable {
            case handler(@Sendable (HTTPRequest) async throws -> HTTPReply)
            case reply(@Sendable () async -> HTTPReply)
        }

        var request: HTTPRequest
        var work: Work
        /// The note of the reply that handed the answer over.
        var note: (any CustomStringConvertible & Sendable)?

        func run(_ router: Router) async -> HTTPExchange {
            var reply: HTTPReply
            var unexpected = false
            var thrown: (any Error)?
            switch work {
            case .handler(let handler):
                do {
                    reply = try await handler(request)
                } catch {
                    (reply, unexpected) = router.reply(for: error, to: request)
                    thrown = error
                }
            case .reply(let body):
                reply = await body()
            }
            var note = self.note
            while true {
                if let own = reply.note { note = own }
                switch reply.answer {
                case .response(let response):
                    return HTTPExchange(request: request, outcome: .response(response), note: note, unexpectedError: unexpected ? thrown : nil)
                case .dropConnection:
                    return HTTPExchange(request: request, outcome: .connectionDropped, note: note)
                case .later(let body):
                    reply = await body()
                }
            }
        }
    }

    /// Resolves `request` and runs an `immediate` handler on the caller's thread; what must be awaited is left pending.
    func route(_ request: consuming HTTPRequest) -> Routing {
        switch resolve(&request) {
        case .error(let error):
            return .answered(HTTPExchange(request: request, outcome: .response(errorRenderer(forPath: request.path).render(error, for: request))))
        case .handler(.immediate(let handler)):
            // One settle after the do/catch: the request moves into the exchange instead of being copied there.
            let reply: HTTPReply, unexpectedError: (any Error)?
            do {
                reply = try handler(request)
                unexpectedError = nil
            } catch {
                let (errorReply, unexpected) = self.reply(for: error, to: request)
                reply = errorReply
                unexpectedError = unexpected ? error : nil
            }
            return Self.settle(reply, request, unexpectedError: unexpectedError)
        case .handler(.async(let handler)):
            return .pending(PendingAnswer(request: request, work: .handler(handler)))
        }
    }

    private static func settle(_ reply: HTTPReply, _ request: consuming HTTPRequest, unexpectedError: (any Error)?) -> Routing {
        switch reply.answer {
        case .response(let response):
            return .answered(HTTPExchange(request: request, outcome: .response(response), note: reply.note, unexpectedError: unexpectedError))
        case .dropConnection:
            return .answered(HTTPExchange(request: request, outcome: .connectionDropped, note: reply.note))
        case .later(let body):
            return .pending(PendingAnswer(request: request, work: .reply(body), note: reply.note))
        }
    }

    /// `pending` in a task of its own, cancelled and answered 503 when `timeout` passes first.
    private static func run(_ pending: PendingAnswer, _ router: Router, timeout: Duration) async -> HTTPExchange {
        typealias Waiter = CheckedContinuation<HTTPExchange, Never>
        let waiter = Locked<Waiter?>(nil)
        let tasks = Locked<[Task<Void, Never>]>([])
        @Sendable func resume(_ exchange: HTTPExchange) {
            let taken = waiter.withLock { waiter -> Waiter? in
                defer { waiter = nil }
                return waiter
            }
            guard let taken else { return }
            for task in tasks.withLock({ $0 }) { task.cancel() }
            taken.resume(returning: exchange)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                waiter.withLock { $0 = continuation }
                let work = Task { resume(await pending.run(router)) }
                let timer = Task {
                    do { try await Task.sleep(for: timeout) } catch { return }
                    resume(HTTPExchange(request: pending.request,
                                        response: router.handlerTimeoutResponse(for: pending.request, after: timeout)))
                }
                tasks.withLock { $0 = [work, timer] }
                // The work may have answered before the tasks were stored: the timer is not needed. A caller
                // cancelled before then cancels the work now.
                if waiter.withLock({ $0 == nil }) { timer.cancel() }
                if Task.isCancelled { work.cancel() }
            }
        } onCancel: {
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }
    }
}
