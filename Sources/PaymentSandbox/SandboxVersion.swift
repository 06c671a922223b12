// SPDX-License-Identifier: MIT

public enum SandboxVersion {
    /// The sandbox's version, reported by `--version`, the startup line and `GET /__sandbox/health`.
    public static let current = "0.1.0"
}
