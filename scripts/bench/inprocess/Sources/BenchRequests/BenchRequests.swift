// SPDX-License-Identifier: MIT
// What the in-process benchmarks (inprocess-instructions, memory-per-flow) send and how they fail: one cart for both,
// so that the instruction count and the heap per flow measure the same Klarna purchase.

/// An unexpected answer; the benchmark exits 1 with it.
public struct BenchFailure: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// The Klarna session body: a GB cart of two lines (the bench scripts' cart, scripts/bench/instructions.py).
public let klarnaCart = #"""
{"purchase_country":"GB","purchase_currency":"GBP","locale":"en-GB","order_amount":62400,"order_tax_amount":10400,\#
"order_lines":[{"type":"physical","name":"Battery Power Pack","quantity":1,"unit_price":59500,"tax_rate":2000,\#
"total_amount":59500,"total_tax_amount":9917},{"type":"shipping_fee","name":"Shipping","quantity":1,"unit_price":2900,\#
"tax_rate":2000,"total_amount":2900,"total_tax_amount":483}]}
"""#

/// The create-order body: the cart with a billing address.
public let klarnaOrder = String(klarnaCart.dropLast()) + #","billing_address":{"postal_code":"W1S 3BE"}}"#
