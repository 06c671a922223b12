// SPDX-License-Identifier: MIT
@_exported import SandboxPlugIn
