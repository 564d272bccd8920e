#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where an output file's bytes go, decided before anything is written, the way careful Unix tools
/// (sox, rsync) decide it: nothing that is there is destroyed by accident.
///
/// - `-` is standard output.
/// - A character device or FIFO (`/dev/null`, a named pipe) is written through, as a stream: it is
///   opened for writing, never replaced.
/// - A symbolic link is followed to the file it names, and that file is the one replaced.
/// - A regular file (or a new name) is written beside its real path under a temporary name and
///   renamed over it only when complete, keeping the permissions of the file it replaces.
///
/// Refused: a directory, a read-only file (no write permission bit, even for root), a directory that
/// does not exist, and any output that is one of the inputs (the same inode: the MIDI file, a
/// SoundFont), so a render can never overwrite what it reads.
///
/// `OutputFile` writes a whole file's bytes to a target, `AppendingOutputFile` a file line by line;
/// `AudioFileWriter` streams audio to one.
package enum OutputTarget: Equatable, Sendable {
    /// Standard output.
    case standardOutput
    /// A character device or FIFO, written through.
    case stream(path: String)
    /// A regular file at `path` (symbolic links resolved), written atomically; `replacingMode` is the
    /// permission bits of the file it replaces, `nil` when the name is new.
    case file(path: String, replacingMode: mode_t?)

    /// Decides where `path` writes, refusing what must not be written. `inputs` are the files the
    /// output is made from; paths that do not exist among them are ignored.
    package static func resolve(_ path: String, protecting inputs: [String] = []) throws(OutputFileError) -> OutputTarget {
        func fail(_ problem: OutputFileError.Problem) -> OutputFileError { OutputFileError(path: path, problem: problem) }
        if path == "-" { return .standardOutput }
        guard !path.isEmpty else { throw fail(.cannotCreate("empty file name")) }
        let real = try followLinks(path)
        var status = stat()
        guard stat(real, &status) == 0 else {
            guard errno == ENOENT else { throw fail(.cannotCreate(String(cString: strerror(errno)))) }
            let directory = (real as NSString).deletingLastPathComponent
            var directoryStatus = stat()
            if !directory.isEmpty, stat(directory, &directoryStatus) != 0 || directoryStatus.st_mode & S_IFMT != S_IFDIR {
                throw fail(.noDirectory(directory))
            }
            return .file(path: real, replacingMode: nil)
        }
        for input in inputs {
            var inputStatus = stat()
            if stat(input, &inputStatus) == 0, inputStatus.st_dev == status.st_dev, inputStatus.st_ino == status.st_ino {
                throw fail(.isInput(input))
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw fail(.isDirectory)
        case S_IFCHR, S_IFIFO:
            guard access(real, W_OK) == 0 else { throw fail(.readOnly) }
            return .stream(path: real)
        case S_IFREG:
            guard status.st_mode & 0o222 != 0, access(real, W_OK) == 0 else { throw fail(.readOnly) }
            return .file(path: real, replacingMode: status.st_mode & 0o7777)
        default:
            throw fail(.cannotCreate("not a regular file, character device or FIFO"))
        }
    }

    /// `path` with every symbolic link in its last component followed (also a link to a name that
    /// does not exist yet, which is then created); relative link targets are taken from the link's
    /// directory.
    private static func followLinks(_ path: String) throws(OutputFileError) -> String {
        var current = path
        for _ in 0..<40 {  // the kernel's own limit on links in a lookup
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = target.hasPrefix("/") ? target
                : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        }
        throw OutputFileError.system(path, OutputFileError.Problem.cannotCreate, errno: ELOOP)
    }
}
