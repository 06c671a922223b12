// SPDX-License-Identifier: MIT
// In-process users configure limits and read responses with the HTTP core's types.
@_exported import SandboxHTTP
@_exported import SandboxScenarios
@_exported import KlarnaSandbox
@_exported import SwedbankPaySandbox
