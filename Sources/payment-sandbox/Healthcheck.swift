// SPDX-License-Identifier: MIT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `payment-sandbox healthcheck`: GET /__sandbox/health over a plain socket, exit 0 on 200.
/// For Docker's HEALTHCHECK, so the image needs no curl.
enum Healthcheck {
    static func run(host: String, port: Int, timeoutSeconds: Double) -> Bool {
        let target = host == "0.0.0.0" || host.isEmpty ? "127.0.0.1" : host == "::" ? "::1" : host
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target, String(port), &hints, &results) == 0, let address = results else {
            FileHandle.standardError.write(Data("healthcheck: cannot resolve \(target)\n".utf8))
            return false
        }
        defer { freeaddrinfo(results) }
        let fd = socket(address.pointee.ai_family, hints.ai_socktype, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var timeout = timeval(tv_sec: Int(timeoutSeconds), tv_usec: .init((timeoutSeconds - Double(Int(timeoutSeconds))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            FileHandle.standardError.write(Data("healthcheck: cannot connect to \(target):\(port)\n".utf8))
            return false
        }
        let request = Array("GET /__sandbox/health HTTP/1.1\r\nHost: \(target):\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return false }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while response.count < 65536 {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: chunk[0..<count])
        }
        let text = String(decoding: response, as: UTF8.self)
        let healthy = text.hasPrefix("HTTP/1.1 200 ")
        FileHandle.standardError.write(Data("healthcheck: \(text.split(separator: "\r\n").first ?? "no answer")\n".utf8))
        return healthy
    }
}
