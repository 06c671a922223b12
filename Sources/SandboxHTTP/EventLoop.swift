// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread polling a set of connections. Loop 0 also owns the listening socket and hands new
/// connections to the loops in turn.
///
/// Thread confinement: everything but `inbox`, `wakePending` and the wake pipe's write end is touched
/// only by this loop's thread (or before it starts). Other threads reach the loop only through
/// ``submit(_:)``, ``submitConnection(_:)`` and ``requestStop(_:)``, which go through the
/// mutex-guarded inbox. That is why the class is `@unchecked Sendable`.
final class EventLoop: @unchecked Sendable {
    let index: Int
    let shared: ServerShared
    private let exits: LoopExitTracker

    // Cross-thread.
    private let inbox = Locked(Inbox())
    private let wakePending = Locked<Bool>(false)
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private struct Inbox {
        var connections: [Int32] = []
        var completions: [Completion] = []
        var stop: StopDeadlines?
        /// Set when the loop has exited: its wake pipe is closed and nothing may be queued any more.
        var closed = false
    }

    /// When a stop's grace period ends (unanswered requests get 503) and when every connection is closed.
    struct StopDeadlines: Sendable {
        var grace: UInt64
        var close: UInt64
    }

    struct Completion: Sendable {
        var connectionID: UInt64
        var fd: Int32
        var sequence: Int
        var exchange: HTTPExchange
    }

    // Loop-thread state (no run-time exclusivity check: one thread, never two accesses at once).
    @exclusivity(unchecked) private var connections: [Int32: HTTPConnection] = [:]
    private var listener: Int32 = -1
    private var siblings: [EventLoop] = []
    private var nextSibling = 0
    private var acceptPausedUntil: UInt64 = 0
    @exclusivity(unchecked) private var pollSet: [pollfd] = []
    @exclusivity(unchecked) private var pollOwners: [HTTPConnection?] = []
    @exclusivity(unchecked) private var nextTimerCheck: UInt64 = 0
    /// Set once the server is stopping.
    private(set) var stopping: StopDeadlines?
    /// Set when the stop's grace period is over: requests not yet answered get 503.
    private(set) var gracePeriodEnded = false
    @exclusivity(unchecked) private(set) var dateCache = HTTPDateCache()
    let readBuffer: UnsafeMutableRawBufferPointer
    let timerResolution: UInt64

    init?(index: Int, shared: ServerShared, exits: LoopExitTracker) {
        guard let pipe = Platform.pipe() else { return nil }
        Socket.setNonBlocking(pipe.read)
        Socket.setNonBlocking(pipe.write)
        self.index = index
        self.shared = shared
        self.exits = exits
        self.wakeRead = pipe.read
        self.wakeWrite = pipe.write
        self.readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        let configuration = shared.configuration
        // Check deadlines often enough for the shortest configured timeout, at most every 100 ms.
        let shortest = [configuration.headTimeout, configuration.bodyIdleTimeout, configuration.idleTimeout,
                        configuration.writeTimeout, configuration.handlerTimeout, configuration.lingerTimeout]
            .map(\.nanoseconds).min() ?? 100_000_000
        self.timerResolution = max(5_000_000, min(100_000_000, shortest / 4))
    }

    /// Called before the threads start.
    func adoptListener(_ fd: Int32, siblings: [EventLoop]) {
        listener = fd
        self.siblings = siblings
    }

    /// Frees what `init` took when the server fails to start before this loop's thread ran.
    func discardUnstarted() {
        _ = Platform.close(wakeRead)
        _ = Platform.close(wakeWrite)
        readBuffer.deallocate()
    }

    // MARK: Cross-thread entry points

    /// A handler's answer; dropped if the loop has already exited (the server stopped).
    func submit(_ completion: Completion) {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.completions.append(completion)
            wakeLocked()
        }
    }

    /// A connection accepted by loop 0 for this loop; closed here if this loop has already exited.
    func submitConnection(_ fd: Int32) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.closed else { return false }
            inbox.connections.append(fd)
            wakeLocked()
            return true
        }
        if !accepted {
            _ = Platform.close(fd)
            shared.openConnections.withLock { $0 -= 1 }
        }
    }

    func requestStop(_ deadlines: StopDeadlines) {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.stop = deadlines
            wakeLocked()
        }
    }

    /// Called with the inbox lock held, so the pipe cannot be closed (and its number reused) under the write.
    private func wakeLocked() {
        // One byte in the pipe is enough until the loop has drained it.
        if !wakePending.withLock({ pending in defer { pending = true }; return pending }) {
            var byte: UInt8 = 1
            _ = Platform.write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The loop

    func run() {
        while true {
            drainInbox()
            if let stopping {
                let now = Socket.now()
                if !gracePeriodEnded && now >= stopping.grace { endGracePeriod() }
                if connections.isEmpty || now >= stopping.close { break }
            }
            buildPollSet()
            let ready = pollSet.withUnsafeMutableBufferPointer { Platform.poll($0.baseAddress!, $0.count, pollTimeout()) }
            if ready > 0 { dispatchReadyEvents() }
            let now = Socket.now()
            if now >= nextTimerCheck {
                nextTimerCheck = now + timerResolution
                checkDeadlines(now: now)
            }
        }
        for connection in Array(connections.values) { connection.close() }
        if listener >= 0 { _ = Platform.close(listener) }
        let leftover = inbox.withLock { inbox -> [Int32] in
            inbox.closed = true
            _ = Platform.close(wakeRead)
            _ = Platform.close(wakeWrite)
            return inbox.connections
        }
        for fd in leftover {
            _ = Platform.close(fd)
            shared.openConnections.withLock { $0 -= 1 }
        }
        readBuffer.deallocate()
        exits.loopExited()
    }

    private func buildPollSet() {
        // Built in locals, taken from and put back into the properties: one access each, not one per append.
        var set = pollSet, owners = pollOwners
        pollSet = []
        pollOwners = []
        set.removeAll(keepingCapacity: true)
        owners.removeAll(keepingCapacity: true)
        set.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
        owners.append(nil)
        if listener >= 0 && (acceptPausedUntil == 0 || Socket.now() >= acceptPausedUntil) {
            set.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            owners.append(nil)
        }
        for connection in connections.values {
            let events = connection.pollEvents
            // A connection waiting on its handler is left out: poll would report a hang-up on it
            // over and over. The handler's answer finds out whether the peer is still there.
            guard events != 0 else { continue }
            set.append(pollfd(fd: connection.fd, events: events, revents: 0))
            owners.append(connection)
        }
        pollSet = set
        pollOwners = owners
    }

    private func pollTimeout() -> Int32 {
        if let stopping {
            let now = Socket.now(), next = gracePeriodEnded ? stopping.close : stopping.grace
            return next > now ? Int32(min(1000, (next - now) / 1_000_000 + 1)) : 0
        }
        if listener >= 0 && acceptPausedUntil > 0 { return Int32(timerResolution / 1_000_000) }
        return connections.isEmpty ? 1000 : Int32(max(1, timerResolution / 1_000_000))
    }

    private func dispatchReadyEvents() {
        for index in pollSet.indices {
            let revents = pollSet[index].revents
            guard revents != 0 else { continue }
            let fd = pollSet[index].fd
            if let connection = pollOwners[index] {
                guard !connection.isClosed else { continue }
                if revents & Int16(POLLNVAL) != 0 {
                    connection.close()
                    continue
                }
                if revents & Int16(POLLOUT) != 0 { connection.onWritable() }
                if !connection.isClosed, revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { connection.onReadable() }
            } else if fd == wakeRead {
                drainWakePipe()
            } else if fd == listener {
                // A bounded batch per wake-up keeps a connection storm from starving established connections.
                acceptConnections(upTo: 128)
            }
        }
    }

    /// Empties the pipe, then clears `wakePending`, then takes the inbox: in that order. Clearing the flag
    /// first would lose a wake-up: a producer could write its byte between the clear and the read, the read
    /// would swallow it, and the flag would stay set with an empty pipe, so nobody would write again and the
    /// loop would only notice new work at its poll timeout. Anything queued after the clear writes a byte.
    private func drainWakePipe() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while Platform.read(wakeRead, &scratch, scratch.count) > 0 {}
        wakePending.withLock { $0 = false }
        drainInbox()
    }

    private func drainInbox() {
        let taken = inbox.withLock { inbox -> Inbox in
            let taken = inbox
            inbox.connections.removeAll()
            inbox.completions.removeAll()
            return taken
        }
        if let deadlines = taken.stop, stopping == nil { beginStop(deadlines) }
        for fd in taken.connections { adopt(fd) }
        for completion in taken.completions {
            guard let connection = connections[completion.fd], connection.id == completion.connectionID else { continue }
            connection.complete(sequence: completion.sequence, exchange: completion.exchange)
        }
    }

    /// Loop 0 first accepts what waits in the listen backlog (those clients may have sent whole requests
    /// already), closes the listener and passes the stop on; then every loop's connections begin to shut down.
    private func beginStop(_ deadlines: StopDeadlines) {
        stopping = deadlines
        if listener >= 0 {
            acceptConnections(upTo: Int(shared.configuration.listenBacklog) + 128)
            _ = Platform.close(listener)
            listener = -1
            for sibling in siblings where sibling !== self { sibling.requestStop(deadlines) }
        }
        for connection in Array(connections.values) { connection.beginShutdown() }
    }

    private func endGracePeriod() {
        gracePeriodEnded = true
        for connection in Array(connections.values) { connection.gracePeriodEnded() }
    }

    // MARK: Connections

    private func acceptConnections(upTo count: Int) {
        let configuration = shared.configuration
        for _ in 0..<count {
            switch Socket.accept(listener) {
            case .accepted(let fd):
                if shared.openConnections.withLock({ $0 }) >= configuration.maxConnections {
                    refuseOverCapacity(fd)
                    continue
                }
                shared.openConnections.withLock { $0 += 1 }
                let target = siblings[nextSibling % siblings.count]
                nextSibling &+= 1
                if target === self { adopt(fd) } else { target.submitConnection(fd) }
            case .wouldBlock:
                return
            case .outOfDescriptors:
                // EMFILE / ENFILE: leave the rest in the backlog and try again shortly instead of spinning.
                acceptPausedUntil = Socket.now() + 100_000_000
                shared.logger?.log(.warning, "out of file descriptors; pausing accept for 100 ms")
                return
            case .failed:
                return
            }
        }
    }

    private func adopt(_ fd: Int32) {
        let id = shared.nextConnectionID.withLock { $0 += 1; return $0 }
        let connection = HTTPConnection(fd: fd, id: id, loop: self)
        connections[fd] = connection
        // Bytes may already be waiting; read them now rather than after the next poll. A connection taken from
        // the backlog while stopping answers what it has received and closes.
        if stopping != nil { connection.beginShutdown() } else { connection.onReadable() }
    }

    func connectionClosed(_ connection: HTTPConnection) {
        if connections[connection.fd] === connection {
            connections.removeValue(forKey: connection.fd)
            shared.openConnections.withLock { $0 -= 1 }
        }
    }

    /// Over the connection cap: a 503 in one write, then close. The connection never reaches a loop.
    private func refuseOverCapacity(_ fd: Int32) {
        var response = HTTPResponse.json(
            JSONText.object([("error", .string("Service Unavailable")),
                             ("message", .string("connection limit of \(shared.configuration.maxConnections) reached")),
                             ("status", .int(503))]).data,
            status: .serviceUnavailable)
        response.headers.add(name: "Retry-After", value: "1")
        var bytes: [UInt8] = []
        ResponseSerializer.write(response, requestMethod: .get, requestVersion: .http1_1, keepAlive: false,
                                 date: dateCache.current(), into: &bytes)
        _ = bytes.withUnsafeBytes { Socket.write(fd, $0) }
        // Read what the client already sent so close() does not turn into a reset that hides the 503.
        _ = Socket.read(fd, into: readBuffer)
        Platform.shutdownWrite(fd)
        _ = Platform.close(fd)
        shared.logger?.log(.warning, "refused a connection: limit of \(shared.configuration.maxConnections) reached")
    }

    private func checkDeadlines(now: UInt64) {
        for connection in Array(connections.values) where connection.deadline <= now && !connection.isClosed {
            connection.deadlinePassed()
        }
    }

    func currentDate() -> [UInt8] { dateCache.current() }
}
