// SPDX-License-Identifier: MIT
import Foundation

/// The shape of the JSON an operation's field conditions look at: which keys can occur, which hold objects or
/// arrays. `validate` warns about a `field` whose path leaves it (it could never match).
public indirect enum ScenarioRequestShape: Sendable {
    /// An object with these keys.
    case object([String: ScenarioRequestShape])
    /// An array of elements of this shape.
    case array(ScenarioRequestShape)
    /// A string, number, boolean or null.
    case value
    /// Anything (a free-form object such as `merchant_data` or `attachment`).
    case any
}
