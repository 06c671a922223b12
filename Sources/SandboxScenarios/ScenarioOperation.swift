// SPDX-License-Identifier: MIT
import Foundation

/// An API operation a scenario can steer, named `provider.api.operation`.
public struct ScenarioOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}
