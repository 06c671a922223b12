// SPDX-License-Identifier: MIT
import Foundation

/// The per-input logic of the parser's libFuzzer target (`Fuzz/ParserFuzzTarget.swift`, run by
/// `scripts/fuzz.sh`), also replayed over the saved corpus by the unit tests.
///
/// Every input is parsed under two limit sets (the defaults, and small ones the fuzzer can reach within
/// `-max_len=4096`), each time in one read, in reads cut at points derived from the input's hash, and (for
/// short inputs) one byte per read. The `precondition`s below are the invariants; they live only in this
/// harness, never in the parser.
enum ParserFuzzing {
    static let limitSets = [
        HTTPParserLimits(),
        HTTPParserLimits(maxHeadBytes: 200, maxBodyBytes: 40, maxHeaderCount: 4),
    ]
    /// Inputs up to this size are also fed one byte per read.
    static let byteByByteMaximum = 512

    /// What a parser produced from a sequence of reads, comparable across different cuts of the same bytes.
    struct Outcome: Equatable {
        struct Request: Equatable {
            var method: String
            var target: String
            var version: HTTPVersion
            var headers: HTTPHeaders
            var body: Data
            var trailers: HTTPHeaders
        }
        var requests: [Request] = []
        var continues = 0
        var errorStatus: Int?
        var errorReason: String?
        var finished = false
        var midRequest = false
    }

    static func run(_ data: [UInt8]) {
        for limits in limitSets {
            let whole = feed([data], limits: limits)
            if whole.outcome.continues > 0 {
                // In one read, 100-continue is only asked for when the body has not arrived, so nothing follows it.
                precondition(whole.outcome.continues == 1 && whole.lastEventWasContinue == true,
                             "an event followed continueExpected although all bytes were there")
            }
            let points = cutPoints(for: data)
            let cut = feed(reads(data, cutAt: points), limits: limits)
            sameResult(whole.outcome, cut.outcome, "cut at \(points)")
            if data.count <= byteByByteMaximum {
                let bytewise = feed(data.map { [$0] }, limits: limits)
                sameResult(whole.outcome, bytewise.outcome, "byte by byte")
            }
        }
    }

    /// Feeding the same bytes in other reads yields the same requests and the same error. Only the number of
    /// 100-continue events may differ (a body split from its head gets one where the whole input has none).
    private static func sameResult(_ whole: Outcome, _ other: Outcome, _ how: @autoclosure () -> String) {
        var comparable = other
        comparable.continues = whole.continues
        precondition(comparable == whole, "\(how()): \(other) differs from one read: \(whole)")
        precondition(other.continues >= whole.continues, "\(how()): fewer 100-continue events than in one read")
    }

    /// 1 to 4 cut points in 0...count, from an FNV-1a hash of the input.
    static func cutPoints(for data: [UInt8]) -> [Int] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let count = Int(hash % 4) + 1
        var points: [Int] = []
        for index in 0..<count {
            hash = (hash ^ UInt64(index)) &* 0x0000_0100_0000_01b3
            points.append(Int((hash >> 17) % UInt64(data.count + 1)))
        }
        return points.sorted()
    }

    static func reads(_ data: [UInt8], cutAt points: [Int]) -> [[UInt8]] {
        var reads: [[UInt8]] = []
        var start = 0
        for point in points + [data.count] {
            reads.append(Array(data[start..<point]))
            start = point
        }
        return reads
    }

    private static func feed(_ reads: [[UInt8]], limits: HTTPParserLimits) -> (outcome: Outcome, lastEventWasContinue: Bool?) {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = Outcome()
        var lastWasContinue: Bool?
        var continueSentForPendingHead = false
        var fed = 0
        reading: for read in reads {
            let wasFinished = parser.isFinished
            parser.append(contentsOf: read)
            fed += read.count
            if wasFinished { precondition(!parser.isMidRequest && !parser.isAwaitingBody, "bytes taken after finishing") }
            while true {
                // Each request takes bytes and gets at most one 100-continue: more events than bytes is a loop.
                precondition(outcome.requests.count + outcome.continues <= fed + 1, "events without input")
                let finishedBefore = parser.isFinished
                let event: HTTPParserEvent?
                do {
                    event = try parser.next()
                } catch {
                    precondition(!finishedBefore, "threw after it had finished")
                    precondition([400, 413, 417, 431, 501, 505].contains(error.status.code), "unexpected status \(error)")
                    precondition(parser.isFinished && !parser.isMidRequest && !parser.isAwaitingBody, "not finished after \(error)")
                    precondition((try? parser.next()).flatMap { $0 } == nil, "an event after an error")
                    outcome.errorStatus = error.status.code
                    outcome.errorReason = error.reason
                    break reading
                }
                guard let event else { break }
                precondition(!finishedBefore, "an event after it had finished")
                switch event {
                case .continueExpected:
                    guard let head = parser.pendingHead else { preconditionFailure("continueExpected without a pending head") }
                    precondition(!continueSentForPendingHead, "continueExpected twice for one request")
                    precondition(head.version == .http1_1 && head.headers.tokens(for: "Expect") == ["100-continue"],
                                 "continueExpected without Expect: 100-continue")
                    continueSentForPendingHead = true
                    outcome.continues += 1
                    lastWasContinue = true
                case .request(let request):
                    check(request, limits: limits)
                    continueSentForPendingHead = false
                    lastWasContinue = false
                    outcome.requests.append(.init(method: request.method.rawValue, target: request.target, version: request.version,
                                                  headers: request.headers, body: request.body, trailers: request.trailers))
                    let endsConnection = !request.wantsKeepAlive || request.method == .connect
                        || (request.headers.contains("Upgrade") && request.headers.tokens(for: "Connection").contains("upgrade"))
                    precondition(parser.isFinished == endsConnection, "isFinished is \(parser.isFinished) after \(request.method) \(request.target)")
                }
            }
        }
        outcome.finished = parser.isFinished
        outcome.midRequest = parser.isMidRequest
        if parser.isFinished { precondition((try? parser.next()).flatMap { $0 } == nil, "an event after finishing") }
        return (outcome, lastWasContinue)
    }

    /// What every request the parser hands out satisfies.
    private static func check(_ request: HTTPRequest, limits: HTTPParserLimits) {
        precondition(request.body.count <= limits.maxBodyBytes, "body of \(request.body.count) bytes over the limit")
        precondition(request.version == .http1_0 || request.version == .http1_1, "version \(request.version)")
        precondition(HTTPRequestParser.recognizedMethods.contains(request.method.rawValue), "method \(request.method)")
        precondition(request.headers.count <= limits.maxHeaderCount && request.trailers.count <= limits.maxHeaderCount,
                     "more fields than the limit")
        let hosts = request.headers.values(for: "Host").count
        precondition(hosts == 1 || (hosts == 0 && request.version == .http1_0), "\(hosts) Host fields")
        let lengths = request.headers.values(for: "Content-Length")
        let codings = request.headers.values(for: "Transfer-Encoding")
        precondition(lengths.isEmpty || codings.isEmpty, "both Content-Length and Transfer-Encoding")
        precondition(lengths.count <= 1, "\(lengths.count) Content-Length fields")
        if let length = lengths.first {
            precondition(Int(length.trimmingOWS()) == request.body.count, "body of \(request.body.count) bytes for Content-Length \(length)")
        }
        if codings.isEmpty {
            precondition(request.trailers.isEmpty, "trailers without chunked")
            if lengths.isEmpty { precondition(request.body.isEmpty, "a body without framing") }
        } else {
            precondition(codings.count == 1 && codings[0].trimmingOWS().equalsCaseInsensitiveASCII("chunked"), "codings \(codings)")
        }
        for field in Array(request.headers) + Array(request.trailers) {
            precondition(!field.name.isEmpty && field.name.utf8.allSatisfy(\.isTokenCharacter), "field name \(field.name)")
            precondition(field.value.utf8.allSatisfy(\.isFieldValueCharacter), "field value \(field.value.debugDescription)")
            precondition(field.value.utf8.first != .space && field.value.utf8.first != .tab
                         && field.value.utf8.last != .space && field.value.utf8.last != .tab, "untrimmed value")
        }
        precondition(!request.target.isEmpty && request.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
                     "target \(request.target.debugDescription)")
    }
}
