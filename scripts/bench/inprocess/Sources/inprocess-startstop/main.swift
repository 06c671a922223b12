// SPDX-License-Identifier: MIT
//
// inprocess-startstop - what a test pays to get a sandbox with the bundled scenarios, and to be rid of it.
//
//   in-process: PaymentSandbox(configuration: SandboxConfiguration()) + SandboxClient(sandbox:) + one health call,
//               then release (no socket; the bundled scenarios are parsed once per process, before timing)
//   socket:     the same sandbox start()ed on 127.0.0.1 port 0, then stop() (today's PaymentSandbox.withRunning)
//
// Run:    inprocess-startstop [--runs 500]
// Prints: inprocess_median_us=... inprocess_p90_us=... socket_median_us=... socket_p90_us=... runs=...
import Foundation
import PaymentSandbox
import PaymentSandboxTesting

var runs = 500
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--runs", let value = arguments.popFirst().flatMap(Int.init), value > 0 { runs = value } else {
        FileHandle.standardError.write(Data("usage: inprocess-startstop [--runs N]\n".utf8))
        exit(2)
    }
}

func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

func percentile(_ samples: [Double], _ fraction: Double) -> Double {
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

func inProcessOnce() async throws {
    let client = try SandboxClient(sandbox: PaymentSandbox(configuration: SandboxConfiguration()))
    let health = try await client.send("GET", "/__sandbox/health")
    guard health.status == 200 else { throw URLError(.badServerResponse) }
}

func socketOnce() async throws {
    let sandbox = PaymentSandbox(configuration: SandboxConfiguration())
    try sandbox.start()
    await sandbox.stop()
}

let clock = ContinuousClock()
// The first start parses the bundled scenarios (once per process); warm both paths up.
for _ in 0..<5 {
    try await inProcessOnce()
    try await socketOnce()
}
var inProcess: [Double] = []
var socket: [Double] = []
for _ in 0..<runs {
    inProcess.append(microseconds(try await clock.measure { try await inProcessOnce() }))
}
for _ in 0..<max(1, runs / 5) {
    socket.append(microseconds(try await clock.measure { try await socketOnce() }))
}
func format(_ value: Double) -> String { String(format: "%.0f", value) }
print("inprocess_median_us=\(format(percentile(inProcess, 0.5))) inprocess_p90_us=\(format(percentile(inProcess, 0.9)))"
      + " socket_median_us=\(format(percentile(socket, 0.5))) socket_p90_us=\(format(percentile(socket, 0.9)))"
      + " runs=\(runs) socket_runs=\(socket.count)")
