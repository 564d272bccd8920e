import Foundation

extension SequenceReport {
    /// The report as people read it (what `seqplay info` prints).
    public var humanReadable: String {
        var lines: [String] = []
        let divisionText = division.ticksPerQuarter.map { "\($0) ticks per quarter note" }
            ?? "SMPTE \(division.framesPerSecond == 29 ? "29.97" : String(division.framesPerSecond ?? 0)) fps, \(division.ticksPerFrame ?? 0) ticks per frame"
        lines.append("File:      \(file)")
        lines.append("Format:    \(format), \(tracks.count) track\(tracks.count == 1 ? "" : "s"), \(divisionText)")
        lines.append("Duration:  \(Self.clock(duration.seconds)) (\(Self.decimal(duration.seconds, 3)) s), \(Self.decimal(duration.bars, 2)) bars, \(duration.ticks) ticks")
        if let tempo {
            let range = tempo.minimumBPM == tempo.maximumBPM ? Self.decimal(tempo.minimumBPM, 2)
                : "\(Self.decimal(tempo.minimumBPM, 2))–\(Self.decimal(tempo.maximumBPM, 2))"
            let changes = tempo.changes == 0 ? "constant" : "\(tempo.changes) change\(tempo.changes == 1 ? "" : "s")"
            lines.append("Tempo:     \(range) BPM (\(changes))")
        }
        lines.append("Time:      " + timeSignatures.map { "\($0.value) at \($0.position)" }.joined(separator: ", "))
        if !keySignatures.isEmpty {
            lines.append("Key:       " + keySignatures.map { "\($0.value) at \($0.position)" }.joined(separator: ", "))
        }
        lines += tempoMapLines
        lines.append("Tracks:")
        for track in tracks {
            var parts = ["  \(track.index)".padding(toLength: 5, withPad: " ", startingAt: 0) + (track.name.map { "\"\($0)\"" } ?? "(no name)")]
            if let instrument = track.instrumentName { parts.append("instrument \"\(instrument)\"") }
            if !track.channels.isEmpty { parts.append("channel\(track.channels.count == 1 ? "" : "s") " + track.channels.map(String.init).joined(separator: ",")) }
            if !track.programs.isEmpty { parts.append(track.programs.map { "\($0.instrument) (\($0.program))" }.joined(separator: ", ")) }
            parts.append("\(track.notes) note\(track.notes == 1 ? "" : "s")")
            lines.append(parts.joined(separator: "  "))
        }
        for marker in markers { lines.append("Marker:    \(marker.position)  \(Self.oneLine(marker.value))") }
        for copyright in texts where copyright.kind == "copyright" { lines.append("Copyright: \(Self.oneLine(copyright.value))") }
        let otherTexts = texts.filter { $0.kind != "copyright" }
        for text in otherTexts.prefix(Self.textsShown) { lines.append("Text:      \(text.position)  \(Self.oneLine(text.value))") }
        if otherTexts.count > Self.textsShown {
            lines.append("           … \(otherTexts.count - Self.textsShown) more text events (--json lists them all)")
        }
        if !lyrics.isEmpty {
            lines.append("Lyrics:    \(lyrics.count) events: " + Self.oneLine(lyrics.map(\.value).joined()).prefix(200))
        }
        for warning in warnings { lines.append("Warning:   \(warning)") }
        return lines.joined(separator: "\n")
    }

    /// How many text events the human-readable report lists (karaoke files have hundreds).
    private static let textsShown = 5

    /// `text` with line breaks and surrounding blanks turned into single spaces.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    private static func decimal(_ value: Double, _ places: Int) -> String {
        guard abs(value * pow10(places)) < 1e18 else { return String(value) }
        var text = String(Double(Int64((value * pow10(places)).rounded())) / pow10(places))
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    private static func pow10(_ places: Int) -> Double {
        (0..<places).reduce(1) { value, _ in value * 10 }
    }

    /// "m:ss.s" for a time in seconds.
    private static func clock(_ seconds: Double) -> String {
        guard seconds < 1e15 else { return "—" }
        let tenths = Int64((seconds * 10).rounded())
        let minutes = tenths / 600, rest = tenths % 600
        return "\(minutes):\(rest < 100 ? "0" : "")\(rest / 10).\(rest % 10)"
    }
}

extension SequenceReport {
    /// The tempo map as a table: every tempo and time signature, by tick (time signatures first at a tick).
    public var tempoMapLines: [String] {
        let rows = (timeSignatures.map { ($0.tick, 0, $0.position, $0.seconds, "\($0.value) time") }
            + tempos.map { ($0.tick, 1, $0.position, $0.seconds, ($0.bpm.map { String(format: "%.3f BPM", $0) } ?? "0 µs") + " (\($0.microsecondsPerQuarter) µs per quarter)") })
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        guard rows.count > 2 || tempos.count > 1 else { return [] }
        let header = ["tick", "bar:beat:tick", "seconds", "change"]
        let cells = rows.map { [String($0.0), $0.2, String(format: "%.3f", $0.3), $0.4] }
        let widths = (0..<3).map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            "  " + (0..<3).map { row[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined() + row[3]
        }
        return ["Tempo map:", line(header)] + cells.map(line)
    }
}
