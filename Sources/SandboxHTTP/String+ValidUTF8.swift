// SPDX-License-Identifier: MIT

extension String {
    /// `bytes` as a string when they are valid UTF-8 (no overlong forms, surrogates or truncated sequences), else nil:
    /// `String(validating:as:)` without its macOS 15 / iOS 18 floor.
    package init?(validUTF8 bytes: some Collection<UInt8>) {
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
}
