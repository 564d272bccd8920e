/// Why a SoundFont file could not be loaded: the file, and what is wrong with it.
public struct SoundFontError: Error, Equatable, CustomStringConvertible {
    /// What is wrong with the file.
    public enum Problem: Equatable, Sendable {
        /// The file could not be opened or read (the system's reason).
        case unreadable(String)
        /// The file is shorter than its RIFF header says (`declared` bytes, `actual` present).
        case truncated(declared: Int, actual: Int)
        /// The file does not start with a RIFF header.
        case notRIFF
        /// The RIFF form type is not `sfbk` (the one found is given).
        case notSoundFont(form: String)
        /// A required chunk is absent.
        case missingChunk(String)
        /// A chunk's declared size runs past the end of the chunk that contains it.
        case chunkOverrun(chunk: String, size: Int, available: Int)
        /// A preset/instrument/sample table's size is not a whole number of records.
        case badRecordSize(chunk: String, size: Int, recordSize: Int)
        /// FluidSynth rejected the file after the structural checks passed (its first error, if it gave one).
        case rejectedByFluidSynth(reason: String?)

        /// What is wrong with the file, after its name.
        var explanation: String {
            switch self {
            case .unreadable(let reason): return "cannot be read: \(reason)"
            case .truncated(let declared, let actual):
                return "is truncated: the RIFF header declares \(declared) bytes but the file has \(actual)"
            case .notRIFF: return "is not a RIFF file"
            case .notSoundFont(let form): return "is a RIFF '\(form)' file, not a SoundFont ('sfbk')"
            case .missingChunk(let name): return "has no '\(name)' chunk"
            case .chunkOverrun(let chunk, let size, let available):
                return "has a '\(chunk)' chunk of \(size) bytes where only \(available) remain"
            case .badRecordSize(let chunk, let size, let recordSize):
                return "has a '\(chunk)' chunk of \(size) bytes, not a multiple of its \(recordSize)-byte records"
            case .rejectedByFluidSynth(let reason): return "was rejected by FluidSynth" + (reason.map { ": \($0)" } ?? "")
            }
        }
    }

    /// The path of the SoundFont.
    public let path: String
    /// What is wrong with it.
    public let problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path; self.problem = problem
    }

    public var description: String { "SoundFont \(path) \(problem.explanation)" }
}
