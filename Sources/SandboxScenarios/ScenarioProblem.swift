// SPDX-License-Identifier: MIT
import Foundation

/// One thing wrong with a scenario file. Its description is `file:line:column: JSON path: what is wrong`,
/// e.g. `scenarios/shop/reject.json:7:19: $.rules[0].outcome: unknown outcome "rejekt" (expected one of: ...)`.
/// Problems that are not about the JSON (a missing directory, an unreadable file) have line 0 and an
/// empty path and read `file: what is wrong`.
public struct ScenarioProblem: Sendable, Equatable, Comparable, CustomStringConvertible, Error {
    public var file: String
    public var line: Int
    public var column: Int
    public var path: String
    public var message: String

    public init(file: String, line: Int, column: Int, path: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    public var description: String {
        line == 0 ? "\(file): \(message)" : "\(file):\(line):\(column): \(path): \(message)"
    }

    /// By file, then line, then column.
    public static func < (lhs: ScenarioProblem, rhs: ScenarioProblem) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

