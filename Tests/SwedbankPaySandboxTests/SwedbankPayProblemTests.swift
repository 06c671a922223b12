// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SwedbankPaySandbox

@Suite struct SwedbankPayProblemTests {
    @Test func body_HasTheRFC7807MembersInSwedbankPaysOrder_AndAFreshInstance() throws {
        let problem = SwedbankPayProblem("paymentorders/inputerror", status: .badRequest, title: "Error in input data",
                                         detail: "Input validation failed, error description in problems node!",
                                         problems: [.init(name: "PaymentOrder.Amount", description: "The field Amount must be greater than 0.")])
        let first = String(decoding: problem.json(ids: RandomIDGenerator.shared).bytes, as: UTF8.self)
        let second = String(decoding: problem.json(ids: RandomIDGenerator.shared).bytes, as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "https://api.payex.com/psp/errordetail/paymentorders/inputerror")
        #expect(object["status"] as? Int == 400)
        #expect((object["problems"] as? [[String: String]])?.first?["name"] == "PaymentOrder.Amount")
        let instance = try #require(object["instance"] as? String)
        #expect(instance.range(of: #"^https://api\.payex\.com/psp/probleminstance/00-[0-9a-f]{32}-[0-9a-f]{16}-01$"#, options: .regularExpression) != nil)
        #expect(first != second, "instance is fresh each time")
        #expect(first.hasPrefix(#"{"type":"#) && first.contains(#""detail":"#))
    }
}
