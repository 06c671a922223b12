// SPDX-License-Identifier: MIT

extension String {
    /// `bytes` as a string when they are valid UTF-8 (no overlong forms, surrogates or truncated sequences), else nil:
    /// `String(validating:as:)` without its macOS 15 / iOS 18 floor.
    package init?(validUTF8 bytes: some Collection<UInt8>) {
        if let string = bytes.withContiguousStorageIfAvailable({ String(validUTF8: $0) }) {
            guard let string else { return nil }
            self = string
            return
        }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: self = String(decoding: bytes, as: UTF8.self); return
            case .error: return nil
            }
        }
    }

    /// The same for bytes in memory: checked eight ASCII bytes at a time, with no generic code at run time.
    package init?(validUTF8 buffer: UnsafeBufferPointer<UInt8>) {
        guard UTF8Validation.isValid(buffer) else { return nil }
        self = String(decoding: buffer, as: UTF8.self)
    }

    package init?(validUTF8 bytes: [UInt8]) {
        guard let string = bytes.withUnsafeBufferPointer({ String(validUTF8: $0) }) else { return nil }
        self = string
    }

    package init?(validUTF8 bytes: ArraySlice<UInt8>) {
        guard let string = bytes.withUnsafeBufferPointer({ String(validUTF8: $0) }) else { return nil }
        self = string
    }
}

/// Well-formed UTF-8 (Unicode §3.9, table 3-7): what `Unicode.UTF8`'s decoder accepts.
package enum UTF8Validation {
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if count - index >= 8,
               UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            if base[index] < 0x80 {
                index += 1
                continue
            }
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else { return false }
            index += length
        }
        return true
    }

    /// The length of the well-formed multi-byte sequence at `offset` (2 to 4), or 0 when there is none.
    package static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        let lead = bytes[offset]
        let length: Int
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: return 0
        }
        guard offset + length <= bytes.count else { return 0 }
        let second = bytes[offset + 1]
        guard second >= lower && second <= upper else { return 0 }
        for i in 2..<length where bytes[offset + i] & 0xC0 != 0x80 { return 0 }
        return length
    }
}
