// SPDX-License-Identifier: MIT
import Foundation

/// An API operation a scenario can steer, named `provider.api.operation`.
package struct ScenarioOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    package var description: String { rawValue }
}
