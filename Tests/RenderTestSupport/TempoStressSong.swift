import MIDICore
import MIDIFile
import TestSupport

/// A song made to test timing: clicks at irregular ticks under more than a thousand tempo changes,
/// also at irregular ticks, with an odd division. The first click is at tick 0 so a renderer's
/// constant latency can be calibrated away. Deterministic for a given seed.
public struct TempoStressSong {
    public let sequence: MusicSequence
    /// The tick of every click, in order (the first is 0).
    public let clickTicks: [Int64]
    /// Every tempo change: tick and microseconds per quarter note (the first at tick 0).
    public let tempoChanges: [(tick: Int64, microsecondsPerQuarter: UInt32)]
    public let ticksPerQuarter: Int

    /// `tempoChangeCount` tempo changes between 30 and 300 BPM every 7 to 120 ticks, and clicks
    /// at least `minimumGapSeconds` apart (so each starts after silence with the click font) until
    /// the last tempo change.
    public init(seed: UInt64 = 1, tempoChangeCount: Int = 1_200, minimumGapSeconds: Double = 0.06) {
        var random = SeededGenerator(seed: seed)
        let ticksPerQuarter = 487
        var conductor: [TimedEvent] = []
        var tick: Int64 = 0
        for _ in 0..<tempoChangeCount {
            let bpm = 30 + Double(random.next() % 2701) / 10
            conductor.append(TimedEvent(tick: tick, .meta(.tempo(microsecondsPerQuarter: UInt32(60_000_000 / bpm)))))
            tick += Int64(7 + random.next() % 114)
        }
        let tempos = conductor.map { event in
            guard case .meta(.tempo(let microseconds)) = event.event else { fatalError("conductor holds tempos only") }
            return (tick: event.tick, microsecondsPerQuarter: microseconds)
        }
        func seconds(_ tick: Int64) -> Double { Self.seconds(atTick: tick, tempoChanges: tempos, ticksPerQuarter: ticksPerQuarter) }

        // Clicks at irregular ticks, each at least the minimum gap after the one before.
        var clicks: [Int64] = [0]
        var notes: [TimedEvent] = [TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 0)))]
        while clicks.last! < tick {
            var next = clicks.last! + Int64(1 + random.next() % 97)
            while seconds(next) - seconds(clicks.last!) < minimumGapSeconds { next += Int64(1 + random.next() % 13) }
            clicks.append(next)
        }
        for click in clicks {
            notes.append(TimedEvent(tick: click, .midi(.noteOn(channel: 0, note: UInt8(40 + random.next() % 48), velocity: 100))))
        }
        // Each note ends half-way to the next click (the click itself is over after 5 ms).
        let noteOffTicks = zip(clicks, clicks.dropFirst().map { $0 } + [clicks.last! + Int64(ticksPerQuarter)]).map { ($0 + $1) / 2 }
        for (index, offTick) in noteOffTicks.enumerated() {
            guard case .midi(.noteOn(let channel, let note, _)) = notes[index + 1].event else { continue }
            notes.append(TimedEvent(tick: offTick, .midi(.noteOff(channel: channel, note: note, velocity: 0))))
        }
        notes.sort { $0.tick < $1.tick }
        let end = max(clicks.last! + Int64(ticksPerQuarter), tick)
        conductor.append(TimedEvent(tick: end, .meta(.endOfTrack)))
        notes.append(TimedEvent(tick: end, .meta(.endOfTrack)))
        sequence = MusicSequence(format: 1, division: .ticksPerQuarter(UInt16(ticksPerQuarter)),
                                 tracks: [MusicTrack(events: conductor), MusicTrack(events: notes)])
        clickTicks = clicks
        tempoChanges = tempos
        self.ticksPerQuarter = ticksPerQuarter
    }
}

extension TempoStressSong {
    /// The exact sample index (rounded to nearest) of every click at `sampleRate`, worked out here
    /// independently of the player's tempo map: the sum of each tempo segment's duration.
    public func clickSampleTimes(sampleRate: Int) -> [Int] {
        clickTicks.map { tick in
            Int((Self.seconds(atTick: tick, tempoChanges: tempoChanges, ticksPerQuarter: ticksPerQuarter) * Double(sampleRate)).rounded())
        }
    }

    static func seconds(atTick tick: Int64, tempoChanges: [(tick: Int64, microsecondsPerQuarter: UInt32)], ticksPerQuarter: Int) -> Double {
        var microseconds = 0.0
        for (index, change) in tempoChanges.enumerated() where change.tick < tick {
            let segmentEnd = min(tick, index + 1 < tempoChanges.count ? tempoChanges[index + 1].tick : tick)
            microseconds += Double(segmentEnd - change.tick) * Double(change.microsecondsPerQuarter) / Double(ticksPerQuarter)
        }
        return microseconds / 1_000_000
    }
}

