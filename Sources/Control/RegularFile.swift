import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The check a face's path passes before anything reads it (a font to load, a song to play): it
/// must be a regular file. A FIFO, a socket, a device or a directory is refused at once; the check
/// opens without blocking (`O_NONBLOCK`), so a FIFO no one writes holds up nothing.
public enum RegularFile {
    /// Why `path` cannot be read as a regular file (nil: it can).
    public static func problem(at path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return String(cString: strerror(errno)) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a directory"
        case S_IFIFO: return "is a FIFO, not a regular file"
        case S_IFCHR, S_IFBLK: return "is a device, not a regular file"
        case S_IFSOCK: return "is a socket, not a regular file"
        default: return "is not a regular file"
        }
    }
}
