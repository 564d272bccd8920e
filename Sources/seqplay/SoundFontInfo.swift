import Foundation
import SoundFontFile

/// The SoundFont branch of `seqplay info`: the font's header, presets (bank:program name), counts
/// of instruments, zones and samples, and the problems found.
enum SoundFontInfo {
    /// Whether `path` is a SoundFont: a RIFF `sfbk` file, or named .sf2/.sf3.
    static func isSoundFont(_ path: String) -> Bool {
        if ["sf2", "sf3"].contains((path as NSString).pathExtension.lowercased()) { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        return head.count == 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("sfbk".utf8)
    }

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
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(contents), as: UTF8.self))
        } else {
            print(humanReadable(contents))
        }
    }

    static func humanReadable(_ font: SoundFontContents) -> String {
        var lines = ["File:      \(font.file)",
                     "Format:    \(font.format)\(font.version.map { ", version \($0)" } ?? ""), \(font.fileSize) bytes"]
        for (label, value) in [("Name", font.name), ("Author", font.author), ("Copyright", font.copyright), ("Date", font.date),
                               ("Engine", font.engine), ("Software", font.software), ("Comment", font.comment)] {
            guard let value, !value.isEmpty else { continue }
            lines.append("\(label):".padding(toLength: 11, withPad: " ", startingAt: 0) + value.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        lines.append("Contents:  \(font.presets.count) presets, \(font.instruments) instruments, \(font.zones) zones, "
                     + "\(font.samples) samples (\(font.sampleDataBytes) bytes of sample data)")
        lines.append("Presets:")
        for preset in font.presets.sorted(by: { ($0.bank, $0.program) < ($1.bank, $1.program) }) {
            lines.append("  \(preset.bank):\(preset.program)".padding(toLength: 10, withPad: " ", startingAt: 0) + preset.name)
        }
        for problem in font.problems { lines.append("Problem:   \(problem)") }
        return lines.joined(separator: "\n")
    }
}
