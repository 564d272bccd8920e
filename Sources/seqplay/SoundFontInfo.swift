import Foundation
import SoundFontFile

/// The SoundFont branch of `seqplay info`: the font's header, presets (bank:program name), counts
/// of instruments, zones and samples, and the problems found.
enum SoundFontInfo {
    /// Prints the report, or exits 4 (5 when the file cannot be read).
    static func run(path: String, json: Bool) throws {
        let contents: SoundFontContents
        do {
            contents = try SoundFontContents(path: path)
        } catch {
            if case .unreadable = error.problem { throw CommandFailure("\(error)", .inputOutput) }
            throw CommandFailure("\(error)", .badSoundFont)
        }
        if json {
            print(try CommandLineOutput.json(contents))
        } else {
            print(contents.humanReadable)
        }
    }
}
