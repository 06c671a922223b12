// SPDX-License-Identifier: MIT
import Testing
@testable import SandboxHTTP

/// The head scan's fast paths (findSectionEnd skips eight bytes at a time, lineEnd asks memchr): a CR, LF or other
/// byte at any offset of a field line, and lines of every length around a word, read as the byte loops read them.
@Suite struct ParserHeadScanTests {
    static func head(value: [UInt8]) -> [UInt8] {
        Array("GET /p HTTP/1.1\r\nHost: h\r\nX-Long: ".utf8) + value + Array("\r\nAccept: */*\r\n\r\n".utf8)
    }

    /// The value as parseField keeps it: spaces and tabs trimmed at both ends.
    static func trimmed(_ value: [UInt8]) -> String {
        var slice = value[...]
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    @Test func aByteAtAnyOffsetOfALongLine() {
        let plain = Array(repeating: UInt8(ascii: "a"), count: 40)
        for offset in plain.indices {
            var bareCR = plain
            bareCR[offset] = 0x0D
            #expect(parse(bytes: Self.head(value: bareCR)).errorReason == "bare CR in request head", "CR at \(offset)")
            var bareLF = plain
            bareLF[offset] = 0x0A
            #expect(parse(bytes: Self.head(value: bareLF)).errorReason == "bare LF in request head", "LF at \(offset)")
            for byte: UInt8 in [0x09, 0x0C, 0x0E, 0x7E, 0x80, 0x8D, 0xFF] {
                var value = plain
                value[offset] = byte
                let outcome = parse(bytes: Self.head(value: value))
                let allowed = byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
                if allowed {
                    #expect(outcome.requests.first?.headers.first { $0.name == "X-Long" }?.value == Self.trimmed(value),
                            "\(byte) at \(offset)")
                } else {
                    #expect(outcome.errorStatus == 400, "\(byte) at \(offset)")
                }
            }
        }
    }

    @Test func linesOfEveryLengthAroundAWord() {
        for length in 0...33 {
            let value = Array(repeating: UInt8(ascii: "v"), count: length)
            let outcome = parse(bytes: Self.head(value: value))
            #expect(outcome.requests.count == 1, "\(length)")
            #expect(outcome.requests.first?.headers.map(\.name) == ["Host", "X-Long", "Accept"], "\(length)")
            #expect(outcome.requests.first?.headers.first { $0.name == "X-Long" }?.value == String(repeating: "v", count: length))
        }
    }
}
