#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Writes a whole file's bytes where `OutputTarget` says they go: standard output, a device or FIFO
/// written through, or a regular file made complete under a temporary name beside its real path,
/// synced and renamed over it (keeping the replaced file's permissions). Every `write(2)` is checked
/// (interrupted and short writes continued, a full disk an error naming the file); on any failure
/// the temporary file is removed and the destination is left as it was.
package enum OutputFile {
    /// Writes `bytes` to `path` (`-`: standard output), refusing what `OutputTarget.resolve` refuses;
    /// `inputs` are the files the output is made from.
    package static func write(_ bytes: some ContiguousBytes, to path: String, protecting inputs: [String] = []) throws(OutputFileError) {
        try write(bytes, to: OutputTarget.resolve(path, protecting: inputs), named: path)
    }

    /// Writes `bytes` to a target already resolved from `path` (which errors name).
    package static func write(_ bytes: some ContiguousBytes, to target: OutputTarget, named path: String) throws(OutputFileError) {
        var failure: OutputFileError?
        bytes.withUnsafeBytes { buffer in
            do throws(OutputFileError) {
                try write(buffer, to: target, named: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to target: OutputTarget, named path: String) throws(OutputFileError) {
        switch target {
        case .standardOutput:
            try writeAll(bytes, to: StandardOutput.descriptor, named: path)
        case .stream(let device):
            let descriptor = open(device, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .system(path, OutputFileError.Problem.cannotCreate) }
            defer { close(descriptor) }
            try writeAll(bytes, to: descriptor, named: path)
        case .file(let real, let mode):
            let (descriptor, temporary) = try createTemporaryFile(beside: real, mode: mode, for: path)
            do {
                try writeAll(bytes, to: descriptor, named: path)
                try commit(descriptor, temporary: temporary, to: real, named: path)
            } catch {
                close(descriptor)
                unlink(temporary)
                throw error
            }
            close(descriptor)
        }
    }

    /// Writes all of `bytes` to `descriptor`, continuing after interrupted and short writes.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, named path: String) throws(OutputFileError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(descriptor, base + done, bytes.count - done)
            if written < 0 {
                if errno == EINTR { continue }
                throw .system(path, OutputFileError.Problem.writeFailed)
            }
            guard written > 0 else { throw .system(path, OutputFileError.Problem.writeFailed, errno: EIO) }
            done += written
        }
    }

    /// Creates `.<name>.<random>.tmp` beside `real` (the real path of `path`, which errors name), with
    /// the permissions `mode` of the file it will replace, or as the umask allows for a new name.
    package static func createTemporaryFile(beside real: String, mode: mode_t?, for path: String) throws(OutputFileError) -> (descriptor: Int32, path: String) {
        let directory = (real as NSString).deletingLastPathComponent
        let name = (real as NSString).lastPathComponent
        while true {
            let candidate = (directory.isEmpty ? "" : directory + "/") + ".\(name).\(UInt32.random(in: 0...UInt32.max)).tmp"
            let descriptor = open(candidate, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 {
                if let mode { fchmod(descriptor, mode) }
                return (descriptor, candidate)
            }
            if errno != EEXIST { throw .system(path, OutputFileError.Problem.cannotCreate) }
        }
    }

    /// Makes the complete temporary file the real one: synced to the disk, then renamed over `real`.
    /// The caller removes the temporary file when this throws.
    package static func commit(_ descriptor: Int32, temporary: String, to real: String, named path: String) throws(OutputFileError) {
        guard fsync(descriptor) == 0, rename(temporary, real) == 0 else { throw .system(path, OutputFileError.Problem.writeFailed) }
    }
}

/// A file written a piece at a time (the manifest of a batch: a line per input as it is done), so a
/// killed program leaves what it completed. A device, FIFO or standard output is written through; a
/// file is replaced at once, atomically, by an empty one (keeping the replaced file's permissions;
/// a symbolic link's target is the file replaced) and then appended to, each piece whole or not at
/// all: a write that fails part way is cut back off, so the file never ends in a partial piece.
/// Use from one thread at a time.
package final class AppendingOutputFile {
    /// The path as given, which errors name.
    package let path: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let isRegularFile: Bool
    /// The length of the complete pieces (a regular file's).
    private var length: off_t = 0

    /// Opens `path`, refusing what `OutputTarget.resolve` refuses.
    package init(path: String, protecting inputs: [String] = []) throws(OutputFileError) {
        self.path = path
        switch try OutputTarget.resolve(path, protecting: inputs) {
        case .standardOutput:
            (descriptor, ownsDescriptor, isRegularFile) = (StandardOutput.descriptor, false, false)
        case .stream(let device):
            let opened = open(device, O_WRONLY | O_CLOEXEC)
            guard opened >= 0 else { throw .system(path, OutputFileError.Problem.cannotCreate) }
            (descriptor, ownsDescriptor, isRegularFile) = (opened, true, false)
        case .file(let real, let mode):
            let (opened, temporary) = try OutputFile.createTemporaryFile(beside: real, mode: mode, for: path)
            guard rename(temporary, real) == 0 else {
                let failure = OutputFileError.system(path, OutputFileError.Problem.cannotCreate)
                close(opened)
                unlink(temporary)
                throw failure
            }
            (descriptor, ownsDescriptor, isRegularFile) = (opened, true, true)
        }
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Appends `bytes` whole; when that fails, a regular file is cut back to what it held before.
    package func append(_ bytes: some ContiguousBytes) throws(OutputFileError) {
        var failure: OutputFileError?
        bytes.withUnsafeBytes { buffer in
            do throws(OutputFileError) {
                try OutputFile.writeAll(buffer, to: descriptor, named: path)
                length += off_t(buffer.count)
            } catch {
                failure = error
            }
        }
        guard let failure else { return }
        if isRegularFile {
            _ = ftruncate(descriptor, length)
            _ = lseek(descriptor, length, SEEK_SET)
        }
        throw failure
    }

    /// Waits until what was appended is on the disk (a regular file's).
    package func synchronize() throws(OutputFileError) {
        guard isRegularFile else { return }
        guard fsync(descriptor) == 0 else { throw .system(path, OutputFileError.Problem.writeFailed) }
    }
}
