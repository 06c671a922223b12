// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// What a request looks like from outside the parser, comparable with `==`.
struct RequestSnapshot: Equatable, CustomStringConvertible {
    var method: String
    var target: String
    var version: HTTPVersion
    var headers: [HTTPHeaders.Field]
    var body: [UInt8]
    var trailers: [HTTPHeaders.Field]

    var description: String {
        "\(method) \(target) \(version) headers=\(headers.map { "\($0.name): \($0.value)" }) body=\(String(decoding: body, as: UTF8.self).debugDescription)"
    }
}

extension RequestSnapshot {
    init(_ request: HTTPRequest) {
        self.init(method: request.method.rawValue, target: request.target, version: request.version,
                  headers: request.headers.fields, body: Array(request.body), trailers: request.trailers.fields)
    }
}

enum ParserEventSnapshot: Equatable {
    case continueExpected
    case request(RequestSnapshot)
}

/// Everything a parser produced for a sequence of reads.
struct ParseOutcome: Equatable {
    var events: [ParserEventSnapshot] = []
    /// The status of the error thrown, if any (the parser throws at most once).
    var errorStatus: Int?
    var errorReason: String?
    var finished = false

    var requests: [RequestSnapshot] {
        events.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }
    var continueCount: Int { events.filter { $0 == .continueExpected }.count }
}

/// Feeds `reads` one append at a time, pulling events until nil or an error after each.
func parse(reads: [[UInt8]], limits: HTTPParserLimits = HTTPParserLimits()) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits)
    var outcome = ParseOutcome()
    let byteCount = reads.reduce(0) { $0 + $1.count }
    reading: for read in reads {
        parser.append(contentsOf: read)
        while true {
            // Every request takes bytes, and at most one 100-continue comes per request: a parser that keeps
            // producing events without input is broken, and must fail here rather than hang the test.
            guard outcome.events.count <= byteCount + 1 else {
                Issue.record("more events than bytes fed: the parser loops")
                break reading
            }
            do {
                guard let event = try parser.next() else { break }
                switch event {
                case .continueExpected: outcome.events.append(.continueExpected)
                case .request(let request): outcome.events.append(.request(RequestSnapshot(request)))
                }
            } catch {
                outcome.errorStatus = error.status.code
                outcome.errorReason = error.reason
                break reading
            }
        }
    }
    outcome.finished = parser.isFinished
    return outcome
}

func parse(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> ParseOutcome {
    parse(reads: [Array(text.utf8)], limits: limits)
}

func parse(bytes: [UInt8], limits: HTTPParserLimits = HTTPParserLimits()) -> ParseOutcome {
    parse(reads: [bytes], limits: limits)
}

/// The same bytes as two reads split at every offset, plus one read per byte.
func everySplit(of bytes: [UInt8]) -> [(label: String, reads: [[UInt8]])] {
    var variants: [(String, [[UInt8]])] = []
    for offset in 0...bytes.count {
        variants.append(("split at \(offset)", [Array(bytes[..<offset]), Array(bytes[offset...])]))
    }
    variants.append(("byte by byte", bytes.map { [$0] }))
    return variants
}

/// The requests a parser produces for a whole buffer; nil if it throws or leaves bytes unparsed as an error.
func requests(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> [RequestSnapshot] {
    parse(text, limits: limits).requests
}

/// One complete request parsed from `text`, or nil.
func singleRequest(_ text: String) -> HTTPRequest? {
    var parser = HTTPRequestParser()
    parser.append(contentsOf: Array(text.utf8))
    guard case .request(let request)? = try? parser.next() else { return nil }
    return request
}

/// The directory holding this test target's sources.
let testSourceDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

/// The error a parser throws for `text` in one read, with its head, or nil when it throws none.
func parseError(_ text: String, limits: HTTPParserLimits = HTTPParserLimits()) -> HTTPParseError? {
    var parser = HTTPRequestParser(limits: limits)
    parser.append(contentsOf: Array(text.utf8))
    do {
        while try parser.next() != nil {}
        return nil
    } catch {
        return error
    }
}
