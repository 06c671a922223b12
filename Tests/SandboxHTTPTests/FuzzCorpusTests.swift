// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// Replays the saved fuzz corpus (seeds and every crasher `scripts/fuzz.sh` found) through the fuzz
/// harness. An invariant that breaks stops the test process with the `precondition` message.
@Suite struct FuzzCorpusTests {
    static let corpus = testSourceDirectory.appendingPathComponent("FuzzCorpus")

    static func corpusFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: [.fileSizeKey])
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test func fuzzCorpus_SatisfiesParserInvariants_WhenReplayed() throws {
        let files = try Self.corpusFiles()
        #expect(files.count >= 30)
        for file in files {
            ParserFuzzing.run(Array(try Data(contentsOf: file)))
        }
    }

    @Test func fuzzCorpus_StaysSmall() throws {
        let files = try Self.corpusFiles()
        let total = try files.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        #expect(files.count < 200)
        #expect(total < 1_000_000)
    }

    @Test func fuzzCutPoints_AreSortedAndInRange() {
        for data in [[], [1], Array("GET / HTTP/1.1\r\n\r\n".utf8), [UInt8](repeating: 7, count: 4096)] as [[UInt8]] {
            let points = ParserFuzzing.cutPoints(for: data)
            #expect((1...4).contains(points.count))
            #expect(points == points.sorted())
            #expect(points.allSatisfy { (0...data.count).contains($0) })
            #expect(ParserFuzzing.reads(data, cutAt: points).flatMap { $0 } == data)
        }
    }
}
