// SPDX-License-Identifier: MIT
// Many concurrent keep-alive clients driven by one poll(2) loop on its own thread: every connection is
// really open at the same time, without hundreds of threads and without blocking the concurrency pool.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

struct LoadResult: Sendable {
    var succeeded = 0
    var failures: [String] = []
    var maxOpenAtOnce = 0
    var elapsedSeconds = 0.0
}

enum LoadDriver {
    /// Opens `clients` connections to 127.0.0.1:`port`, then sends `requestsPerClient` keep-alive requests
    /// on each (one outstanding at a time per connection, all connections at once). Health, echo with a
    /// query and echo POST with a body take turns; each echo is checked to be the answer to its own request.
    static func run(port: Int, clients: Int, requestsPerClient: Int, timeout: Duration) async throws -> LoadResult {
        try await onThread { runBlocking(port: port, clients: clients, requestsPerClient: requestsPerClient, timeout: timeout) }
    }

    private struct Client {
        var fd: Int32
        var next = 0
        var output: [UInt8] = []
        var outputSent = 0
        var input: [UInt8] = []
        var done = false
        var expectedTarget = ""
        var expectedBodyLength = 0
    }

    private static func request(client: Int, index: Int) -> (bytes: [UInt8], target: String, bodyLength: Int) {
        switch index % 3 {
        case 0:
            return (Array("GET /__sandbox/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), "", 0)
        case 1:
            let target = "/__sandbox/echo?client=\(client)&i=\(index)"
            return (Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: \(client)\r\n\r\n".utf8), target, 0)
        default:
            let target = "/__sandbox/echo/post?client=\(client)&i=\(index)"
            let body = String(repeating: "x", count: 100 + client % 50)
            return (Array("POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8),
                    target, body.utf8.count)
        }
    }

    private static func runBlocking(port: Int, clients count: Int, requestsPerClient: Int, timeout: Duration) -> LoadResult {
        let started = monotonicNow()
        let deadline = started + timeout.totalNanoseconds
        var result = LoadResult()
        var clients: [Client] = []
        defer { for client in clients where !client.done { _ = close(client.fd) } }

        // Open every connection first, so all of them are open together.
        for index in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                result.failures.append("client \(index): socket() failed: errno \(errno)")
                return result
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                result.failures.append("client \(index): connect failed: errno \(errno)")
                _ = close(fd)
                return result
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var client = Client(fd: fd)
            let first = request(client: index, index: 0)
            client.output = first.bytes
            client.expectedTarget = first.target
            client.expectedBodyLength = first.bodyLength
            clients.append(client)
        }
        result.maxOpenAtOnce = clients.count

        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var pollSet: [pollfd] = []
        var owners: [Int] = []
        while clients.contains(where: { !$0.done }) {
            let now = monotonicNow()
            if now >= deadline {
                let unfinished = clients.enumerated().filter { !$0.element.done }
                result.failures.append("\(unfinished.count) clients unfinished after \(timeout), e.g. client \(unfinished[0].offset) at request \(unfinished[0].element.next)")
                break
            }
            pollSet.removeAll(keepingCapacity: true)
            owners.removeAll(keepingCapacity: true)
            for (index, client) in clients.enumerated() where !client.done {
                let events = client.outputSent < client.output.count ? Int16(POLLOUT) : Int16(POLLIN)
                pollSet.append(pollfd(fd: client.fd, events: events, revents: 0))
                owners.append(index)
            }
            let ready = pollSet.withUnsafeMutableBufferPointer { poll($0.baseAddress!, nfds_t($0.count), 100) }
            guard ready > 0 else { continue }
            for (slot, entry) in pollSet.enumerated() where entry.revents != 0 {
                let index = owners[slot]
                func fail(_ why: String) {
                    result.failures.append("client \(index) request \(clients[index].next): \(why)")
                    _ = close(clients[index].fd)
                    clients[index].done = true
                }
                if clients[index].outputSent < clients[index].output.count {
                    let n = clients[index].output.withUnsafeBytes {
                        send(clients[index].fd, $0.baseAddress! + clients[index].outputSent, $0.count - clients[index].outputSent, Int32(MSG_NOSIGNAL))
                    }
                    if n > 0 { clients[index].outputSent += n } else if n < 0 && errno != EAGAIN && errno != EINTR { fail("send errno \(errno)") }
                    continue
                }
                let n = chunk.withUnsafeMutableBytes { recv(clients[index].fd, $0.baseAddress, $0.count, 0) }
                if n < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    fail("recv errno \(errno)")
                    continue
                }
                if n == 0 {
                    fail("server closed the connection; unread: \(String(decoding: clients[index].input, as: UTF8.self).debugDescription)")
                    continue
                }
                clients[index].input.append(contentsOf: chunk[0..<n])
                let parsed: (RawResponse, consumed: Int)?
                do {
                    parsed = try ResponseParser.parse(clients[index].input[...], requestWasHEAD: false, atEOF: false)
                } catch {
                    fail("\(error)")
                    continue
                }
                guard let (response, consumed) = parsed else { continue }
                clients[index].input.removeFirst(consumed)
                guard response.status == 200 else {
                    fail("status \(response.status): \(response)")
                    continue
                }
                if !clients[index].expectedTarget.isEmpty {
                    guard let object = try? response.jsonObject(),
                          object["target"] as? String == clients[index].expectedTarget,
                          object["body_length"] as? Int == clients[index].expectedBodyLength
                    else {
                        fail("echo does not match request \(clients[index].expectedTarget): \(response.bodyText)")
                        continue
                    }
                }
                guard clients[index].input.isEmpty else {
                    fail("unexpected extra bytes after a response: \(String(decoding: clients[index].input, as: UTF8.self).debugDescription)")
                    continue
                }
                result.succeeded += 1
                clients[index].next += 1
                if clients[index].next == requestsPerClient {
                    _ = close(clients[index].fd)
                    clients[index].done = true
                } else {
                    let next = request(client: index, index: clients[index].next)
                    clients[index].output = next.bytes
                    clients[index].outputSent = 0
                    clients[index].expectedTarget = next.target
                    clients[index].expectedBodyLength = next.bodyLength
                }
            }
        }
        result.elapsedSeconds = Double(monotonicNow() - started) / 1e9
        return result
    }
}
