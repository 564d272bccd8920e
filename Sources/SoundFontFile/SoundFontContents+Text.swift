import Foundation

extension SoundFontContents {
    /// Whether the file at `path` is a SoundFont: named .sf2/.sf3, or a RIFF `sfbk` file (its first 12 bytes).
    public static func isSoundFont(atPath path: String) -> Bool {
        if ["sf2", "sf3"].contains((path as NSString).pathExtension.lowercased()) { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        return head.count == 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("sfbk".utf8)
    }

    /// The contents as people read them (what `seqplay info FONT.sf2` prints): the header, the counts,
    /// the presets by bank:program, the problems.
    public var humanReadable: String {
        var lines = ["File:      \(file)",
                     "Format:    \(format)\(version.map { ", version \($0)" } ?? ""), \(fileSize) bytes"]
        for (label, value) in [("Name", name), ("Author", author), ("Copyright", copyright), ("Date", date),
                               ("Engine", engine), ("Software", software), ("Comment", comment)] {
            guard let value, !value.isEmpty else { continue }
            lines.append("\(label):".padding(toLength: 11, withPad: " ", startingAt: 0) + value.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        lines.append("Contents:  \(presets.count) presets, \(instruments) instruments, \(zones) zones, "
                     + "\(samples) samples (\(sampleDataBytes) bytes of sample data)")
        lines.append("Presets:")
        for preset in presets.sorted(by: { ($0.bank, $0.program) < ($1.bank, $1.program) }) {
            lines.append("  \(preset.bank):\(preset.program)".padding(toLength: 10, withPad: " ", startingAt: 0) + preset.name)
        }
        for problem in problems { lines.append("Problem:   \(problem)") }
        return lines.joined(separator: "\n")
    }
}
