import Foundation
import MIDIFile
import Synchronization

/// One MIDI file of a batch: where it is, and the path its outputs keep under the output directory.
public struct BatchInput: Hashable, Sendable {
    /// The file as found (a path given, read from a list, or found under a directory given).
    public var path: String
    /// Its path under the output directory, extension included (outputs drop it unless
    /// `keepsExtension`): relative to the directory it was found under; for a file named directly,
    /// relative to the current directory when it lies inside it, else to the folder all the files
    /// named directly outside it have in common (its name alone when it is the only one).
    /// `BatchInputDiscovery` changes it for inputs whose outputs would collide.
    public var relativePath: String
    /// Whether its outputs keep the input's extension in their names (`t.kar.wav`): set by
    /// `BatchInputDiscovery` for files told apart from another input only by their extensions.
    public var keepsExtension = false

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

    /// Its outputs' path under the output directory, without their extension: `relativePath`
    /// without its extension (with it when `keepsExtension`).
    public var outputName: String {
        keepsExtension ? relativePath : (relativePath as NSString).deletingPathExtension
    }

    /// Where an output with `pathExtension` (and an optional `suffix` before it, such as `.ch10`
    /// for a stem) goes under `directory`.
    public func outputPath(in directory: String, suffix: String = "", pathExtension: String) -> String {
        (directory as NSString).appendingPathComponent(outputName + suffix + "." + pathExtension)
    }
}

/// Finds the MIDI files of a batch: files named directly (whatever their extension), and every file
/// with a MIDI extension (`MIDIFileReader.fileExtensions`, any case) under directories, recursively.
/// The result is sorted by relative path, duplicates removed, and no two inputs share an output name
/// (`NameCollision`).
public enum BatchInputDiscovery {

    /// Why a path given cannot be used.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// What `find` found.
    public struct Discovery: Sendable {
        /// The inputs, sorted by relative path, no two with one output name.
        public var inputs: [BatchInput]
        /// Paths that cannot be used, and inputs left out for want of an output name of their own.
        public var problems: [Problem]
        /// Inputs whose outputs would have had one name, and the names they were given instead.
        public var collisions: [NameCollision]
    }

    /// The inputs of `paths` (files and directories), as `find` finds them; paths that do not exist
    /// or cannot be listed come back as problems, not errors, so the batch can go on without them.
    public static func discover(_ paths: [String]) -> (inputs: [BatchInput], problems: [Problem]) {
        let found = find(paths)
        return (found.inputs, found.problems)
    }

    /// The inputs of `paths` (files and directories), sorted by relative path, each file once (the
    /// first relative path it was reached by), and no two with one output name: inputs that would
    /// share one are told apart (`NameCollision`). Paths that do not exist or cannot be listed come
    /// back as problems, not errors, so the batch can go on without them.
    public static func find(_ paths: [String]) -> Discovery {
        var inputs: [BatchInput] = []
        var problems: [Problem] = []
        var outside: [String] = []
        let fileManager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append(Problem(path: path, reason: "no such file or directory"))
                continue
            }
            if isDirectory.boolValue {
                inputs += files(under: path, problems: &problems)
            } else if let relative = nameInCurrentDirectory(ofFile: path) {
                inputs.append(BatchInput(path: path, relativePath: relative))
            } else {
                outside.append(path)
            }
        }
        let outsideFolder = commonFolder(outside.map { (absolute($0) as NSString).deletingLastPathComponent })
        inputs += outside.map { BatchInput(path: $0, relativePath: relative(absolute($0), under: outsideFolder)) }
        var seen = Set<String>()
        inputs = inputs.sorted { ($0.relativePath, $0.path) < ($1.relativePath, $1.path) }.filter { seen.insert(absolute($0.path)).inserted }
        let named = separatingOutputNames(inputs)
        return Discovery(inputs: named.inputs, problems: problems + named.problems, collisions: named.collisions)
    }

    /// Paths read from `text`, one a line (blank lines ignored; a trailing `\r` dropped).
    public static func paths(fromList text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { String($0) }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    private static func files(under directory: String, problems: inout [Problem]) -> [BatchInput] {
        let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
        let unlisted = Mutex<[Problem]>([])
        defer { problems += unlisted.withLock { $0 } }
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [],
            errorHandler: { url, error in
                unlisted.withLock { $0.append(Problem(path: url.path, reason: "cannot list: \(error.localizedDescription)")) }
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

    /// A file's path relative to the current directory, nil when it lies outside it.
    private static func nameInCurrentDirectory(ofFile path: String) -> String? {
        let normalized = (path as NSString).standardizingPath
        let components = normalized.split(separator: "/")
        if !path.hasPrefix("/"), !components.contains("..") {
            return components.joined(separator: "/")
        }
        let current = FileManager.default.currentDirectoryPath
        let absolute = absolute(path)
        return absolute.hasPrefix(current + "/") ? String(absolute.dropFirst(current.count + 1)) : nil
    }

    /// `path` made absolute (from the current directory), `.` and `..` resolved; links are not followed.
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The deepest folder holding every one of the absolute `folders` (`/` at worst).
    static func commonFolder(_ folders: [String]) -> String {
        guard var common = folders.first?.split(separator: "/") else { return "/" }
        for folder in folders.dropFirst() {
            let components = folder.split(separator: "/")
            common = Array(zip(common, components).prefix { $0 == $1 }.map(\.0))
        }
        return "/" + common.joined(separator: "/")
    }

    /// The absolute `path` relative to `folder`, which holds it.
    static func relative(_ path: String, under folder: String) -> String {
        String(path.dropFirst(folder == "/" ? 1 : folder.count + 1))
    }
}
