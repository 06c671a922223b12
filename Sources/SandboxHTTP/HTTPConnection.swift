// SPDX-License-Identifier: MIT
import Foundation

/// One client connection, confined to its event loop's thread. Requests are answered strictly in order:
/// while a handler runs, the connection reads nothing more (pipelined bytes wait in the parser).
///
/// When the server stops (``beginShutdown()``), what the client has sent is read once more and every complete
/// request in it is queued; those are answered in order, the last answer with `Connection: close`, and nothing
/// sent after that is served. After the grace period (``gracePeriodEnded()``) the rest are answered 503.
final class HTTPConnection {
    let fd: Int32
    let id: UInt64
    unowned let loop: EventLoop

    // The state below is touched only by the loop's thread, never by two accesses at once: no run-time
    // exclusivity check per access (@exclusivity(unchecked)), which cost a request about 2,000 instructions.
    @exclusivity(unchecked) private var parser: HTTPRequestParser
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var outputSent = 0
    @exclusivity(unchecked) private var phase: Phase = .reading
    @exclusivity(unchecked) private var closeAfterFlush = false
    @exclusivity(unchecked) private var peerClosed = false
    @exclusivity(unchecked) private var requestsAnswered = 0
    @exclusivity(unchecked) private var inFlight: InFlight?
    @exclusivity(unchecked) private var sequence = 0
    @exclusivity(unchecked) private var lingerBytes = 0
    /// The answer count when the idle deadline was last armed.
    @exclusivity(unchecked) private var idleSince = 0
    /// The server is stopping: requests come from `drained`, not from the socket.
    @exclusivity(unchecked) private var draining = false
    /// The requests received before the stop, not yet dispatched, last first (popped from the end).
    @exclusivity(unchecked) private var drained: [DrainedInput] = []

    private enum DrainedInput {
        case request(HTTPRequest)
        /// Malformed input after the complete requests: answered like any parse error, then the connection closes.
        case error(HTTPParseError)
    }

    @exclusivity(unchecked) private(set) var deadline: UInt64
    @exclusivity(unchecked) private var deadlineKind: DeadlineKind

    private enum Phase { case reading, handling, lingering, closed }
    private enum DeadlineKind { case head, body, idle, handler, write, linger }

    private struct InFlight {
        var request: HTTPRequest
        var started: UInt64
        var task: Task<Void, Never>?
    }

    /// Output beyond this stops reading pipelined requests until the client has read some.
    private static let outputHighWater = 1 << 20
    /// On stop: at most this many requests are queued (a bound on memory, far beyond what a client pipelines;
    /// past it the last queued answer closes).
    private static let maxDrainedRequests = 4096

    init(fd: Int32, id: UInt64, loop: EventLoop) {
        self.fd = fd
        self.id = id
        self.loop = loop
        self.parser = HTTPRequestParser(limits: loop.shared.configuration.limits, idPrefix: String(id, radix: 36) + "-")
        self.deadlineKind = .head
        self.deadline = Socket.now() + loop.shared.configuration.headTimeout.nanoseconds
    }

    var isClosed: Bool { phase == .closed }
    var wantsRead: Bool {
        switch phase {
        case .reading: !draining && !peerClosed && !closeAfterFlush && output.count - outputSent < Self.outputHighWater
        case .lingering: true
        case .handling, .closed: false
        }
    }
    var wantsWrite: Bool { phase != .closed && outputSent < output.count }
    /// POLLIN for ``wantsRead``, POLLOUT for ``wantsWrite``.
    var pollEvents: Int16 {
        (wantsRead ? Int16(POLLIN) : 0) | (wantsWrite ? Int16(POLLOUT) : 0)
    }

    private var configuration: HTTPServerConfiguration { loop.shared.configuration }

    // MARK: Events from the loop

    func onReadable() {
        switch phase {
        case .reading where draining:
            // Only a hang-up or an error brings a stopping connection here: nothing it sends now is served.
            switch Socket.read(fd, into: loop.readBuffer) {
            case .bytes(let count):
                lingerBytes += count
                if lingerBytes > 4 << 20 { close() }
            case .wouldBlock:
                break
            case .closed:
                peerClosed = true
                // Answers still owed are written; a write to a reset peer fails and closes the connection.
                flush()
            }
        case .reading:
            var progressed = false
            readLoop: for _ in 0..<4 {
                switch Socket.read(fd, into: loop.readBuffer) {
                case .bytes(let count):
                    parser.append(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
                    progressed = true
                    if count < loop.readBuffer.count { break readLoop }
                case .wouldBlock:
                    break readLoop
                case .closed:
                    peerClosed = true
                    break readLoop
                }
            }
            processInput(progressed: progressed)
        case .lingering:
            // Discard what the client still sends after our final answer, until it closes.
            while true {
                switch Socket.read(fd, into: loop.readBuffer) {
                case .bytes(let count):
                    lingerBytes += count
                    if lingerBytes > 4 << 20 { close(); return }
                case .wouldBlock: return
                case .closed: close(); return
                }
            }
        case .handling, .closed:
            return
        }
    }

    func onWritable() {
        flush()
        // Pipelined requests may have waited for the output to drain below the high-water mark.
        if phase == .reading && !wantsWrite && !closeAfterFlush { processInput(progressed: false) }
    }

    /// The handler's answer arrived from its task.
    func complete(sequence: Int, exchange: HTTPExchange) {
        guard phase == .handling, sequence == self.sequence, let inFlight else { return }
        self.inFlight = nil
        phase = .reading
        finish(exchange, started: inFlight.started)
        processInput(progressed: false)
        flush()
    }

    func deadlinePassed() {
        if draining && (deadlineKind == .head || deadlineKind == .body || deadlineKind == .idle) {
            // Stopping: nothing more is read, so there is no read deadline; the stop's own deadlines apply.
            deadline = .max
            return
        }
        switch deadlineKind {
        case .idle, .write, .linger:
            close()
        case .head:
            // Nothing received at all: just close. Part of a head: 408 (slowloris).
            if parser.isMidRequest {
                answerAndClose(HTTPError(.requestTimeout, "request head not received within \(configuration.headTimeout)", kind: .malformedRequest), request: nil)
            } else {
                close()
            }
        case .body:
            answerAndClose(HTTPError(.requestTimeout, "request body stalled for \(configuration.bodyIdleTimeout)", kind: .malformedRequest),
                           request: parser.pendingHead)
        case .handler:
            guard let inFlight else { return }
            inFlight.task?.cancel()
            self.inFlight = nil
            phase = .reading
            // While stopping, the requests queued behind it are still answered.
            if !draining { closeAfterFlush = true }
            let response = loop.shared.router.handlerTimeoutResponse(for: inFlight.request, after: configuration.handlerTimeout)
            finish(HTTPExchange(request: inFlight.request, response: response), started: inFlight.started)
            processInput(progressed: false)
        }
    }

    // MARK: Stopping

    /// The server is stopping. Reads what the client has sent so far (it may still sit in the socket's buffer)
    /// and queues every complete request in it to be answered; a partial request is dropped and nothing sent
    /// later is served. A connection with nothing to answer closes now.
    func beginShutdown() {
        guard !draining, phase != .closed else { return }
        draining = true
        guard phase != .lingering else { return }
        if !closeAfterFlush {
            if !peerClosed { readRemainingInput() }
            queueCompleteRequests()
        }
        if phase == .reading { processInput(progressed: false) }
    }

    /// The stop's grace period is over: the request whose handler still runs and every one queued behind it
    /// get 503 with `Retry-After` (``dispatch(_:)`` answers the queued ones so), the last `Connection: close`.
    func gracePeriodEnded() {
        guard draining else { return }
        if phase == .handling, let inFlight {
            inFlight.task?.cancel()
            self.inFlight = nil
            phase = .reading
            finish(HTTPExchange(request: inFlight.request, response: shuttingDownResponse(for: inFlight.request)), started: inFlight.started)
        }
        if phase == .reading { processInput(progressed: false) }
    }

    /// Reads until the socket has nothing more, but no more than one request of the largest size allowed: as much
    /// as a connection may buffer while serving, whatever a client keeps sending meanwhile.
    private func readRemainingInput() {
        let limit = parser.limits.maxHeadBytes + parser.limits.maxBodyBytes + loop.readBuffer.count
        var total = 0
        while total < limit {
            switch Socket.read(fd, into: loop.readBuffer) {
            case .bytes(let count):
                parser.append(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
                total += count
            case .wouldBlock:
                return
            case .closed:
                peerClosed = true
                return
            }
        }
    }

    private func queueCompleteRequests() {
        var queue: [DrainedInput] = []
        parsing: while queue.count < Self.maxDrainedRequests {
            do {
                // A 100-continue for a body that has not come is not sent: that request is partial.
                guard let event = try parser.next() else { break }
                if case .request(let request) = event { queue.append(.request(request)) }
            } catch {
                queue.append(.error(error))
                break parsing
            }
        }
        drained = queue.reversed()
        // Nothing is parsed any more: free the buffer.
        parser = HTTPRequestParser(limits: parser.limits)
    }

    /// 503 in the format of the API the request was for: the server stopped before the request was answered.
    private func shuttingDownResponse(for request: HTTPRequest) -> HTTPResponse {
        let error = HTTPError(.serviceUnavailable, "the server is shutting down; retry shortly", kind: .handlerTimeout)
        var response = loop.shared.router.errorRenderer(forPath: request.path).render(error, for: request)
        response.headers.set(name: "Retry-After", value: "1")
        return response
    }

    /// The next request to answer: from the parser, or while stopping from what was queued at the stop.
    private func nextInput() throws(HTTPParseError) -> HTTPParserEvent? {
        guard draining else { return try parser.next() }
        switch drained.popLast() {
        case .request(let request)?: return .request(request)
        case .error(let error)?: throw error
        case nil: return nil
        }
    }

    // MARK: Requests

    private func processInput(progressed: Bool) {
        while phase == .reading && !closeAfterFlush && output.count - outputSent < Self.outputHighWater {
            let event: HTTPParserEvent?
            do {
                event = try nextInput()
            } catch {
                answerAndClose(HTTPError(error.status, error.reason, kind: .malformedRequest), request: error.head, path: error.path)
                return
            }
            guard let event else { break }
            switch event {
            case .continueExpected:
                output.append(contentsOf: ResponseSerializer.continueResponse)
            case .request(let request):
                dispatch(request)
            }
        }
        if draining && phase == .reading && !closeAfterFlush && drained.isEmpty {
            // Stopping, and every request received before the stop has been answered.
            guard wantsWrite else { close(); return }
            closeAfterFlush = true
        }
        flush()
        updateReadDeadline(progressed: progressed)
        // The client half-closed and every request it sent has been answered: nothing more can come.
        if phase == .reading && peerClosed && !wantsWrite && !closeAfterFlush { close() }
    }

    private func dispatch(_ request: consuming HTTPRequest) {
        let started = Socket.now()
        if loop.gracePeriodEnded {
            finish(HTTPExchange(request: request, response: shuttingDownResponse(for: request)), started: started)
            return
        }
        request.trustedForwardedHeaders = configuration.trustedForwardedHeaders
        request.publicOriginOverride = configuration.publicBaseURL
        // Resolution, the handler and error mapping are the router's (Router.respond(to:timeout:) does the same).
        switch loop.shared.route(request) {
        case .answered(let exchange):
            finish(exchange, started: started)
        case .pending(let pending):
            startTask(pending, started: started)
        }
    }

    /// Awaits `pending` in a task; its answer comes back through the loop's inbox (``complete(sequence:exchange:)``).
    private func startTask(_ pending: Router.PendingAnswer, started: UInt64) {
        sequence += 1
        phase = .handling
        setDeadline(.handler, after: configuration.handlerTimeout)
        let loop = self.loop, id = self.id, fd = self.fd, sequence = self.sequence
        let task = Task {
            let exchange = await pending.run(loop.shared.router)
            loop.submit(EventLoop.Completion(connectionID: id, fd: fd, sequence: sequence, exchange: exchange))
        }
        inFlight = InFlight(request: pending.request, started: started, task: task)
    }

    /// Queues the answer to a request and logs it. Errors a handler threw that are not meant for the client are
    /// logged in full here; the client's 500 names only the request id.
    private func finish(_ exchange: HTTPExchange, started: UInt64) {
        let request = exchange.request
        if let error = exchange.unexpectedError {
            loop.shared.logger?.log(.error, "\(request.id) \(request.method) \(request.path): handler threw \(error)")
        }
        guard case .response(let response) = exchange.outcome else {
            // Logged and observed with the pseudo-status 499; the client sees the connection close, nothing else.
            log(request.id, request.method.rawValue, request.path, exchange.status, started: started, bytes: 0)
            loop.shared.observer?.exchangeCompleted(exchange, durationSeconds: Double(Socket.now() - started) / 1e9)
            close()
            return
        }
        // While stopping, only the last of the requests received before the stop closes.
        let keepAlive = request.wantsKeepAlive && !closeAfterFlush && (draining ? !drained.isEmpty : !parser.isFinished)
        let before = output.count
        // A handler's `Connection: close` closes too.
        let keptAlive = ResponseSerializer.write(response, requestMethod: request.method, requestVersion: request.version,
                                                 keepAlive: keepAlive, date: loop.currentDate(), into: &output)
        if !keptAlive { closeAfterFlush = true }
        requestsAnswered += 1
        if loop.shared.logs {
            log(request.id, request.method.rawValue, request.path, response.status.code, started: started, bytes: output.count - before)
        }
        if let observer = loop.shared.observer {
            observer.exchangeCompleted(exchange, durationSeconds: Double(Socket.now() - started) / 1e9)
        }
    }

    /// Answers a protocol error (bad framing, limits, timeouts) in the format of the API the path belongs to, then closes.
    /// `path`: the request line's path when there is no request (the parser's, or what has arrived of a head).
    private func answerAndClose(_ error: HTTPError, request: HTTPRequest?, path: String? = nil) {
        let started = Socket.now()
        let subject = request ?? HTTPRequest(placeholderWithID: "\(String(id, radix: 36))-err")
        let renderer = loop.shared.router.errorRenderer(forPath: request?.path ?? path ?? parser.pathOfPartialHead ?? "")
        let response = renderer.render(error, for: subject)
        closeAfterFlush = true
        let before = output.count
        ResponseSerializer.write(response, requestMethod: subject.method, requestVersion: subject.version,
                                 keepAlive: false, date: loop.currentDate(), into: &output)
        log(subject.id, request?.method.rawValue ?? "-", request?.path ?? "-", response.status.code, started: started,
            bytes: output.count - before)
        flush()
    }

    private func log(_ requestID: String, _ method: String, _ path: String, _ status: Int, started: UInt64, bytes: Int) {
        guard let logger = loop.shared.logger else { return }
        let elapsed = Double(Socket.now() - started) / 1e9
        logger.logRequest(RequestLogEntry(requestID: requestID, method: method, path: path, status: status,
                                          durationSeconds: elapsed, responseBytes: bytes))
    }

    // MARK: Output

    private func flush() {
        guard phase != .closed else { return }
        var progressed = false
        while outputSent < output.count {
            let result = output.withUnsafeBytes { Socket.write(fd, UnsafeRawBufferPointer(rebasing: $0[outputSent...])) }
            switch result {
            case .bytes(let count):
                outputSent += count
                progressed = true
            case .wouldBlock:
                if deadlineKind != .write || progressed { setDeadline(.write, after: configuration.writeTimeout) }
                return
            case .closed:
                close()
                return
            }
        }
        if output.capacity > 1 << 20 { output = [] } else { output.removeAll(keepingCapacity: true) }
        outputSent = 0
        if closeAfterFlush && phase == .reading {
            beginLingeringClose()
        } else if progressed && phase == .reading {
            updateReadDeadline(progressed: false)
        }
    }

    private func beginLingeringClose() {
        if peerClosed {
            close()
            return
        }
        Platform.shutdownWrite(fd)
        phase = .lingering
        setDeadline(.linger, after: configuration.lingerTimeout)
    }

    private func updateReadDeadline(progressed: Bool) {
        guard phase == .reading, !draining, !closeAfterFlush, !wantsWrite else { return }
        if parser.isAwaitingBody {
            if deadlineKind != .body || progressed { setDeadline(.body, after: configuration.bodyIdleTimeout) }
        } else if parser.isMidRequest {
            // Set once when the head starts: trickling bytes does not extend it.
            if deadlineKind != .head { setDeadline(.head, after: configuration.headTimeout) }
        } else if requestsAnswered > 0 && (deadlineKind != .idle || idleSince != requestsAnswered) {
            // Idle from the last answer on: re-armed after every request, not once per connection.
            idleSince = requestsAnswered
            setDeadline(.idle, after: configuration.idleTimeout)
        }
    }

    private func setDeadline(_ kind: DeadlineKind, after duration: Duration) {
        deadlineKind = kind
        deadline = Socket.now() + duration.nanoseconds
    }

    func close() {
        guard phase != .closed else { return }
        phase = .closed
        inFlight?.task?.cancel()
        inFlight = nil
        _ = Platform.close(fd)
        loop.connectionClosed(self)
    }
}

extension HTTPRequest {
    /// Stands in for a request whose head could not be read, so an error can still be rendered.
    init(placeholderWithID id: String) {
        self.method = .get
        self.target = "/"
        self.path = "/"
        self.rawPath = "/"
        self.query = []
        self.version = .http1_1
        self.headers = [:]
        self.body = Data()
        self.trailers = [:]
        self.parameters = RouteParameters()
        self.id = id
    }
}
