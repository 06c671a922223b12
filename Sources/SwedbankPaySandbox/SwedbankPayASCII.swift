// SPDX-License-Identifier: MIT

/// Fast paths over ASCII text for the request path. Each gives, for ASCII input, what the Foundation call it stands
/// for gives (on ASCII, a Character is one byte but for CR LF, which no caller splits or trims on); callers keep the
/// Foundation call for other input.
enum SwedbankPayASCII {
    @inline(__always)
    static func isASCII(_ text: some StringProtocol) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `trimmingCharacters(in: .whitespaces)` on ASCII: space and tab.
    static func trimmingWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        trimming(bytes) { $0 == UInt8(ascii: " ") || $0 == 0x09 }
    }

    static func trimming(_ bytes: ArraySlice<UInt8>, where trimmed: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, trimmed(bytes[start]) { start += 1 }
        while end > start, trimmed(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    /// `lowercased() == lowercase` for ASCII bytes and an ASCII lower-case literal.
    static func lowercasedEquals(_ bytes: ArraySlice<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, wanted in (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == wanted }
        }
    }

    /// `replacingOccurrences(of: "-", with: "")`.
    static func removingDashes(_ text: String) -> String {
        String(decoding: text.utf8.filter { $0 != UInt8(ascii: "-") }, as: UTF8.self)
    }
}

/// UTC calendar arithmetic for the request path (Foundation's Calendar costs thousands of instructions a call).
enum SwedbankPayUTC {
    /// Year, month and day of a day count since 1970-01-01 (≥ 0), proleptic Gregorian (H. Hinnant's civil_from_days).
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
