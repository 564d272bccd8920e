import MIDICore

extension MusicSequence {
    /// The part of the sequence from `start` up to `end` (the sequence's end when nil), moved to start
    /// at tick 0, so that it plays as `MusicPlayer` plays the whole sequence with that start and end.
    ///
    /// What was set before `start` still applies: the tempo, time and key signature in effect there are
    /// written at tick 0 of the first track, and the controller, program, pitch-bend, pressure and SysEx
    /// messages a player's chase would send (`Chase`) at tick 0 of their own tracks, in their order.
    /// Names, copyright, ports and other text metas from before `start` are kept at tick 0; lyrics,
    /// markers, cue points and SMPTE offsets are dropped. Notes still held at `end` get a Note Off there,
    /// and every track ends at `end - start`. Format 2 patterns are put one after another first.
    /// A start after the end gives an empty excerpt.
    public func excerpt(fromTick start: Int64, toTick end: Int64? = nil) -> MusicSequence {
        let source = concatenatingPatterns()
        let start = max(0, start)
        let end = max(start, end ?? source.durationInTicks)
        let length = end - start

        // Everything before the start, in the order a player meets it: by tick, track, then position.
        var history: [(track: Int, index: Int, timed: TimedEvent)] = []
        for (track, events) in source.tracks.enumerated() {
            for (index, timed) in events.events.enumerated() where timed.tick < start {
                history.append((track, index, timed))
            }
        }
        history.sort { ($0.timed.tick, $0.track, $0.index) < ($1.timed.tick, $1.track, $1.index) }

        var opening = [[TimedEvent]](repeating: [], count: source.tracks.count)
        for kind in [UInt8(0x51), 0x58, 0x59] {
            if let last = history.last(where: { if case .meta(let meta) = $0.timed.event { meta.typeByte == kind } else { false } }) {
                opening[0].append(TimedEvent(tick: 0, last.timed.event))
            }
        }
        let chased = Chase.stateEntries(from: history) { $0.timed.event.playableMessage }
        let kept = Set(chased.map { [$0.track, $0.index] })
        for entry in history.sorted(by: { ($0.track, $0.index) < ($1.track, $1.index) })
        where kept.contains([entry.track, entry.index]) || Self.keepsBeforeCut(entry.timed.event) {
            opening[entry.track].append(TimedEvent(tick: 0, entry.timed.event))
        }

        var tracks: [MusicTrack] = []
        for (index, track) in source.tracks.enumerated() {
            var events = opening[index]
            var held: [NoteKey: Int] = [:]
            for timed in track.events where timed.tick >= start && timed.tick < end && timed.event != .meta(.endOfTrack) {
                events.append(TimedEvent(tick: timed.tick - start, timed.event))
                if case .midi(let message) = timed.event { NoteKey.count(message, in: &held) }
            }
            for key in held.keys.sorted() {
                events.append(TimedEvent(tick: length, .midi(.noteOff(channel: key.channel, note: key.note, velocity: 0))))
            }
            events.append(TimedEvent(tick: length, .meta(.endOfTrack)))
            tracks.append(MusicTrack(events: events))
        }
        return MusicSequence(format: source.format, division: division, tracks: tracks)
    }

    /// Whether an event from before a cut is kept (at tick 0): the metas that describe a track or the
    /// song rather than a moment of it. Tempo, signatures and channel messages are handled apart.
    private static func keepsBeforeCut(_ event: SequenceEvent) -> Bool {
        guard case .meta(let meta) = event else { return false }
        switch meta {
        case .text(let kind, _): return ![MetaTextKind.lyric, .marker, .cuePoint].contains(kind)
        case .sequenceNumber, .channelPrefix, .port, .sequencerSpecific, .raw: return true
        case .endOfTrack, .tempo, .smpteOffset, .timeSignature, .keySignature: return false
        }
    }
}
