// SPDX-License-Identifier: MIT
import Foundation

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
/// order, directory by directory, in the order given. Any problem in any file fails the whole load, so a
/// server either runs the complete set it was given or refuses to start (or keeps its last good set).
public struct ScenarioLibrary: Sendable {
    public private(set) var scenarios: [Scenario]
    private var byName: [String: Int]

    /// A library of the given scenarios; for a repeated name, the first one is kept.
    public init(scenarios: [Scenario] = []) {
        self.scenarios = []
        byName = [:]
        for scenario in scenarios where byName[scenario.name] == nil {
            byName[scenario.name] = self.scenarios.count
            self.scenarios.append(scenario)
        }
    }

    public func scenario(named name: String) -> Scenario? { byName[name].map { scenarios[$0] } }
    public var names: [String] { scenarios.map(\.name) }
    public var isEmpty: Bool { scenarios.isEmpty }

    /// The file name every scenario directory may hold without it being read as a scenario.
    public static let schemaFileName = "scenario.schema.json"
    /// How deep directories are searched (also stops symbolic-link loops).
    static let maxDirectoryDepth = 16

    /// Loads every scenario under `directories` (a plain file URL is read as one scenario file).
    /// A missing directory, an unreadable or invalid file and a scenario name used twice are problems.
    public static func load(directories: [URL]) -> Result<ScenarioLibrary, ScenarioLoadFailure> {
        let (scenarios, problems) = read(directories)
        if problems.isEmpty { return .success(ScenarioLibrary(scenarios: scenarios)) }
        return .failure(ScenarioLoadFailure(problems))
    }

    /// Every problem in `files`, each a scenario file or a directory of them (read as ``load(directories:)``
    /// does, duplicate names across all of them included), sorted by file then line; empty when all is well.
    /// For `payment-sandbox validate DIR...`.
    public static func validate(files: [URL]) -> [ScenarioProblem] {
        read(files).problems.sorted()
    }

    /// The scenario files in `directory`, in load order. Throws when it cannot be listed.
    public static func scenarioFiles(in directory: URL) throws -> [URL] {
        try relativeScenarioPaths(in: directory).map { directory.appendingPathComponent($0) }
    }

    // MARK: Reading

    static func read(_ locations: [URL]) -> (scenarios: [Scenario], problems: [ScenarioProblem]) {
        var scenarios: [Scenario] = []
        var problems: [ScenarioProblem] = []
        var firstByName: [String: Scenario] = [:]

        for location in locations {
            let shown = display(location)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory) else {
                problems.append(fileProblem(shown, "no such file or directory"))
                continue
            }
            var files: [(url: URL, shown: String)] = []
            if isDirectory.boolValue {
                do {
                    files = try relativeScenarioPaths(in: location).map { (location.appendingPathComponent($0), shown + "/" + $0) }
                } catch {
                    problems.append(fileProblem(shown, "cannot read directory: \(reason(error))"))
                    continue
                }
            } else {
                files = [(location, shown)]
            }
            for file in files {
                let data: Data
                do {
                    let attributes = try FileManager.default.attributesOfItem(atPath: file.url.path)
                    if let size = attributes[.size] as? NSNumber, size.intValue > Scenario.maxFileBytes {
                        problems.append(fileProblem(file.shown, "file is larger than \(Scenario.maxFileBytes) bytes"))
                        continue
                    }
                    data = try Data(contentsOf: file.url)
                } catch {
                    problems.append(fileProblem(file.shown, "cannot read file: \(reason(error))"))
                    continue
                }
                switch Scenario.parse(data, file: file.shown) {
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
        }
        return (scenarios, problems)
    }

    /// Paths relative to `directory` of its scenario files, sorted.
    static func relativeScenarioPaths(in directory: URL) throws -> [String] {
        var found: [String] = []
        func walk(_ url: URL, prefix: String, depth: Int) throws {
            guard depth <= maxDirectoryDepth else { return }
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where !name.hasPrefix(".") {
                let child = url.appendingPathComponent(name)
                let relative = prefix.isEmpty ? name : prefix + "/" + name
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: child.path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    try walk(child, prefix: relative, depth: depth + 1)
                } else if name.hasSuffix(".json"), name != schemaFileName {
                    found.append(relative)
                }
            }
        }
        try walk(directory, prefix: "", depth: 0)
        return found.sorted()
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
