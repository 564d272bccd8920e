#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Why an output file was refused or could not be written: the path as the user gave it, and what
/// is wrong with it. Every file seqplay writes reports these in the same words (`AudioFileError`
/// reuses `Problem.explanation`).
public struct OutputFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Hashable, Sendable {
        /// The output path is a directory.
        case isDirectory
        /// The output exists and may not be written (no write permission): it is left as it is.
        case readOnly
        /// The output is one of the inputs (the same file, given as this path).
        case isInput(String)
        /// The directory the output would be created in does not exist.
        case noDirectory(String)
        /// The file could not be created or opened (the system's reason).
        case cannotCreate(String)
        /// Writing the bytes failed (the system's reason: no space left on device…).
        case writeFailed(String)

        /// What is wrong, after the file's name: "is a directory".
        public var explanation: String {
            switch self {
            case .isDirectory: return "is a directory"
            case .readOnly: return "is read-only; it was left as it is"
            case .isInput(let input): return "is the input \(input); refusing to overwrite it (choose another output name)"
            case .noDirectory(let directory): return "cannot be created: directory \(directory) does not exist"
            case .cannotCreate(let reason): return "cannot be created: \(reason)"
            case .writeFailed(let reason): return "could not be written: \(reason)"
            }
        }
    }

    /// The file concerned, as given (`-` for standard output).
    public let path: String
    public let problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// `problem` with the system's description of `errno`.
    static func system(_ path: String, _ make: (String) -> Problem, errno code: Int32 = errno) -> OutputFileError {
        OutputFileError(path: path, problem: make(String(cString: strerror(code))))
    }

    public var description: String { "\(path) \(problem.explanation)" }
}
