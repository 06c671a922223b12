// SPDX-License-Identifier: MIT
// What `import PaymentSandbox` gives a user besides PaymentSandbox and SandboxConfiguration: the names needed to
// configure a sandbox and to catch what it throws. The modules behind them are not re-exported, so the HTTP
// core's `HTTPRequest`, `HTTPResponse`, `Router`, `HTTPServer` and `Locked` stay out of the user's namespace
// (they would clash with FlyingFox's and Hummingbird's).
import KlarnaSandbox
import SandboxHTTP
import SandboxCore
import SandboxScenarios
import SwedbankPaySandbox

// The HTTP server's settings and log.
public typealias HTTPServerConfiguration = SandboxHTTP.HTTPServerConfiguration
public typealias HTTPParserLimits = SandboxHTTP.HTTPParserLimits
public typealias TrustedForwardedHeaders = SandboxHTTP.TrustedForwardedHeaders
public typealias HTTPServerLogger = SandboxHTTP.HTTPServerLogger
public typealias LogLevel = SandboxHTTP.LogLevel
public typealias RequestLogEntry = SandboxHTTP.RequestLogEntry
public typealias HTTPServerError = SandboxHTTP.HTTPServerError

// Time and ids, for deterministic runs.
public typealias SandboxClock = SandboxCore.SandboxClock
public typealias SystemClock = SandboxCore.SystemClock
public typealias ManualClock = SandboxCore.ManualClock
public typealias SandboxClockRange = SandboxCore.SandboxClockRange
public typealias IDGenerator = SandboxCore.IDGenerator
public typealias RandomIDGenerator = SandboxCore.RandomIDGenerator
public typealias SequentialIDGenerator = SandboxCore.SequentialIDGenerator

// Scenarios: what an invalid file makes start() throw.
public typealias ScenarioLoadFailure = SandboxScenarios.ScenarioLoadFailure
public typealias ScenarioProblem = SandboxScenarios.ScenarioProblem

// The providers' settings.
public typealias KlarnaPaymentsConfiguration = KlarnaSandbox.KlarnaPaymentsConfiguration
public typealias KlarnaCredentialPolicy = KlarnaSandbox.KlarnaCredentialPolicy
public typealias KlarnaHPPConfiguration = KlarnaSandbox.KlarnaHPPConfiguration
public typealias KlarnaOrderManagementConfiguration = KlarnaSandbox.KlarnaOrderManagementConfiguration
public typealias SwedbankPayConfiguration = SwedbankPaySandbox.SwedbankPayConfiguration
