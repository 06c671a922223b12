// SPDX-License-Identifier: MIT

/// Helpers for the providers' self-contained HTML pages (hosted payment pages, checkouts).
package enum HTMLText {
    /// Text and (double- or single-quoted) attribute values: `&`, `<`, `>`, `"` and `'` become character
    /// references. Compared by Unicode scalar, never by `Character`: a grapheme cluster can hold one of them
    /// (U+0600 followed by `<` is a single `Character`, as is `"` followed by U+0301), and the HTML tokenizer
    /// reads code points, so a cluster-wise comparison would let it through raw.
    package static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: isSpecial) else { return text }
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count + 16)
        // The five are ASCII, and no byte of a multi-byte UTF-8 sequence is ASCII: bytes are code points here.
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): out.append(contentsOf: "&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "'")
    }

    /// JSON for the inside of a `<script>` element: `<` as `\u003c` (it only occurs in strings), so no text can end the
    /// element (`</script`) or open a comment (`<!--`); script data has no character references, so nothing else
    /// needs it. U+2028 and U+2029 as `\u2028` `\u2029`, as web views older than ES2019 end a string literal at them.
    /// Byte-wise, like ``escape(_:)``.
    package static func scriptJSON(_ json: JSONText) -> String {
        let bytes = json.bytes
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "<"): out.append(contentsOf: "\\u003c".utf8)
            // U+2028 / U+2029 are E2 80 A8 / E2 80 A9 in UTF-8.
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                out.append(contentsOf: (bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                index += 2
            default: out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
