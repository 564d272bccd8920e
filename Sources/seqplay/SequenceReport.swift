import Foundation
import MIDIFile

/// What `seqplay info` tells about a MIDI file, in the shape its `--json` output has.
struct SequenceReport: Codable, Equatable {
    struct Division: Codable, Equatable {
        var ticksPerQuarter: Int?
        var framesPerSecond: Int?
        var ticksPerFrame: Int?
    }

    struct Duration: Codable, Equatable {
        var ticks: Int64
        var seconds: Double
        var bars: Double
    }

    struct TempoRange: Codable, Equatable {
        var minimumBPM: Double
        var maximumBPM: Double
        /// Tempo changes after the initial tempo.
        var changes: Int
    }

    struct Track: Codable, Equatable {
        var index: Int
        var name: String?
        var instrumentName: String?
        /// 1-based, as musicians number MIDI channels.
        var channels: [Int]
        var programs: [Program]
        var notes: Int
        var events: Int
    }

    struct Program: Codable, Equatable {
        /// 1-based channel.
        var channel: Int
        /// 0-based program number.
        var program: Int
        var instrument: String
    }

    /// An event at a place in the song: a signature, marker, lyric or text.
    struct Placed: Codable, Equatable {
        var tick: Int64
        var position: String
        var seconds: Double
        var kind: String?
        var value: String
    }

    var file: String
    var format: Int
    var division: Division
    var duration: Duration
    var tempo: TempoRange?
    /// Every tempo in effect, from tick 0 on (none for SMPTE-timed files).
    var tempos: [Tempo]
    var tracks: [Track]
    var timeSignatures: [Placed]
    var keySignatures: [Placed]
    var markers: [Placed]
    var lyrics: [Placed]
    var texts: [Placed]
    var warnings: [String]

    /// The report for `sequence` read from `file` with the reader's `warnings`. Format 2 patterns
    /// are timed one after another, as the player plays them.
    init(file: String, sequence: MusicSequence, warnings: [String]) {
        let timeline = sequence.concatenatingPatterns()
        let map = TempoMap(sequence: timeline)
        func placed(_ tick: Int64, _ kind: String?, _ value: String) -> Placed {
            Placed(tick: tick, position: map.barBeatTick(atTick: tick).description, seconds: map.seconds(atTick: tick), kind: kind, value: value)
        }

        self.file = file
        format = sequence.format
        switch sequence.division {
        case .ticksPerQuarter(let ppq): division = Division(ticksPerQuarter: Int(ppq))
        case .smpte(let fps, let ticks): division = Division(framesPerSecond: Int(fps), ticksPerFrame: Int(ticks))
        }
        duration = Duration(ticks: map.endTick, seconds: map.durationInSeconds, bars: map.durationInBars)
        tempo = map.tempoRange.map { TempoRange(minimumBPM: $0.lowerBound, maximumBPM: $0.upperBound, changes: map.tempoChanges.count - 1) }
        tempos = map.tempoChanges.map { Tempo(placed: placed($0.tick, nil, ""), microsecondsPerQuarter: Int($0.microsecondsPerQuarter)) }
        tracks = sequence.trackSummaries.enumerated().map { index, summary in
            Track(index: index, name: summary.name, instrumentName: summary.instrumentName,
                  channels: summary.channels.map { $0 + 1 },
                  programs: summary.programs.map { Program(channel: $0.channel + 1, program: $0.program, instrument: $0.instrument) },
                  notes: summary.noteCount, events: summary.eventCount)
        }
        timeSignatures = map.timeSignatures.map { placed($0.tick, nil, "\($0.numerator)/\($0.denominator)") }
        keySignatures = map.keySignatures.map { placed($0.tick, nil, $0.name) }

        var markers: [Placed] = [], lyrics: [Placed] = [], texts: [Placed] = []
        for timed in timeline.mergedToFormat0().tracks[0].events {
            guard case .meta(let meta) = timed.event, case .text(let kind, _) = meta, let text = meta.text else { continue }
            switch kind {
            case .marker: markers.append(placed(timed.tick, nil, text))
            case .lyric: lyrics.append(placed(timed.tick, nil, text))
            case .text, .copyright, .cuePoint: texts.append(placed(timed.tick, SequenceReport.name(of: kind), text))
            default: continue
            }
        }
        self.markers = markers
        self.lyrics = lyrics
        self.texts = texts
        self.warnings = warnings
    }

    private static func name(of kind: MetaTextKind) -> String {
        switch kind {
        case .copyright: return "copyright"
        case .cuePoint: return "cue"
        default: return "text"
        }
    }
}

extension SequenceReport {
    /// The report as people read it.
    var humanReadable: String {
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
