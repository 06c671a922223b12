// SPDX-License-Identifier: MIT
// The BundledScenarios target: this folder's scenario files as a resource bundle (Package.swift), so a package
// that depends on this one plays them in-process with no path given. The CLI and the image read the folder itself.
import Foundation

/// Where the bundled scenarios are, found without the generated `Bundle.module` (it stops the process when the
/// bundle is missing): the resource bundle beside the executable, the test bundle or the app's resources, else
/// this folder in the package's checkout (a dependency is built from source, so it is there). nil when neither is.
package enum BundledScenarioFolder {
    /// SwiftPM names the bundle `<package>_<target>`; `.resources` on Linux, `.bundle` on Apple platforms.
    static let bundleNames = ["payment-sandbox_BundledScenarios.resources", "payment-sandbox_BundledScenarios.bundle"]

    /// Looked up once per process.
    package static let url: URL? = resourceBundle() ?? sourceFolder()

    /// Folders a resource bundle may sit in: the main bundle (an app, or the build folder of a test or tool),
    /// its resources, the executable's folder and, for test bundles, the folder around each loaded bundle.
    static func resourceBundle() -> URL? {
        var folders: [URL] = [Bundle.main.bundleURL]
        if let resources = Bundle.main.resourceURL { folders.append(resources) }
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for folder in folders {
            for name in bundleNames {
                let candidate = folder.appendingPathComponent(name, isDirectory: true)
                guard isDirectory(candidate) else { continue }
                let contents = Bundle(url: candidate)?.resourceURL ?? candidate
                if isDirectory(contents.appendingPathComponent("klarna")) { return contents.standardizedFileURL }
            }
        }
        return nil
    }

    /// This file's folder, when the package's sources are still where it was built.
    static func sourceFolder() -> URL? {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        return isDirectory(folder.appendingPathComponent("klarna")) ? folder.standardizedFileURL : nil
    }

    /// Whether `url` is this folder or its resource bundle (a directory given explicitly is then not loaded twice).
    package static func isBundled(_ url: URL) -> Bool {
        knownPaths.contains(url.resolvingSymlinksInPath().standardizedFileURL.path)
    }

    private static let knownPaths = Set([resourceBundle(), sourceFolder()].compactMap {
        $0?.resolvingSymlinksInPath().standardizedFileURL.path
    })

    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
