import SeqplaySupport
/// Why the library cannot be opened, scanned or queried.
public enum MediaLibraryError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The database file exists but is not an SQLite database, or is damaged.
    case notADatabase(path: String, reason: String)
    /// The database file is an SQLite database of some other program (it is left untouched).
    case foreignDatabase(path: String)
    /// The database was written by a newer seqplay.
    case newerSchema(path: String, version: Int)
    /// The path names a directory, device, FIFO or socket (`kind`), which cannot hold a database.
    case notAFile(path: String, kind: String)
    /// The library would be changed but its file is read-only (it is left untouched).
    case readOnly(path: String)
    /// There is no library at the path yet.
    case noLibrary(path: String)
    /// A file or folder to add does not exist or cannot be read.
    case unreadable(path: String, reason: String)
    /// The database failed while working (the system's or SQLite's message).
    case database(path: String, message: String)
    /// A `--where`, `--sort` or `--group-by` that cannot be understood.
    case query(QueryError)

    public var description: String {
        switch self {
        case .notADatabase(let path, let reason):
            return "\(path) is not a seqplay library: it is not an SQLite database or it is damaged (\(reason)); it was left untouched"
        case .foreignDatabase(let path):
            return "\(path) is an SQLite database of another program, not a seqplay library; it was left untouched (choose another file with --db)"
        case .newerSchema(let path, let version):
            return "\(path) was written by a newer seqplay (library schema \(version)); it was left untouched"
        case .notAFile(let path, let kind):
            return "\(path) is \(kind), not a library database file; it was left untouched (choose a file with --db)"
        case .readOnly(let path):
            return OutputFileError(path: path, problem: .readOnly).description
        case .noLibrary(let path):
            return "there is no library at \(path) yet: add files with 'seqplay library add DIR'"
        case .unreadable(let path, let reason):
            return "\(path) cannot be read: \(reason)"
        case .database(let path, let message):
            return "library \(path): \(message)"
        case .query(let error):
            return "bad query: \(error)"
        }
    }
}
