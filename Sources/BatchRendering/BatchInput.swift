import Foundation
import MIDIFile

/// One MIDI file of a batch: where it is, and the path its outputs keep under the output directory.
public struct BatchInput: Hashable, Sendable {
    /// The file as found (a path given, read from a list, or found under a directory given).
    public var path: String
    /// Its path under the output directory, without extension: relative to the directory it was
    /// found under, or for a file named directly, relative to the current directory when it lies
    /// inside it (else its name alone).
    public var relativePath: String

    public init(path: String, relativePath: String) {
        self.path = path
        self.relativePath = relativePath
    }

    /// The file's size in bytes (0 when it cannot be read): what the batch takes for its rendering
    /// time (it counts the events), to schedule and to estimate the time left.
    public var fileSize: Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Where an output with `pathExtension` (and an optional `suffix` before it, such as `.ch10`
    /// for a stem) goes under `directory`.
    public func outputPath(in directory: String, suffix: String = "", pathExtension: String) -> String {
        let stem = (relativePath as NSString).deletingPathExtension
        return (directory as NSString).appendingPathComponent(stem + suffix + "." + pathExtension)
    }
}

/// Finds the MIDI files of a batch: files named directly (whatever their extension), and every file
/// with a MIDI extension (`MIDIFileReader.fileExtensions`, any case) under directories, recursively.
/// The result is sorted by relative path, duplicates removed.
public enum BatchInputDiscovery {

    /// Why a path given cannot be used.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The inputs of `paths` (files and directories); paths that do not exist or cannot be listed
    /// come back as problems, not errors, so the batch can go on without them.
    public static func discover(_ paths: [String]) -> (inputs: [BatchInput], problems: [Problem]) {
        var inputs: [BatchInput] = []
        var problems: [Problem] = []
        let fileManager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append(Problem(path: path, reason: "no such file or directory"))
                continue
            }
            if isDirectory.boolValue {
                inputs += files(under: path, problems: &problems)
            } else {
                inputs.append(BatchInput(path: path, relativePath: relativeName(ofFile: path)))
            }
        }
        var seen = Set<String>()
        inputs = inputs.sorted { $0.relativePath < $1.relativePath }.filter { seen.insert($0.path).inserted }
        return (inputs, problems)
    }

    /// Paths read from `text`, one a line (blank lines ignored; a trailing `\r` dropped).
    public static func paths(fromList text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { String($0) }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    private static func files(under directory: String, problems: inout [Problem]) -> [BatchInput] {
        let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
        final class Unlisted: @unchecked Sendable { var problems: [Problem] = [] }
        let unlisted = Unlisted()
        defer { problems += unlisted.problems }
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [],
            errorHandler: { url, error in
                unlisted.problems.append(Problem(path: url.path, reason: "cannot list: \(error.localizedDescription)"))
                return true
            })
        else {
            problems.append(Problem(path: directory, reason: "cannot list the directory"))
            return []
        }
        var found: [BatchInput] = []
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in enumerator where MIDIFileReader.fileExtensions.contains(url.pathExtension.lowercased()) {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let full = url.standardizedFileURL.path
            let relative = full.hasPrefix(rootPath) ? String(full.dropFirst(rootPath.count)) : url.lastPathComponent
            found.append(BatchInput(path: (directory as NSString).appendingPathComponent(relative), relativePath: relative))
        }
        return found
    }

    private static func relativeName(ofFile path: String) -> String {
        let normalized = (path as NSString).standardizingPath
        let components = normalized.split(separator: "/")
        if !path.hasPrefix("/"), !components.contains("..") {
            return components.joined(separator: "/")
        }
        let current = FileManager.default.currentDirectoryPath
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        if absolute.hasPrefix(current + "/") { return String(absolute.dropFirst(current.count + 1)) }
        return (path as NSString).lastPathComponent
    }
}
