import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The check a face's path passes before anything reads it (a font to load, a song to play): it
/// must be a regular file. A FIFO, a socket, a device or a directory is refused at once; the check
/// opens without blocking (`O_NONBLOCK`), so a FIFO no one writes holds up nothing. A font is read
/// through once before any lock is taken (`readThrough`), so a slow disk holds up no other face.
public enum RegularFile {
    /// Why `path` cannot be read as a regular file (nil: it can).
    public static func problem(at path: String) -> String? {
        withOpened(path) { _ in nil }
    }

    /// Reads the regular file at `path` through once, so that reading it again comes from the page
    /// cache (a font about to be loaded while the synthesizer is held); why it cannot be read (nil: it was).
    public static func readThrough(_ path: String) -> String? {
        withOpened(path) { fd in
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                if count < 0 { return String(cString: strerror(errno)) }
                if count == 0 { return nil }
            }
        }
    }

    /// `body` with `path` opened for reading without blocking, once it is known to be a regular file.
    private static func withOpened(_ path: String, _ body: (Int32) -> String?) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return String(cString: strerror(errno)) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return body(fd)
        case S_IFDIR: return "is a directory"
        case S_IFIFO: return "is a FIFO, not a regular file"
        case S_IFCHR, S_IFBLK: return "is a device, not a regular file"
        case S_IFSOCK: return "is a socket, not a regular file"
        default: return "is not a regular file"
        }
    }
}
