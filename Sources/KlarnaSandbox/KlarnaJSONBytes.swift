// SPDX-License-Identifier: MIT
import Foundation

/// JSON written straight into bytes for the answers every flow gives (a session's client token, the session
/// created), exactly as ``JSONText`` writes the same values: a string with nothing to escape is copied as it is,
/// any other goes through JSONText.
enum KlarnaJSONBytes {
    static func appendString(_ string: String, to out: inout [UInt8]) {
        var string = string
        let copied = string.withUTF8 { bytes -> Bool in
            for byte in bytes where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if !copied { JSONText.string(string).write(into: &out) }
    }

    /// `text.uppercased()`, by bytes when it is ASCII.
    static func uppercased(_ text: String) -> String {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.uppercased() }
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else { return text }
        return String(decoding: text.utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0 }, as: UTF8.self)
    }

    /// `text.lowercased()`, by bytes when it is ASCII.
    static func lowercased(_ text: String) -> String {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.lowercased() }
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return text }
        return String(decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

extension String {
    /// `trimmingCharacters(in: .whitespaces)`, without Foundation when both ends are ASCII other than space and tab
    /// (the only ASCII members of that set): a header value as the parser hands it over.
    func trimmingWhitespaces() -> String {
        let utf8 = self.utf8
        guard let first = utf8.first, let last = utf8.last else { return self }
        let kept: (UInt8) -> Bool = { $0 < 0x80 && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        return kept(first) && kept(last) ? self : trimmingCharacters(in: .whitespaces)
    }
}
