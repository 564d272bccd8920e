#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads Standard MIDI Files (formats 0, 1 and 2, PPQN or SMPTE division, bare or in a RIFF RMID
/// wrapper) into a `MusicSequence`, checking every byte it reads against the file's bounds.
///
/// In lenient mode (the default) it repairs what can be repaired (a missing End of Track, a chunk
/// length over- or undershooting, a track count not matching the header, running status at a track
/// start or after a meta event) and returns each repair as a warning; strict mode throws it instead.
/// Memory use is bounded by the file's size and time is linear in it, whatever the file declares.
public enum MIDIFileReader {
    /// The extensions (lowercase, no dot) that name a MIDI file this reader reads: `.mid`, `.midi`,
    /// `.smf`, `.kar` (karaoke) and `.rmi` (RIFF RMID). Batch renders and the media library find songs by them.
    public static let fileExtensions: Set<String> = ["mid", "midi", "smf", "kar", "rmi"]

    /// Whether repairable problems are warnings (`lenient`) or errors (`strict`).
    public enum Mode: Sendable {
        case lenient
        case strict
    }

    /// Reads the file at `path`. Errors name the file as `path`.
    public static func read(contentsOf path: String, mode: Mode = .lenient) throws(MIDIFileIssue) -> MIDIFileReadResult {
        try read(bytes: contents(of: path), name: path, mode: mode)
    }

    private struct ReadFailure: Error { var reason: String }

    /// The whole file, read once, or an `unreadable` issue with the system's reason ("No such file or
    /// directory", "Is a directory", "Permission denied").
    private static func contents(of path: String) throws(MIDIFileIssue) -> [UInt8] {
        do throws(ReadFailure) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ReadFailure(reason: String(cString: strerror(errno))) }
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw ReadFailure(reason: String(cString: strerror(errno))) }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw ReadFailure(reason: status.st_mode & S_IFMT == S_IFDIR ? "Is a directory" : "not a regular file")
            }
            return try readAll(descriptor, size: Int(status.st_size))
        } catch {
            throw MIDIFileIssue(file: path, track: nil, offset: 0, reason: .unreadable(error.reason))
        }
    }

    /// The bytes of an open file of `size` bytes (fewer if it shrank while being read).
    private static func readAll(_ descriptor: Int32, size: Int) throws(ReadFailure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw ReadFailure(reason: String(cString: strerror(errno))) }
            if count == 0 { break }  // the file shrank while being read
            filled += count
        }
        return Array(bytes[..<filled])
    }

    /// Calls `body` with the bytes of the file at `path`, valid during the call only: read once into
    /// memory (not mapped: a mapped file that another program truncates while it is read would end the
    /// process with SIGBUS; read, it is just shorter). Throws what `read(contentsOf:mode:)` throws for a
    /// file it cannot read.
    public static func withContents<Value>(ofFile path: String,
                                           _ body: (UnsafeBufferPointer<UInt8>) -> Value) throws(MIDIFileIssue) -> Value {
        try contents(of: path).withUnsafeBufferPointer(body)
    }

    /// Reads a file's bytes; `name` is the file name errors and warnings give.
    public static func read(bytes: [UInt8], name: String, mode: Mode = .lenient) throws(MIDIFileIssue) -> MIDIFileReadResult {
        var log = IssueLog(file: name, strict: mode == .strict)
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(MIDIFileIssue) in try SMFParser(bytes: buffer).parse(log: &log) }
        }
        return MIDIFileReadResult(sequence: try result.get(), warnings: log.warnings)
    }
}

/// What `MIDIFileReader` read: the sequence and the problems it repaired (empty in strict mode).
public struct MIDIFileReadResult: Sendable {
    public var sequence: MusicSequence
    public var warnings: [MIDIFileIssue]
}
