// SPDX-License-Identifier: MIT
// FIFOs, devices and links to them where scenario files are read: each is a problem naming its path, found without
// opening it (a FIFO with no writer blocked the old open for good). RegularFile reads regular files only, bounded.
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ScenarioLoaderSpecialFileTests {
    static func fifo(_ url: URL) throws {
        try #require(mkfifo(url.path, 0o600) == 0, "mkfifo \(url.path): errno \(errno)")
    }

    @Test(.timeLimit(.minutes(1)))
    func fifoDeviceAndLinksToThem_AreProblemsNamingThePath_TheRestIsRead() throws {
        let tree = try ScenarioTempTree()
        try tree.write("dir/a.json", ScenarioTempTree.scenario("a"))
        try Self.fifo(tree.url("dir/stuck.json"))
        try Self.fifo(tree.url("dir/notes"))                // not a *.json name: not a scenario file, ignored
        try Self.fifo(tree.url("elsewhere.fifo"))
        try FileManager.default.createSymbolicLink(atPath: tree.url("dir/pipe.json").path, withDestinationPath: tree.url("elsewhere.fifo").path)
        try FileManager.default.createSymbolicLink(atPath: tree.url("dir/zero.json").path, withDestinationPath: "/dev/zero")
        let shown = tree.url("dir").relativePath
        let expected = [
            "\(shown)/pipe.json: not a regular file (a FIFO); not read",
            "\(shown)/stuck.json: not a regular file (a FIFO); not read",
            "\(shown)/zero.json: not a regular file (a character device); not read",
        ]
        #expect(ScenarioLibrary.validate(files: [tree.url("dir")], vocabulary: .sandbox).map(\.description) == expected)
        guard case .failure(let failure) = ScenarioLibrary.load(directories: [tree.url("dir")], vocabulary: .sandbox) else {
            Issue.record("loaded a set with a FIFO in it")
            return
        }
        #expect(failure.problems.map(\.description) == expected)
        // Once they are gone the set loads.
        for name in ["pipe.json", "stuck.json", "zero.json"] { try FileManager.default.removeItem(at: tree.url("dir/\(name)")) }
        #expect(try ScenarioLibrary.load(directories: [tree.url("dir")], vocabulary: .sandbox).get().names == ["a"])
    }

    @Test(.timeLimit(.minutes(1)))
    func aFIFOGivenAsTheFileItself_IsAProblem() throws {
        let tree = try ScenarioTempTree()
        try Self.fifo(tree.url("given.json"))
        #expect(ScenarioLibrary.validate(files: [tree.url("given.json")], vocabulary: .sandbox).map(\.description)
                == ["\(tree.url("given.json").relativePath): not a regular file (a FIFO); not read"])
    }

    @Test(.timeLimit(.minutes(1)))
    func regularFileRead_RefusesFIFOsAndDevices_ReadsUpToTheLimit() throws {
        let tree = try ScenarioTempTree()
        try Self.fifo(tree.url("fifo"))
        #expect(throws: RegularFile.Failure.notRegular("a FIFO")) { try RegularFile.read(tree.url("fifo").path, limit: 10) }
        #expect(throws: RegularFile.Failure.notRegular("a character device")) { try RegularFile.read("/dev/zero", limit: 10) }
        #expect(throws: RegularFile.Failure.notRegular("a directory")) { try RegularFile.read(tree.root.path, limit: 10) }
        #expect(throws: RegularFile.Failure.missing) { try RegularFile.read(tree.url("nothing").path, limit: 10) }
        let ten = try tree.write("ten", "0123456789")
        #expect(try RegularFile.read(ten.path, limit: 10) == Data("0123456789".utf8))
        #expect(throws: RegularFile.Failure.tooLarge(limit: 9)) { try RegularFile.read(ten.path, limit: 9) }
        let empty = try tree.write("empty", "")
        #expect(try RegularFile.read(empty.path, limit: 0) == Data())
    }
}
