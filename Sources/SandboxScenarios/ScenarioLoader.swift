// SPDX-License-Identifier: MIT
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Every problem found while loading scenarios, sorted by file, then line and column.
/// Its description is one problem per line, in the `file:line:column: JSON path: what is wrong` form.
public struct ScenarioLoadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ScenarioProblem]
    public init(_ problems: [ScenarioProblem]) { self.problems = problems.sorted() }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// The scenarios loaded from one or more directories, in load order, names unique.
///
/// A directory is read recursively; every `*.json` file in it is a scenario, except `scenario.schema.json`
/// and anything whose name (or any folder on the way) starts with '.'. Files are read in sorted path
/// order, directory by directory, in the order given; symbolic links are followed, each directory and
/// file once (see ``scan(_:)``). Any problem in any file fails the whole load, so a
/// server either runs the complete set it was given or refuses to start (or keeps its last good set).
package struct ScenarioLibrary: Sendable {
    package private(set) var scenarios: [Scenario]
    /// Every warning of every loaded scenario, sorted by file then line.
    package var warnings: [ScenarioProblem] { scenarios.flatMap(\.warnings).sorted() }
    private var byName: [String: Int]

    /// A library of the given scenarios; for a repeated name, the first one is kept.
    package init(scenarios: [Scenario] = []) {
        self.scenarios = []
        byName = [:]
        for scenario in scenarios where byName[scenario.name] == nil {
            byName[scenario.name] = self.scenarios.count
            self.scenarios.append(scenario)
        }
    }

    package func scenario(named name: String) -> Scenario? { byName[name].map { scenarios[$0] } }
    package var names: [String] { scenarios.map(\.name) }
    package var isEmpty: Bool { scenarios.isEmpty }

    /// The file name every scenario directory may hold without it being read as a scenario.
    package static let schemaFileName = "scenario.schema.json"
    /// How deep directories are searched.
    static let maxDirectoryDepth = 16

    /// Loads every scenario under `directories` (a plain file URL is read as one scenario file).
    /// A missing directory, an unreadable or invalid file, a symbolic-link loop and a scenario name used
    /// twice are problems. A directory or file reached twice (given twice, or through a link) is read once.
    package static func load(directories: [URL], vocabulary: ScenarioVocabulary) -> Result<ScenarioLibrary, ScenarioLoadFailure> {
        let (scenarios, problems) = read(directories, vocabulary: vocabulary)
        if problems.isEmpty { return .success(ScenarioLibrary(scenarios: scenarios)) }
        return .failure(ScenarioLoadFailure(problems))
    }

    /// Every problem in `files`, each a scenario file or a directory of them (read as ``load(directories:vocabulary:)``
    /// does, duplicate names across all of them included), sorted by file then line; empty when all is well.
    package static func validate(files: [URL], vocabulary: ScenarioVocabulary) -> [ScenarioProblem] {
        read(files, vocabulary: vocabulary).problems.sorted()
    }

    /// For `payment-sandbox validate DIR...`: `files` read after `context` (the bundled scenarios) as the
    /// server would load them, so a name the context already uses is a problem too; `fileCount` is how
    /// many distinct scenario files `files` hold.
    /// Warnings (the files still load) are those of `files` only.
    package static func validate(files: [URL], after context: [URL], vocabulary: ScenarioVocabulary)
        -> (problems: [ScenarioProblem], warnings: [ScenarioProblem], fileCount: Int) {
        let read = read(context + files, vocabulary: vocabulary)
        let given = Set(scan(files).files.map(\.shown))
        return (read.problems.sorted(), read.scenarios.filter { given.contains($0.file) }.flatMap(\.warnings).sorted(), scan(files).files.count)
    }

    /// The scenario files in `directory`, in load order. Throws when it cannot be listed.
    package static func scenarioFiles(in directory: URL) throws -> [URL] {
        let found = scan([directory])
        if let problem = found.problems.first(where: { $0.file == display(directory) }) { throw problem }
        return found.files.map(\.url)
    }

    // MARK: Finding files

    /// A scenario file found under a location, and how problems name it.
    package struct FoundFile: Sendable, Equatable {
        package var url: URL
        package var shown: String
    }

    /// A file or directory as the system knows it, whatever path and links lead to it.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64

        /// stat(2), following links; nil when nothing is there (a dangling link included). `mode` is `st_mode`.
        static func of(_ path: String) -> (identity: FileIdentity, mode: Int)? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            let identity = FileIdentity(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
            return (identity, Int(info.st_mode))
        }
    }

    /// Whether a `st_mode` is a directory's, a regular file's.
    static func isDirectory(_ mode: Int) -> Bool { mode & Int(S_IFMT) == Int(S_IFDIR) }
    static func isRegular(_ mode: Int) -> Bool { mode & Int(S_IFMT) == Int(S_IFREG) }

    /// The problem of a scenario file that is a FIFO, a device or a socket (or a link to one): never opened.
    static func notRegularProblem(_ shown: String, mode: Int) -> ScenarioProblem {
        fileProblem(shown, "not a regular file (\(RegularFile.kind(ofMode: mode))); not read")
    }

    /// The scenario files under `locations`, in load order: location by location, each directory's files
    /// sorted by relative path. Every directory is entered once (by device and inode): one reached again
    /// through another path or link is skipped, and a link back to a directory being walked (a loop)
    /// is a problem; a file reached twice is listed once. So the walk is linear in the tree's size,
    /// whatever links it holds. Missing locations, unreadable directories and scenario files that are not regular
    /// files (a FIFO, a device, a socket, or a link to one) are problems; nothing is opened but directories.
    package static func scan(_ locations: [URL]) -> (files: [FoundFile], problems: [ScenarioProblem]) {
        var findings = Scan()
        for location in locations { scanLocation(location, &findings) }
        return (findings.files, findings.problems)
    }

    /// What ``scan(_:)`` has found so far, over all its locations.
    private struct Scan {
        var files: [FoundFile] = []
        var problems: [ScenarioProblem] = []
        var enteredDirectories: Set<FileIdentity> = []
        var listedFiles: Set<FileIdentity> = []
    }

    /// One location of ``scan(_:)``: a scenario file is listed as it is; a directory's files, found by
    /// ``walk(_:_:_:shown:found:_:)``, sorted by relative path.
    private static func scanLocation(_ location: URL, _ scan: inout Scan) {
        let shown = display(location)
        guard let entry = FileIdentity.of(location.path) else {
            scan.problems.append(fileProblem(shown, "no such file or directory"))
            return
        }
        let identity = entry.identity
        guard isDirectory(entry.mode) else {
            if !isRegular(entry.mode) {
                scan.problems.append(notRegularProblem(shown, mode: entry.mode))
            } else if scan.listedFiles.insert(identity).inserted {
                scan.files.append(FoundFile(url: location, shown: shown))
            }
            return
        }
        guard scan.enteredDirectories.insert(identity).inserted else { return }
        var found: [(relative: String, identity: FileIdentity)] = []
        walk(location, "", [(identity, "")], shown: shown, found: &found, &scan)
        for file in found.sorted(by: { $0.relative < $1.relative }) where scan.listedFiles.insert(file.identity).inserted {
            scan.files.append(FoundFile(url: location.appendingPathComponent(file.relative), shown: shown + "/" + file.relative))
        }
    }

    /// One directory of a location (`relative` to it, which shows as `shown`): its scenario files into `found`, its
    /// subdirectories walked in turn, unless entered before, a loop back to one of `ancestors`, or too deep.
    private static func walk(_ url: URL, _ relative: String, _ ancestors: [(identity: FileIdentity, relative: String)], shown: String,
                             found: inout [(relative: String, identity: FileIdentity)], _ scan: inout Scan) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        } catch {
            scan.problems.append(fileProblem(relative.isEmpty ? shown : shown + "/" + relative, "cannot read directory: \(reason(error))"))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let child = url.appendingPathComponent(name)
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            guard let entry = FileIdentity.of(child.path) else { continue }
            let identity = entry.identity
            if isDirectory(entry.mode) {
                if let ancestor = ancestors.first(where: { $0.identity == identity }) {
                    let target = ancestor.relative.isEmpty ? shown : shown + "/" + ancestor.relative
                    scan.problems.append(fileProblem(shown + "/" + childRelative, "symbolic link loop: leads back to \(target); not followed"))
                } else if ancestors.count > maxDirectoryDepth {
                    scan.problems.append(fileProblem(shown + "/" + childRelative, "more than \(maxDirectoryDepth) directories deep; not read"))
                } else if scan.enteredDirectories.insert(identity).inserted {
                    walk(child, childRelative, ancestors + [(identity, childRelative)], shown: shown, found: &found, &scan)
                }
            } else if name.hasSuffix(".json"), name != schemaFileName {
                if isRegular(entry.mode) {
                    found.append((childRelative, identity))
                } else {
                    scan.problems.append(notRegularProblem(shown + "/" + childRelative, mode: entry.mode))
                }
            }
        }
    }

    // MARK: Reading

    static func read(_ locations: [URL], vocabulary: ScenarioVocabulary) -> (scenarios: [Scenario], problems: [ScenarioProblem]) {
        var scenarios: [Scenario] = []
        var (files, problems) = scan(locations)
        var firstByName: [String: Scenario] = [:]

        for file in files {
            let data: Data
            do {
                // Opened without blocking and checked on the opened descriptor: the file may have been replaced by a
                // FIFO since the scan. Not FileManager.attributesOfItem: it also resolves the owner's names, reading
                // /etc/passwd and /etc/group for every file (a slower start).
                data = try RegularFile.read(file.url.path, limit: Scenario.maxFileBytes)
            } catch {
                switch error {
                case .tooLarge: problems.append(fileProblem(file.shown, "file is larger than \(Scenario.maxFileBytes) bytes"))
                case .notRegular: problems.append(fileProblem(file.shown, "\(error); not read"))
                case .missing, .system: problems.append(fileProblem(file.shown, "cannot read file: \(error)"))
                }
                continue
            }
            switch Scenario.parse(data, file: file.shown, vocabulary: vocabulary) {
            case .failure(let failure):
                problems += failure.problems
            case .success(let scenario):
                if let first = firstByName[scenario.name] {
                    problems.append(ScenarioProblem(
                        file: scenario.file, line: scenario.namePosition.line, column: scenario.namePosition.column,
                        path: "$.name",
                        message: "duplicate scenario name \(JSONNode.quoted(scenario.name)) (also in \(first.file):\(first.namePosition.line):\(first.namePosition.column))"))
                } else {
                    firstByName[scenario.name] = scenario
                    scenarios.append(scenario)
                }
            }
        }
        return (scenarios, problems)
    }

    /// How a location is named in problems: as given (relative stays relative), without a trailing '/'.
    static func display(_ url: URL) -> String {
        var shown = url.isFileURL ? url.relativePath : url.absoluteString
        while shown.count > 1 && shown.hasSuffix("/") { shown.removeLast() }
        return shown
    }

    static func fileProblem(_ file: String, _ message: String) -> ScenarioProblem {
        ScenarioProblem(file: file, line: 0, column: 0, path: "", message: message)
    }

    static func reason(_ error: any Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return (error as NSError).localizedDescription
    }
}
