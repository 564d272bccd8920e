import Foundation
import GRDB
import SeqplaySupport
import Synchronization

/// What one `add` or `update` did.
public struct ScanSummary: Sendable, Equatable {
    /// Files found under the scanned folders (songs and SoundFonts).
    public var found = 0
    /// Files whose bytes were read (new, or size or modification time changed).
    public var read = 0
    /// Files read whose facts were (re)indexed: new or changed content.
    public var indexed = 0
    /// Files dropped from the index because they vanished.
    public var removed = 0
    /// Songs the reader repaired, and files refused, with why (path, reason).
    public var repaired = 0
    public var refused: [Refusal] = []

    /// A file the scan could not index, and why (one line, as `library add` prints it).
    public struct Refusal: Sendable, Equatable {
        public var path: String
        public var reason: String
    }
}

extension MediaLibrary {
    /// Indexes the songs and SoundFonts at `paths` (folders are searched recursively) and remembers
    /// the paths for `update`. Unchanged files already indexed are not read again.
    /// `jobs` files are read at once (default: one per core); `progress` is told (done, total).
    @discardableResult
    public func add(_ paths: [String], jobs: Int? = nil,
                    progress: (Int, Int) -> Void = { _, _ in }) throws(MediaLibraryError) -> ScanSummary {
        let roots = try Self.roots(paths)
        try access { db in
            for root in roots { try db.execute(sql: "INSERT OR IGNORE INTO roots (path) VALUES (?)", arguments: [root]) }
        }
        return try scan(roots, jobs: jobs, progress: progress)
    }

    /// Rescans every added folder and file: reads only files whose size or modification time
    /// changed (and reindexes them only when their content hash changed), indexes new files and
    /// drops the ones that vanished.
    @discardableResult
    public func update(jobs: Int? = nil, progress: (Int, Int) -> Void = { _, _ in }) throws(MediaLibraryError) -> ScanSummary {
        let roots = try access { db in try String.fetchAll(db, sql: "SELECT path FROM roots ORDER BY path") }
        return try scan(roots, jobs: jobs, progress: progress)
    }

    private struct Known {
        var id: Int64
        var size: Int64
        var modified: Int64
        var hash: String
    }

    private func scan(_ roots: [String], jobs: Int?, progress: (Int, Int) -> Void) throws(MediaLibraryError) -> ScanSummary {
        var summary = ScanSummary()
        let found = roots.flatMap(Self.files(under:))
        summary.found = found.count
        let known: [String: Known] = try access { db in
            var known: [String: Known] = [:]
            for root in roots {
                let rows = try Row.fetchAll(db, sql: "SELECT id, path, size, mtime, hash FROM files WHERE path = ? OR substr(path, 1, ?) = ?",
                                            arguments: [root, root.utf8.count + 1, root + "/"])
                for row in rows {
                    known[row["path"]] = Known(id: row["id"], size: row["size"], modified: row["mtime"], hash: row["hash"])
                }
            }
            return known
        }
        let foundPaths = Set(found.map(\.path))
        let vanished = known.filter { !foundPaths.contains($0.key) }.map(\.value.id)
        let changed = found.filter { candidate in
            guard let entry = known[candidate.path] else { return true }
            return entry.size != candidate.size || entry.modified != candidate.modified
        }
        summary.read = changed.count
        summary.removed = vanished.count

        try access { db in
            try db.inTransaction {
                for id in vanished { try db.execute(sql: "DELETE FROM files WHERE id = ?", arguments: [id]) }
                return .commit
            }
        }
        let batch = 256
        var done = 0
        progress(0, changed.count)
        for start in stride(from: 0, to: changed.count, by: batch) {
            let slice = Array(changed[start..<min(start + batch, changed.count)])
            let results = Self.readInParallel(slice, known: known, jobs: jobs ?? AvailableCores.count)
            try access { db in
                try db.inTransaction {
                    for file in results { try LibraryRecords.store(file, existing: known[file.path]?.id, in: db) }
                    return .commit
                }
            }
            for file in results {
                switch file.facts {
                case .unchanged: continue
                case .refused(let reason): summary.refused.append(.init(path: file.path, reason: reason))
                case .song(let report): if !report.warnings.isEmpty { summary.repaired += 1 }
                case .soundFont: break
                }
                summary.indexed += 1
            }
            done += slice.count
            progress(done, changed.count)
        }
        return summary
    }

    /// Reads `files` on `jobs` worker threads, each taking the next file until none is left.
    private static func readInParallel(_ files: [FoundFile], known: [String: Known], jobs: Int) -> [IndexedFile] {
        let next = Mutex(0)
        let results = Mutex([IndexedFile?](repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, files.count))) { _ in
            while true {
                let index = next.withLock { value in defer { value += 1 }; return value }
                guard index < files.count else { return }
                let file = files[index]
                let indexed = IndexedFile.read(file.path, kind: file.kind, size: file.size, modified: file.modified,
                                               knownHash: known[file.path]?.hash)
                results.withLock { $0[index] = indexed }
            }
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    struct FoundFile: Sendable {
        var path: String
        var kind: IndexedFile.Kind
        var size: Int64
        var modified: Int64
    }

    /// The songs and SoundFonts at `root`: the file itself, or every one under the folder, sorted.
    static func files(under root: String) -> [FoundFile] {
        func found(_ path: String) -> FoundFile? {
            guard let kind = IndexedFile.Kind(path: path) else { return nil }
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            return FoundFile(path: path, kind: kind, size: Int64(status.st_size), modified: modified)
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return found(root).map { [$0] } ?? [] }
        let names = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return names.sorted().compactMap { found(root + "/" + $0) }
    }

    /// The absolute paths of `paths` to add; throws `unreadable` for the first that does not exist
    /// as the system finds it (`nosuch/..` does not, though it reads as `.`; nor does an empty path).
    public static func roots(_ paths: [String]) throws(MediaLibraryError) -> [String] {
        try paths.map { (path) throws(MediaLibraryError) in
            var status = stat()
            guard !path.isEmpty else { throw .unreadable(path: "''", reason: "an empty path names no file or folder") }
            guard stat(path, &status) == 0 else { throw .unreadable(path: path, reason: "no such file or folder") }
            return absolute(path)
        }
    }

    static func absolute(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var text = url.path
        while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

extension ScanSummary: CustomStringConvertible {
    /// "12 files found, 3 read, 3 indexed (1 repaired, 0 refused), 0 removed", as `seqplay library add` prints it.
    public var description: String {
        "\(found) files found, \(read) read, \(indexed) indexed (\(repaired) repaired, \(refused.count) refused), \(removed) removed"
    }

    /// The summary for `JSONSerialization` (`LibraryTable.json`): the counts, and the refused files' paths and reasons.
    public var jsonObject: [String: Any] {
        ["found": found, "read": read, "indexed": indexed, "removed": removed, "repaired": repaired,
         "refused": refused.map { ["path": $0.path, "reason": $0.reason] }]
    }
}
