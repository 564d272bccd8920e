import MIDICore

extension MusicSequence {
    /// The sequence played `rate` times as fast by scaling its tempo map (every Set Tempo, and the
    /// default 120 BPM when the file sets no tempo at its start), as `MusicPlayer`'s rate does: the rate
    /// is kept to 1/10000 (0.01...100). Exact when a tempo's µs per quarter divide evenly, otherwise
    /// within half a microsecond per quarter note. SMPTE-timed files have no tempo to scale.
    public func scalingTempo(by rate: Double) throws(SequenceEditError) -> MusicSequence {
        guard rate.isFinite, (0.01...100).contains(rate) else { throw .rateOutOfRange(rate) }
        guard case .ticksPerQuarter = division else { throw .noTempoInSMPTEFile }
        let speed = Int64((rate * 10_000).rounded())
        func scaled(_ microseconds: UInt32) throws(SequenceEditError) -> UInt32 {
            let value = (Int64(microseconds) * 10_000 + speed / 2) / speed
            guard value <= 0xFF_FFFF else { throw .tempoOutOfRange(microsecondsPerQuarter: value) }
            return UInt32(value)
        }
        var result = concatenatingPatterns()
        var setsTempoAtStart = false
        for track in result.tracks.indices {
            for index in result.tracks[track].events.indices {
                guard case .meta(.tempo(let microseconds)) = result.tracks[track].events[index].event else { continue }
                setsTempoAtStart = setsTempoAtStart || result.tracks[track].events[index].tick <= 0
                result.tracks[track].events[index].event = .meta(.tempo(microsecondsPerQuarter: try scaled(microseconds)))
            }
        }
        if !setsTempoAtStart, !result.tracks.isEmpty {
            result.tracks[0].events.insert(TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: try scaled(500_000)))), at: 0)
        }
        return result
    }

    /// This sequence with `other`'s tracks added after its own, as format 1. This sequence's tempo map
    /// wins: `other`'s tempo and signature events are dropped and each of its events moved to the tick
    /// of this map nearest the time it had in its own, so it sounds at the same second (within half a
    /// tick). Format 2 patterns are put one after another first.
    public func merging(_ other: MusicSequence) -> MusicSequence {
        var result = concatenatingPatterns()
        let added = other.concatenatingPatterns()
        let map = TempoMap(sequence: result), otherMap = TempoMap(sequence: added)
        for track in added.tracks {
            var events: [TimedEvent] = []
            for timed in track.events {
                if case .meta(let meta) = timed.event, [0x51, 0x58, 0x59, 0x2F].contains(meta.typeByte) { continue }
                events.append(TimedEvent(tick: map.nearestTick(toSeconds: otherMap.seconds(atTick: timed.tick)), timed.event))
            }
            events.append(TimedEvent(tick: map.nearestTick(toSeconds: otherMap.seconds(atTick: track.durationInTicks)), .meta(.endOfTrack)))
            result.tracks.append(MusicTrack(events: events))
        }
        result.format = 1
        return result
    }

    /// The sequence with each note's start moved to the nearest multiple of a 1/`noteValue` note
    /// (16: sixteenths; 12: eighth-note triplets) and its end moved with it, so notes keep their length.
    /// Other events stay where they are; at one tick, Note Offs come before Note Ons. Sequences timed in
    /// SMPTE frames count a quarter note as one second.
    public func quantizingNotes(to noteValue: Int) throws(SequenceEditError) -> MusicSequence {
        let wholeNote = 4 * division.ticksPerQuarterNote
        guard (1...Int(wholeNote)).contains(noteValue) else { throw .quantizeGridTooFine(noteValue: noteValue, wholeNoteTicks: wholeNote) }
        let steps = Int64(noteValue)
        func nearestGridTick(_ tick: Int64) -> Int64 {
            let (scaled, overflow) = tick.multipliedReportingOverflow(by: steps)
            guard !overflow, scaled <= Int64.max - wholeNote else { return tick }
            let step = (scaled + wholeNote / 2) / wholeNote
            return (step * wholeNote + steps / 2) / steps
        }
        var result = concatenatingPatterns()
        for track in result.tracks.indices {
            var events = result.tracks[track].events
            let end = result.tracks[track].durationInTicks
            var pending = NotePairing<Int64>() // shifts of the notes started and not yet ended
            for index in events.indices {
                guard case .midi(let message) = events[index].event else { continue }
                let shift = nearestGridTick(events[index].tick) - events[index].tick
                if let ended = pending.pair(message, start: { _, _, _ in shift }) {
                    events[index].tick = max(0, events[index].tick + ended.start)
                } else if message.isNoteOn {
                    events[index].tick += shift
                }
            }
            let ordered = events.enumerated().sorted {
                ($0.element.tick, $0.element.event.isNoteEnd ? 0 : 1, $0.offset) < ($1.element.tick, $1.element.event.isNoteEnd ? 0 : 1, $1.offset)
            }.map(\.element).filter { $0.event != .meta(.endOfTrack) }
            result.tracks[track].events = ordered + [TimedEvent(tick: max(end, ordered.last?.tick ?? 0), .meta(.endOfTrack))]
        }
        return result
    }
}

extension TempoMap {
    /// The tick whose time is nearest `seconds` (the earlier one of two equally near).
    public func nearestTick(toSeconds seconds: Double) -> Int64 {
        let after = tick(atSeconds: seconds)
        guard after > 0 else { return 0 }
        return seconds - self.seconds(atTick: after - 1) <= self.seconds(atTick: after) - seconds ? after - 1 : after
    }
}

extension SequenceEvent {
    /// True for a Note Off (or a Note On with velocity 0).
    var isNoteEnd: Bool {
        if case .midi(let message) = self { return message.isNoteOff }
        return false
    }
}

/// Why an edit of a sequence (`scalingTempo`, `quantizingNotes`) cannot be made.
public enum SequenceEditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A rate outside 0.01...100 (or not a number).
    case rateOutOfRange(Double)
    /// The file counts time in SMPTE frames, so there is no tempo map to scale.
    case noTempoInSMPTEFile
    /// A scaled tempo does not fit Set Tempo's 24 bits (16.7 s per quarter note).
    case tempoOutOfRange(microsecondsPerQuarter: Int64)
    /// A quantize grid finer than one tick, or below a whole note.
    case quantizeGridTooFine(noteValue: Int, wholeNoteTicks: Int64)

    public var description: String {
        switch self {
        case .rateOutOfRange(let rate): return "rate \(rate) is outside 0.01...100"
        case .noTempoInSMPTEFile: return "the file is timed in SMPTE frames: it has no tempo to scale"
        case .tempoOutOfRange(let microseconds):
            return "the scaled tempo (\(microseconds) µs per quarter note) does not fit a MIDI file's 16777215"
        case .quantizeGridTooFine(let value, let ticks):
            return "a 1/\(value) grid does not fit this file's \(ticks) ticks per whole note (1/1 to 1/\(ticks))"
        }
    }
}
