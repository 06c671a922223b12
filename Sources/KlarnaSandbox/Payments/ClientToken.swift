// SPDX-License-Identifier: MIT
import Foundation

/// A `client_token` shaped like Klarna's: a JWT whose payload carries the claims real tokens carry
/// (klarna-api.md §2.1). Real ones are RS256-signed by Klarna; nothing outside Klarna verifies them, so this
/// one says `"alg":"RS256"` for shape but its signature is not a real signature: it is never checked.
enum ClientToken {
    /// What a token says besides the session id: from the fields the session was created with. A session keeps these
    /// (a few short strings) and makes its token when it is read, instead of keeping the token's few hundred bytes.
    struct Claims: Hashable, Sendable, Codable {
        var purchaseCountry, design, locale: String?

        init(_ fields: KlarnaSessionFields) {
            purchaseCountry = fields.purchaseCountry
            design = fields.design
            locale = fields.locale
        }
    }

    static func make(sessionID: String, fields: KlarnaSessionFields) -> String {
        make(sessionID: sessionID, claims: Claims(fields))
    }

    /// The payload is written byte by byte, as JSONText writes it (a token is made for every session created and read).
    /// Only its head (`{"session_id":"…"`) differs between the sessions of one set of claims: the rest of the payload
    /// is encoded once per claims (``encodedTail(_:split:)``) and copied.
    static func make(sessionID: String, claims: Claims) -> String {
        var scratch: [UInt8] = []
        scratch.reserveCapacity(sessionID.utf8.count + 24)
        scratch.append(contentsOf: #"{"session_id":"#.utf8)
        KlarnaJSONBytes.appendString(sessionID, to: &scratch)
        // The head and the tail's first bytes are whole groups of three: their encodings join without a seam.
        let tail = encodedTail(claims, split: (3 - scratch.count % 3) % 3)
        scratch.append(contentsOf: tail.first)
        let signedCount = signedPrefix.count + sessionID.utf8.count
        // header.payload.signature, written into one string.
        let length = encodedHeaderBytes.count + 2 + encodedLength(scratch.count) + tail.encoded.count + encodedLength(signedCount)
        return String(unsafeUninitializedCapacity: length) { out in
            var written = out.initialize(from: encodedHeaderBytes).1
            out[written] = UInt8(ascii: ".")
            written = scratch.withUnsafeBufferPointer { base64URL($0, into: out, at: written + 1) }
            written += UnsafeMutableBufferPointer(rebasing: out[written...]).initialize(from: tail.encoded).1
            out[written] = UInt8(ascii: ".")
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: signedPrefix)
            scratch.append(contentsOf: sessionID.utf8)
            return scratch.withUnsafeBufferPointer { base64URL($0, into: out, at: written + 1) }
        }
    }

    private static let signedPrefix = Array("payment-sandbox:".utf8)

    /// The payload after the session id (from `,"base_url"` on) for `claims`, in base64url from its byte `split` on,
    /// and its first `split` bytes (0 to 2). Kept for the last few claims seen (a sandbox sees few).
    private static func encodedTail(_ claims: Claims, split: Int) -> EncodedTail {
        let key = TailKey(claims: claims, split: split)
        if let known = tails.withLock({ $0[key] }) { return known }
        let bytes = payloadTail(claims)
        let encoded = bytes.withUnsafeBufferPointer { all in
            let rest = UnsafeBufferPointer(rebasing: all[split...])
            return [UInt8](unsafeUninitializedCapacity: encodedLength(rest.count)) { out, count in
                count = base64URL(rest, into: out, at: 0)
            }
        }
        let made = EncodedTail(first: Array(bytes[..<split]), encoded: encoded)
        tails.withLock { tails in
            if tails.count >= 64 { tails.removeAll() }
            tails[key] = made
        }
        return made
    }

    private struct TailKey: Hashable, Sendable {
        var claims: Claims
        var split: Int
    }

    private struct EncodedTail: Sendable {
        let first: [UInt8]
        let encoded: [UInt8]
    }

    private static let tails = Locked<[TailKey: EncodedTail]>([:])

    /// The payload's bytes after the session id's closing quote.
    private static func payloadTail(_ claims: Claims) -> [UInt8] {
        let country = KlarnaJSONBytes.uppercased(claims.purchaseCountry ?? "")
        let region = ["US", "CA", "MX"].contains(country) ? "na" : ["AU", "NZ"].contains(country) ? "oc" : "eu"
        var payload: [UInt8] = []
        payload.reserveCapacity(320)
        payload.append(contentsOf: #","base_url":"https://js.playground.klarna.com/"#.utf8)
        payload.append(contentsOf: region.utf8)
        payload.append(contentsOf: #"/kp","design":"#.utf8)
        KlarnaJSONBytes.appendString(claims.design ?? "klarna", to: &payload)
        payload.append(contentsOf: #","language":"#.utf8)
        KlarnaJSONBytes.appendString(language(claims.locale ?? "en-US"), to: &payload)
        payload.append(contentsOf: #","purchase_country":"#.utf8)
        KlarnaJSONBytes.appendString(country, to: &payload)
        payload.append(contentsOf: #","environment":"playground","merchant_name":"payment-sandbox","session_type":"PAYMENTS","scheme":true}"#.utf8)
        return payload
    }

    private static let encodedHeaderBytes = Array(encodedHeader.utf8)

    /// The length of `count` bytes in base64url without padding.
    private static func encodedLength(_ count: Int) -> Int { count / 3 * 4 + (count % 3 == 0 ? 0 : count % 3 + 1) }

    /// The locale's first two characters, lowercased: its first two bytes when it is ASCII without a CR (where a
    /// character is a byte).
    private static func language(_ locale: String) -> String {
        let utf8 = locale.utf8
        guard utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) else { return String(locale.prefix(2)).lowercased() }
        return KlarnaJSONBytes.lowercased(String(decoding: utf8.prefix(2), as: UTF8.self))
    }

    private static let encodedHeader = base64URL(
        Data(JSONText.object([("alg", .string("RS256")), ("kid", .string("payment-sandbox")), ("typ", .string("JWT"))]).bytes))

    /// The `session_id` claim of a token this sandbox issued, or nil.
    static func sessionID(of token: String) -> String? {
        // A key without a dot (a session id) is no token: nil before splitting it by characters.
        let dot = UInt8(ascii: ".")
        guard token.utf8.withContiguousStorageIfAvailable({ $0.contains(dot) }) ?? token.utf8.contains(dot) else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count == 3, let payload = fromBase64URL(String(parts[1])),
              let claims = try? JSONDocument.parse(payload) else { return nil }
        return claims["session_id"]?.stringValue
    }

    /// RFC 4648 §5, without padding (as JWTs are written). Written out: a token is made per session.
    static func base64URL(_ data: Data) -> String { base64URL(bytes: [UInt8](data)) }

    static func base64URL(bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { base64URL($0) }
    }

    private static func base64URL(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: encodedLength(bytes.count)) { base64URL(bytes, into: $0, at: 0) }
    }

    /// Writes `bytes` in base64url (no padding) into `out` from `start`; returns where it ended.
    private static func base64URL(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let table = alphabet.utf8Start
        var written = start
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out[written] = table[Int(group >> 18)]
            out[written + 1] = table[Int(group >> 12 & 63)]
            out[written + 2] = table[Int(group >> 6 & 63)]
            out[written + 3] = table[Int(group & 63)]
            written += 4
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out[written] = table[Int(group >> 18)]
            out[written + 1] = table[Int(group >> 12 & 63)]
            written += 2
            if rest == 2 {
                out[written] = table[Int(group >> 6 & 63)]
                written += 1
            }
        }
        return written
    }

    static func fromBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
