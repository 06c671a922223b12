// SPDX-License-Identifier: MIT
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios

/// A temporary directory tree, removed when the test ends.
final class ScenarioTempTree {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    @discardableResult
    func write(_ relativePath: String, _ content: String) throws -> URL {
        let url = root.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(content.utf8).write(to: url)
        return url
    }

    func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    static func scenario(_ name: String, rules: String = "") -> String {
        "{\n  \"name\": \"\(name)\",\n  \"description\": \"Scenario \(name).\",\n  \"rules\": [\(rules)]\n}\n"
    }
}

@Suite struct ScenarioLoaderTests {
    @Test func loadsTwoDirectories_InOrder_RecursivelyAndSorted() throws {
        let tree = try ScenarioTempTree()
        try tree.write("one/b.json", ScenarioTempTree.scenario("b"))
        try tree.write("one/a.json", ScenarioTempTree.scenario("a"))
        try tree.write("one/nested/c.json", ScenarioTempTree.scenario("c"))
        try tree.write("two/0.json", ScenarioTempTree.scenario("zero"))
        let library = try ScenarioLibrary.load(directories: [tree.url("one"), tree.url("two")], vocabulary: .sandbox).get()
        #expect(library.names == ["a", "b", "c", "zero"])
        #expect(library.scenario(named: "c")?.file == tree.url("one").relativePath + "/nested/c.json")
        #expect(library.scenario(named: "nope") == nil)
    }

    @Test func ignoresNonJSON_HiddenFiles_HiddenFolders_AndTheSchema() throws {
        let tree = try ScenarioTempTree()
        try tree.write("dir/a.json", ScenarioTempTree.scenario("a"))
        try tree.write("dir/README.md", "# not a scenario")
        try tree.write("dir/notes.json.bak", "not json")
        try tree.write("dir/.hidden.json", "not json")
        try tree.write("dir/.git/x.json", "not json")
        try tree.write("dir/scenario.schema.json", #"{"$schema": "https://json-schema.org/draft/2020-12/schema"}"#)
        try tree.write("dir/sub/scenario.schema.json", "{}")
        let library = try ScenarioLibrary.load(directories: [tree.url("dir")], vocabulary: .sandbox).get()
        #expect(library.names == ["a"])
        #expect(try ScenarioLibrary.scenarioFiles(in: tree.url("dir")).map(\.lastPathComponent) == ["a.json"])
    }

    @Test func emptyDirectory_LoadsNothing() throws {
        let tree = try ScenarioTempTree()
        try FileManager.default.createDirectory(at: tree.url("empty"), withIntermediateDirectories: true)
        #expect(try ScenarioLibrary.load(directories: [tree.url("empty")], vocabulary: .sandbox).get().isEmpty)
    }

    @Test func duplicateNames_AreAProblemNamingBothFiles() throws {
        let tree = try ScenarioTempTree()
        try tree.write("one/reject.json", ScenarioTempTree.scenario("reject"))
        try tree.write("two/my-reject.json", ScenarioTempTree.scenario("reject"))
        let one = tree.url("one").relativePath, two = tree.url("two").relativePath
        let result = ScenarioLibrary.load(directories: [tree.url("one"), tree.url("two")], vocabulary: .sandbox)
        guard case .failure(let failure) = result else { Issue.record("loaded"); return }
        #expect(failure.problems.map(\.description) == [
            "\(two)/my-reject.json:2:11: $.name: duplicate scenario name \"reject\" (also in \(one)/reject.json:2:11)",
        ])
        // The CLI's validate sees the same.
        #expect(ScenarioLibrary.validate(files: [tree.url("one"), tree.url("two")], vocabulary: .sandbox) == failure.problems)
    }

    @Test func missingDirectory_IsAProblem() throws {
        let tree = try ScenarioTempTree()
        try tree.write("one/a.json", ScenarioTempTree.scenario("a"))
        let missing = tree.url("nope")
        guard case .failure(let failure) = ScenarioLibrary.load(directories: [tree.url("one"), missing], vocabulary: .sandbox) else {
            Issue.record("loaded"); return
        }
        #expect(failure.description == "\(missing.relativePath): no such file or directory")
    }

    @Test func problemsFromEveryFile_SortedByFileThenLine() throws {
        let tree = try ScenarioTempTree()
        try tree.write("dir/b.json", "{\"name\": \"b\", \"description\": \"x\", \"rules\": [\n{\"operation\": \"x\", \"outcome\": \"approve\"}]}")
        try tree.write("dir/a.json", "{\n\"name\": \"a\",\n\"description\": \"\",\n\"rules\": 1}")
        try tree.write("dir/c.json", "{,}")
        try tree.write("dir/ok.json", ScenarioTempTree.scenario("ok"))
        let dir = tree.url("dir").relativePath
        let problems = ScenarioLibrary.validate(files: [tree.url("dir")], vocabulary: .sandbox)
        #expect(problems.map(\.description) == [
            "\(dir)/a.json:3:16: $.description: must not be empty",
            "\(dir)/a.json:4:10: $.rules: expected an array of rules, found a number (1)",
            "\(dir)/b.json:2:15: $.rules[0].operation: unknown operation \"x\" (none is near it: docs/scenarios.md lists every operation)",
            "\(dir)/c.json:1:2: $: unexpected character ',': expected a string key",
        ])
        guard case .failure(let failure) = ScenarioLibrary.load(directories: [tree.url("dir")], vocabulary: .sandbox) else { Issue.record("loaded"); return }
        #expect(failure.problems == problems)
        #expect(failure.description == problems.map(\.description).joined(separator: "\n"))
    }

    @Test func validate_AcceptsFilesAndDirectories() throws {
        let tree = try ScenarioTempTree()
        let file = try tree.write("single.txt", ScenarioTempTree.scenario("single"))
        try tree.write("dir/a.json", ScenarioTempTree.scenario("a"))
        #expect(ScenarioLibrary.validate(files: [file, tree.url("dir")], vocabulary: .sandbox).isEmpty)
        #expect(try ScenarioLibrary.load(directories: [file], vocabulary: .sandbox).get().names == ["single"])
        #expect(ScenarioLibrary.validate(files: [], vocabulary: .sandbox).isEmpty)
    }

    @Test func relativeLocations_StayRelativeInProblems() throws {
        let tree = try ScenarioTempTree()
        try tree.write("dir/bad.json", "[]")
        let base = URL(fileURLWithPath: tree.root.path + "/", isDirectory: true)
        let relative = URL(fileURLWithPath: "dir", relativeTo: base)
        #expect(ScenarioLibrary.validate(files: [relative], vocabulary: .sandbox).map(\.description) == ["dir/bad.json:1:1: $: expected an object, found an array"])
        let trailingSlash = URL(fileURLWithPath: "dir/", isDirectory: true, relativeTo: base)
        #expect(ScenarioLibrary.validate(files: [trailingSlash], vocabulary: .sandbox).map(\.file) == ["dir/bad.json"])
    }

    @Test func tooLargeFile_IsAProblem() throws {
        let tree = try ScenarioTempTree()
        try tree.write("dir/big.json", "[" + String(repeating: " ", count: Scenario.maxFileBytes) + "]")
        #expect(ScenarioLibrary.validate(files: [tree.url("dir")], vocabulary: .sandbox).map(\.message) == ["file is larger than \(Scenario.maxFileBytes) bytes"])
    }

    @Test func libraryInit_KeepsTheFirstOfARepeatedName() {
        let library = ScenarioLibrary(scenarios: [
            Scenario(name: "a", description: "first", rules: []),
            Scenario(name: "b", description: "b", rules: []),
            Scenario(name: "a", description: "second", rules: []),
        ])
        #expect(library.names == ["a", "b"])
        #expect(library.scenario(named: "a")?.description == "first")
    }

    // MARK: Symbolic links and locations given twice

    func link(_ tree: ScenarioTempTree, _ relativePath: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: tree.url(relativePath).path, withDestinationPath: destination)
    }

    /// Four links to `.` made the old walk branch four ways at each of 16 levels (4^16 directories): the time
    /// limit fails it instead of hanging. Now each loop is one problem and the walk goes no further.
    @Test(.timeLimit(.minutes(1)))
    func linksBackToAnAncestor_AreLoopProblems_AndNotFollowed() throws {
        let tree = try ScenarioTempTree()
        try tree.write("dir/a.json", ScenarioTempTree.scenario("a"))
        try tree.write("dir/sub/b.json", ScenarioTempTree.scenario("b"))
        for name in ["l1", "l2", "l3", "l4"] { try link(tree, "dir/\(name)", to: ".") }
        try link(tree, "dir/sub/up", to: "..")
        let dir = tree.url("dir").relativePath
        let expected = ["l1", "l2", "l3", "l4"].map { "\(dir)/\($0): symbolic link loop: leads back to \(dir); not followed" }
            + ["\(dir)/sub/up: symbolic link loop: leads back to \(dir); not followed"]
        guard case .failure(let failure) = ScenarioLibrary.load(directories: [tree.url("dir")], vocabulary: .sandbox) else { Issue.record("loaded"); return }
        #expect(failure.problems.map(\.description) == expected)
        #expect(ScenarioLibrary.validate(files: [tree.url("dir")], vocabulary: .sandbox).map(\.description) == expected)
        // The files themselves are found once each.
        let found = ScenarioLibrary.scan([tree.url("dir")])
        #expect(found.files.map(\.shown) == ["\(dir)/a.json", "\(dir)/sub/b.json"])
    }

    @Test func directoriesAndFilesReachedTwice_AreReadOnce() throws {
        let tree = try ScenarioTempTree()
        try tree.write("dir/real/a.json", ScenarioTempTree.scenario("a"))
        try link(tree, "dir/alias", to: "real")                 // the same directory through a link: skipped
        try link(tree, "dir/b.json", to: "real/a.json")         // the same file through a link: skipped
        try tree.write("elsewhere/c.json", ScenarioTempTree.scenario("c"))
        try link(tree, "dir/outside", to: "../elsewhere")       // a directory outside the tree: followed
        let dir = tree.url("dir").relativePath
        let library = try ScenarioLibrary.load(directories: [tree.url("dir")], vocabulary: .sandbox).get()
        // Entered in sorted order: through `alias` first (so `real` is skipped), then `outside`.
        #expect(library.names == ["a", "c"])
        #expect(library.scenario(named: "a")?.file == "\(dir)/alias/a.json")

        // The same directory given twice, as another path, or inside one already given: read once.
        let again = URL(fileURLWithPath: tree.root.path + "/dir/../dir/", isDirectory: true)
        #expect(try ScenarioLibrary.load(directories: [tree.url("dir"), tree.url("dir"), again, tree.url("dir/real"),
                                                       tree.url("dir/real/a.json"), tree.url("elsewhere")], vocabulary: .sandbox).get().names == ["a", "c"])
    }

    /// `payment-sandbox validate DIR` reads DIR after the bundled set: a bundled name reused is a problem naming
    /// both files; files of DIR that are the bundled ones are read once and still counted.
    @Test func validateAfterContext_ReportsNamesTheContextUses_AndCountsTheGivenFiles() throws {
        let tree = try ScenarioTempTree()
        try tree.write("bundled/reject.json", ScenarioTempTree.scenario("reject"))
        try tree.write("bundled/approve.json", ScenarioTempTree.scenario("approve"))
        try tree.write("mine/my-reject.json", ScenarioTempTree.scenario("reject"))
        try tree.write("mine/mine.json", ScenarioTempTree.scenario("mine"))
        let bundled = tree.url("bundled").relativePath, mine = tree.url("mine").relativePath
        let checked = ScenarioLibrary.validate(files: [tree.url("mine")], after: [tree.url("bundled")], vocabulary: .sandbox)
        #expect(checked.problems.map(\.description) == [
            "\(mine)/my-reject.json:2:11: $.name: duplicate scenario name \"reject\" (also in \(bundled)/reject.json:2:11)",
        ])
        #expect(checked.fileCount == 2)
        // Alone, the directory is fine.
        #expect(ScenarioLibrary.validate(files: [tree.url("mine")], vocabulary: .sandbox).isEmpty)
        // The bundled directory itself, or one of its files, given again.
        let same = ScenarioLibrary.validate(files: [tree.url("bundled"), tree.url("bundled/reject.json")], after: [tree.url("bundled")], vocabulary: .sandbox)
        #expect(same.problems.isEmpty)
        #expect(same.fileCount == 2)
    }
}

