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

        var notes: [Note] = []
        for (trackIndex, track) in timeline.tracks.enumerated() {
            var held: [Int: [(tick: Int64, velocity: Int)]] = [:]
            func end(_ channel: UInt8, _ key: UInt8, at tick: Int64) {
                let slot = Int(channel) * 128 + Int(key)
                guard var started = held[slot], !started.isEmpty else { return }
                let first = started.removeFirst()
                held[slot] = started
                notes.append(Note(start: map.seconds(atTick: first.tick), end: map.seconds(atTick: tick), key: Int(key),
                                  velocity: first.velocity, track: trackIndex, channel: Int(channel)))
            }
            for timed in track.events {
                guard case .midi(let message) = timed.event else { continue }
                switch message {
                case .noteOn(let channel, let key, let velocity) where velocity > 0:
                    held[Int(channel) * 128 + Int(key), default: []].append((timed.tick, Int(velocity)))
                case .noteOn(let channel, let key, _), .noteOff(let channel, let key, _):
                    end(channel, key, at: timed.tick)
                default:
                    continue
                }
            }
            for (slot, started) in held {
                for _ in started { end(UInt8(slot / 128), UInt8(slot % 128), at: map.endTick) }
            }
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
