import MIDICore
import MIDIFile

/// A song laid out in seconds for drawing: its notes (start, end, key, velocity, track, channel),
/// bar starts, tempo and time-signature changes, all timed by the exact tempo map. Format 2
/// patterns are put one after another, as the player plays them.
public struct SongTimeline: Sendable {
    /// A note of the song: when it starts and ends (seconds), its key, velocity, channel and track.
    public struct Note: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var key: Int
        public var velocity: Int
        public var track: Int
        public var channel: Int
    }

    /// A change drawn on the time axis: its time and its label ("♩=120", "3/4").
    public struct Change: Sendable, Equatable {
        public var seconds: Double
        public var label: String
    }

    public let notes: [Note]
    /// Start of each bar in seconds, bar 1 first.
    public let barStarts: [Double]
    public let tempoChanges: [Change]
    public let timeSignatures: [Change]
    public let duration: Double
    /// The name of each track (nil where it has none).
    public let trackNames: [String?]

    /// At most this many bar starts are listed (a 100,000-bar file draws no more lines than pixels).
    static let maximumBars = 4_000

    public init(sequence: MusicSequence) {
        let timeline = sequence.concatenatingPatterns()
        let map = TempoMap(sequence: timeline)
        duration = map.durationInSeconds
        trackNames = timeline.trackSummaries.map(\.name)

        let notes = timeline.pairedNotes(endTick: map.endTick).map { note in
            Note(start: map.seconds(atTick: note.start), end: map.seconds(atTick: note.end), key: Int(note.key),
                 velocity: Int(note.velocity), track: note.track, channel: Int(note.channel))
        }
        self.notes = notes.sorted { ($0.start, $0.track, $0.key) < ($1.start, $1.track, $1.key) }

        var bars: [Double] = []
        if case .ticksPerQuarter = timeline.division {
            let count = min(Int(map.durationInBars.rounded(.up)), Self.maximumBars)
            for bar in 0..<max(1, count) {
                bars.append(map.seconds(atTick: map.tick(at: BarBeatTick(bar: Int64(bar + 1)))))
            }
        }
        barStarts = bars
        tempoChanges = map.tempoChanges.filter { $0.microsecondsPerQuarter > 0 }.map {
            Change(seconds: map.seconds(atTick: $0.tick), label: "♩=\(Int($0.beatsPerMinute.rounded()))")
        }
        timeSignatures = map.timeSignatures.map { Change(seconds: map.seconds(atTick: $0.tick), label: "\($0.numerator)/\($0.denominator)") }
    }
}
