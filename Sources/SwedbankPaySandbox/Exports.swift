// SPDX-License-Identifier: MIT
@_exported import SandboxHTTP
@_exported import SandboxScenarios
