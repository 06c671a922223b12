// SPDX-License-Identifier: MIT

extension HTMLText {
    /// Minor units in the currency's decimals (ISO 4217): `62400`, `GBP` -> "624.00 GBP".
    package static func money(_ minorUnits: Int?, _ currency: String?) -> String {
        guard let minorUnits else { return "" }
        let code = (currency ?? "").uppercased()
        let digits = ["JPY", "KRW", "ISK", "CLP", "VND", "UGX", "XAF", "XOF"].contains(code) ? 0
            : ["BHD", "KWD", "OMR", "JOD", "TND"].contains(code) ? 3 : 2
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let magnitude = minorUnits.magnitude
        var text = String(magnitude / UInt(scale))
        if digits > 0 {
            let fraction = String(magnitude % UInt(scale))
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return (minorUnits < 0 ? "-" : "") + text + (code.isEmpty ? "" : " " + code)
    }
}
