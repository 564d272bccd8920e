import Foundation

/// A new empty directory under the system's temporary directory, for one test's files:
/// made by `init`, deleted with all it holds by `remove()` (call it from `tearDown`).
public struct ScratchDirectory: Sendable {
    public let url: URL

    /// Makes `<temporary directory>/<prefix>-<UUID>`.
    public init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The names in the directory, sorted.
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
