// SPDX-License-Identifier: MIT
// A real HTTP client (URLSession) against a listening sandbox; the Klarna Payments flows run in-process in
// KlarnaSandboxTests.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Klarna Payments: URLSession")
struct KlarnaPaymentsURLSessionTests {
    @Test("URLSession: create and read a session with Basic credentials")
    func urlSessionClient() async throws {
        try await withSandbox { server in
            try await withURLSession { session in
                let namespace = uniqueNamespace("urlsession")
                var create = URLRequest(url: server.url("/payments/v1/sessions"))
                create.httpMethod = "POST"
                create.httpBody = Data(KlarnaExamples.gbSession.utf8)
                create.setValue("application/json", forHTTPHeaderField: "Content-Type")
                create.setValue("Basic " + Data("PK12345_0123456789ab:secret".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
                create.setValue(namespace, forHTTPHeaderField: "Sandbox-Namespace")
                let (data, response) = try await session.data(for: create)
                #expect(response.httpStatus == 200)
                let sessionID = try #require(try jsonObject(data)["session_id"] as? String)

                var read = URLRequest(url: server.url("/payments/v1/sessions/\(sessionID)"))
                read.setValue(create.value(forHTTPHeaderField: "Authorization"), forHTTPHeaderField: "Authorization")
                read.setValue(namespace, forHTTPHeaderField: "Sandbox-Namespace")
                let (readData, readResponse) = try await session.data(for: read)
                #expect(readResponse.httpStatus == 200)
                #expect(try jsonObject(readData)["status"] as? String == "incomplete")
            }
        }
    }
}
