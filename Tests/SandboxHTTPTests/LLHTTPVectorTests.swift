// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// Replays the strict request vectors of Node.js's llhttp (../shared/http-test-vectors, see its README.md)
/// against ``HTTPRequestParser``.
///
/// Each input gets a `Host: x` field inserted right after every line that looks like a request line
/// (`token SP target SP HTTP/d.d CRLF` at the start of the input or after an LF) whose header section (up
/// to the first empty line) has no Host field: without it every HTTP/1.1 message is a 400 here (RFC 9112 §3.2).
/// That finds the request line of every message of a pipelined input, and also of the smuggled message
/// inside the error vectors, so a parser that wrongly reads past llhttp's error still completes it and the
/// test sees that. A request-line-shaped line inside a body would get the field too and change that body:
/// the body comparison below would report it (none of the accepted vectors has one).
///
/// The whole input is fed in one read. The rule checked (the smuggling-safe one of docs/operations.md, "The HTTP server"):
/// - llhttp reports an error: the parser completes at most `messages_complete` requests.
/// - llhttp accepts: the parser completes the same number of requests, or it rejects with a 4xx/5xx and
///   the vector is in ``stricterThanLLHTTP`` with the reason. A new divergence fails, and so does an
///   allow-listed vector that no longer diverges.
/// - Every request the parser completes has llhttp's method, target and body for that message.
@Suite struct LLHTTPVectorTests {
    static let vectorsURL = testSourceDirectory
        .appendingPathComponent("../../../shared/http-test-vectors/llhttp-vectors.jsonl").standardizedFileURL

    /// Vectors llhttp accepts and this parser rejects, on purpose.
    static let stricterThanLLHTTP: [String: String] = [
        "request/method:138": "400: asterisk-form `*` is only for OPTIONS (RFC 9112 §3.2.4); llhttp takes it for any method",
        "request/method:375": "400: ICE/1.0 is not an HTTP version (RFC 9112 §2.3); llhttp speaks Icecast's SOURCE",
        "request/method:405": "400: RTSP/1.0 is not an HTTP version (RFC 9112 §2.3); llhttp speaks RTSP",
        "request/method:433": "400: RTSP/1.0 is not an HTTP version (RFC 9112 §2.3); llhttp speaks RTSP",
        "request/sample:317": "400: an HTTP/0.9 request line without a version is not served (RFC 9112 §2.3, §3)",
        "request/transfer-encoding:754": "501: `deflate, chunked` is framed, but deflate is not implemented (RFC 9112 §6.1)",
        "request/transfer-encoding:796": "501: `deflate` then `chunked` in two fields, same as above (RFC 9112 §6.1)",
    ]

    struct Vector {
        var id: String
        var input: [UInt8]
        var failed: Bool
        var messagesComplete: Int
        var messages: [(method: String, url: String, body: String)]
    }

    static func loadVectors() throws -> [Vector]? {
        guard let data = FileManager.default.contents(atPath: vectorsURL.path) else { return nil }
        var vectors: [Vector] = []
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            guard object["type"] as? String == "request", object["lenient"] as? Bool == false,
                  object["upgrade"] as? Bool == false, object["harness_specific"] as? Bool == false
            else { continue }
            let base64 = try #require(object["input_b64"] as? String)
            let input = try #require(Data(base64Encoded: base64))
            let messages = try #require(object["messages"] as? [[String: Any]]).map { message in
                (method: message["method"] as? String ?? "", url: message["url"] as? String ?? "",
                 body: message["body"] as? String ?? "")
            }
            vectors.append(Vector(
                id: try #require(object["id"] as? String), input: Array(input),
                failed: !(object["error"] is NSNull), messagesComplete: try #require(object["messages_complete"] as? Int),
                messages: messages))
        }
        return vectors
    }

    /// Inserts `Host: x` after each request line whose header section lacks Host (see the suite's comment).
    static func insertingHost(into input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var position = 0
        while position < input.count {
            let lineEnd = (input[position...].firstIndex(of: .lf) ?? (input.count - 1)) + 1
            let line = input[position..<lineEnd]
            output.append(contentsOf: line)
            if looksLikeRequestLine(line) && !headHasHost(input[lineEnd...]) {
                output.append(contentsOf: "Host: x\r\n".utf8)
            }
            position = lineEnd
        }
        return output
    }

    private static func looksLikeRequestLine(_ line: ArraySlice<UInt8>) -> Bool {
        guard line.count > 2, line.last == .lf, line[line.endIndex - 2] == .cr else { return false }
        let parts = line.dropLast(2).split(separator: .space, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(\.isTokenCharacter),
              !parts[1].isEmpty, parts[1].allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return false }
        let version = Array(parts[2])
        return version.count == 8 && version.starts(with: "HTTP/".utf8) && version[5].isDigit
            && version[6] == UInt8(ascii: ".") && version[7].isDigit
    }

    /// Whether the lines up to the first empty one include a Host field.
    private static func headHasHost(_ rest: ArraySlice<UInt8>) -> Bool {
        for line in rest.split(separator: .lf, omittingEmptySubsequences: false) {
            if line.isEmpty || line == [.cr] { return false }
            if line.count >= 5, String(decoding: line.prefix(5), as: UTF8.self).lowercased() == "host:" { return true }
        }
        return false
    }

    @Test func llhttpVectors_MatchOrAreStricter_WhenReplayedWithHost() throws {
        guard let vectors = try Self.loadVectors() else {
            print("note: \(Self.vectorsURL.path) not found (a clone without ../shared); llhttp vectors skipped")
            return
        }
        #expect(vectors.count >= 120, "expected the 123 usable strict request vectors, found \(vectors.count)")
        var divergent: Set<String> = []
        for vector in vectors {
            let input = Self.insertingHost(into: vector.input)
            let outcome = parse(bytes: input)
            let completed = outcome.requests
            let comment = Comment(rawValue: "\(vector.id): \(String(decoding: input, as: UTF8.self).debugDescription) -> "
                + "\(completed.count) requests, error \(outcome.errorStatus.map(String.init) ?? "none") \(outcome.errorReason ?? "")")

            // Whatever the parser completes must be llhttp's message, not a differently framed one.
            for (request, message) in zip(completed, vector.messages.prefix(vector.messagesComplete)) {
                #expect(request.method == message.method, comment)
                #expect(request.target == message.url, comment)
                #expect(request.body == Array(message.body.utf8), comment)
            }
            if vector.failed {
                #expect(completed.count <= vector.messagesComplete, "more requests than llhttp before its error: \(comment)")
                continue
            }
            if completed.count == vector.messagesComplete && outcome.errorStatus == nil { continue }
            divergent.insert(vector.id)
            if Self.stricterThanLLHTTP[vector.id] == nil {
                Issue.record("new divergence from llhttp (llhttp completes \(vector.messagesComplete)): \(comment)")
            } else {
                #expect(completed.count < vector.messagesComplete, comment)
                #expect((400..<600).contains(outcome.errorStatus ?? 0), "stricter must mean a 4xx/5xx: \(comment)")
            }
        }
        for id in Self.stricterThanLLHTTP.keys where !divergent.contains(id) {
            Issue.record("\(id) is allow-listed as stricter than llhttp but now agrees with it: remove it from the list")
        }
    }

    @Test func insertingHost_AddsHostToEachRequestLine_WhenMissing() {
        let input = Array("GET / HTTP/1.1\r\nA: b\r\n\r\nPOST /x HTTP/1.0\r\nhost: y\r\n\r\n".utf8)
        #expect(String(decoding: Self.insertingHost(into: input), as: UTF8.self)
            == "GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n\r\nPOST /x HTTP/1.0\r\nhost: y\r\n\r\n")
    }
}
