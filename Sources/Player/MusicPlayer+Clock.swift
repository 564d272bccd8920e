import Atomics
import MIDICore
import MIDIFile

/// The MIDI Timing Clock a player sends with `SongOptions.clock`: 24 a quarter note, through every played stretch.
extension MusicPlayer {
    /// The first Timing Clock of stretch `stretch` or a later one at or after `sampleTime`; nil without
    /// clock or when none is left.
    func firstClock(fromStretch stretch: Int, atOrAfter sampleTime: Int64 = 0) -> (stretch: Int, index: Int64, time: Int64)? {
        guard let ppq = clockTicksPerQuarter, stretch < stretches.count else { return nil }
        // Clock n sits at tick n × ppq / 24 (rounded down): the first at or after the stretch's start.
        let from = stretches[stretch].fromTick
        let (scaled, overflow) = from.multipliedReportingOverflow(by: 24)
        guard !overflow else { return nil }
        var next = clockTime(stretch: stretch, index: (scaled + ppq - 1) / ppq)
        while let candidate = next, candidate.time < sampleTime { next = clock(after: candidate) }
        return next
    }

    /// The Timing Clock after `current`: the next in its stretch, else the first of the next stretch.
    func clock(after current: (stretch: Int, index: Int64, time: Int64)) -> (stretch: Int, index: Int64, time: Int64)? {
        clockTime(stretch: current.stretch, index: current.index + 1) ?? firstClock(fromStretch: current.stretch + 1)
    }

    /// Clock `index` in `stretch`, nil when it falls past the stretch (the song's last stretch keeps
    /// the clock at its very end).
    private func clockTime(stretch: Int, index: Int64) -> (stretch: Int, index: Int64, time: Int64)? {
        guard let ppq = clockTicksPerQuarter else { return nil }
        let (scaled, overflow) = index.multipliedReportingOverflow(by: ppq)
        let tick = scaled / 24
        let played = stretches[stretch]
        guard !overflow, tick < played.toTick || (stretch == stretches.count - 1 && tick == played.toTick) else { return nil }
        let time = played.startTime + tempoMap.time(atTick: tick) - tempoMap.time(atTick: played.fromTick)
        return (stretch, index, time.sampleIndex(sampleRate: sampleRate, speed: speed, rounding: .down))
    }
}
