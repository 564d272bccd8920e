import SeqplaySupport

/// Why an audio file could not be written or read: the file, and what went wrong.
public struct AudioFileError: Error, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Problem: Equatable, Sendable {
        /// The extension does not name a supported format and none was given.
        case unknownExtension(String)
        /// The container cannot hold that sample format (e.g. FLAC float).
        case unsupportedSampleFormat(AudioFileFormat, AudioSampleFormat?)
        /// Writing to standard output supports only WAV.
        case streamMustBeWAV(AudioFileFormat)
        /// libsndfile refused this sample rate / channel count / format combination.
        case unsupportedSettings(String)
        /// The file could not be created in its directory (the system's reason).
        case cannotCreate(String)
        /// The file could not be opened for reading (libsndfile's reason).
        case cannotOpen(String)
        /// Writing samples failed (libsndfile's reason).
        case writeFailed(String)
        /// Reading samples failed (libsndfile's reason).
        case readFailed(String)
        /// The buffers passed do not match the writer's channel count.
        case channelCountMismatch(expected: Int, given: Int)
        /// The writer has already been finished or cancelled.
        case closed
        /// The output path is a directory.
        case isDirectory
        /// The output exists and may not be written (no write permission): it is left as it is.
        case readOnly
        /// The output is one of the inputs (the same file, given as this path).
        case isInput(String)
        /// The directory the output would be created in does not exist.
        case noDirectory(String)

        /// What went wrong, after the file's name, `path` (`-` for standard output).
        func explanation(path: String) -> String {
            switch self {
            case .unknownExtension(let ext):
                return "has extension '\(ext)', which names no supported format (\(AudioFileFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
            case .unsupportedSampleFormat(let format, let sample):
                let supported = format.supportedSampleFormats.map(\.rawValue).joined(separator: ", ")
                return "cannot be \(format.rawValue) with \(sample.map(\.rawValue) ?? "no") samples"
                    + (supported.isEmpty ? " (\(format.rawValue) is compressed and takes no sample format or bit depth)"
                                         : " (\(format.rawValue) supports: \(supported))")
            case .streamMustBeWAV(let format):
                return "is \(path == "-" ? "standard output" : "a pipe"), which takes WAV only, not \(format.rawValue)"
            case .unsupportedSettings(let reason): return "cannot be written with these settings: \(reason)"
            case .cannotCreate(let reason): return OutputFileError.Problem.cannotCreate(reason).explanation
            case .cannotOpen(let reason): return "cannot be opened: \(reason)"
            case .writeFailed(let reason): return OutputFileError.Problem.writeFailed(reason).explanation
            case .readFailed(let reason): return "could not be read: \(reason)"
            case .channelCountMismatch(let expected, let given):
                return "has \(expected) channels but \(given) were given"
            case .closed: return "was already finished or cancelled"
            case .isDirectory: return OutputFileError.Problem.isDirectory.explanation
            case .readOnly: return OutputFileError.Problem.readOnly.explanation
            case .isInput(let input): return OutputFileError.Problem.isInput(input).explanation
            case .noDirectory(let directory): return OutputFileError.Problem.noDirectory(directory).explanation
            }
        }
    }

    /// The file concerned (`-` for standard output).
    public let path: String
    /// What went wrong.
    public let problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path; self.problem = problem
    }

    public var description: String { "Audio file \(path) \(problem.explanation(path: path))" }

    /// The output's refusal or failure (`OutputTarget`, `OutputFile`) as an audio file's.
    public init(_ error: OutputFileError) {
        let problem: Problem
        switch error.problem {
        case .isDirectory: problem = .isDirectory
        case .readOnly: problem = .readOnly
        case .isInput(let input): problem = .isInput(input)
        case .noDirectory(let directory): problem = .noDirectory(directory)
        case .cannotCreate(let reason): problem = .cannotCreate(reason)
        case .writeFailed(let reason): problem = .writeFailed(reason)
        }
        self.init(path: error.path, problem: problem)
    }
}
