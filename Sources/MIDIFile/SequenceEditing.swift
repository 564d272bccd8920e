import MIDICore

extension MusicTrack {
    /// The tick of the track's last event (End of Track included), 0 when empty.
    public var durationInTicks: Int64 {
        events.last?.tick ?? 0
    }

    /// Inserts `event` after every event at the same or an earlier tick, keeping tick order.
    /// A trailing End of Track stays last: it moves later when the event lies beyond it.
    public mutating func insert(_ event: TimedEvent) {
        var endOfTrack: TimedEvent?
        if let last = events.last, last.event == .meta(.endOfTrack), event.event != .meta(.endOfTrack) {
            endOfTrack = events.removeLast()
        }
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].tick <= event.tick { low = middle + 1 } else { high = middle }
        }
        events.insert(event, at: low)
        if var end = endOfTrack {
            end.tick = max(end.tick, event.tick)
            events.append(end)
        }
    }

    /// Removes the events matching `predicate`, except a trailing End of Track; order is kept.
    public mutating func removeEvents(where predicate: (TimedEvent) -> Bool) {
        let lastIndex = events.indices.last
        events = events.enumerated().filter { index, timed in
            (index == lastIndex && timed.event == .meta(.endOfTrack)) || !predicate(timed)
        }.map(\.element)
    }
}

extension MusicSequence {
    /// The sequence's length in ticks: the latest last event (End of Track included) of any track.
    /// For format 2 patterns, which play one after another, this is the longest pattern.
    public var durationInTicks: Int64 {
        tracks.map(\.durationInTicks).max() ?? 0
    }

    /// Inserts `event` into track `trackIndex` in tick order (see `MusicTrack.insert`).
    public mutating func insert(_ event: TimedEvent, intoTrack trackIndex: Int) {
        tracks[trackIndex].insert(event)
    }

    /// The sequence as format 0: all events in one track, ordered by tick and, at the same tick, by
    /// track index (then by their order in the track). The End of Track events are replaced by one at
    /// the end. Format 2 patterns are first put one after another (`concatenatingPatterns()`).
    public func mergedToFormat0() -> MusicSequence {
        let source = format == 2 ? concatenatingPatterns() : self
        var merged: [(tick: Int64, track: Int, index: Int, event: TimedEvent)] = []
        for (trackIndex, track) in source.tracks.enumerated() {
            for (index, timed) in track.events.enumerated() where timed.event != .meta(.endOfTrack) {
                merged.append((timed.tick, trackIndex, index, timed))
            }
        }
        merged.sort { ($0.tick, $0.track, $0.index) < ($1.tick, $1.track, $1.index) }
        var events = merged.map(\.event)
        events.append(TimedEvent(tick: source.durationInTicks, .meta(.endOfTrack)))
        return MusicSequence(format: 0, division: division, tracks: [MusicTrack(events: events)])
    }

    /// The sequence as format 1 with one track per MIDI channel: track 0 is the conductor (meta
    /// events, SysEx, escapes and system messages), then one track per channel in use, in channel
    /// order, named after the channel and its first program ("Ch 10 Drums", "Ch 1 Acoustic Grand Piano").
    /// Multi-track sequences are merged first.
    public func splitByChannel() -> MusicSequence {
        let merged = mergedToFormat0()
        let end = merged.durationInTicks
        var conductor: [TimedEvent] = []
        var channelEvents: [UInt8: [TimedEvent]] = [:]
        for timed in merged.tracks[0].events where timed.event != .meta(.endOfTrack) {
            if case .midi(let message) = timed.event, let channel = message.channel {
                channelEvents[channel, default: []].append(timed)
            } else {
                conductor.append(timed)
            }
        }
        conductor.append(TimedEvent(tick: end, .meta(.endOfTrack)))
        var tracks = [MusicTrack(events: conductor)]
        for (channel, events) in channelEvents.sorted(by: { $0.key < $1.key }) {
            let firstProgram = events.lazy.compactMap { timed -> UInt8? in
                if case .midi(.programChange(_, let program)) = timed.event { return program }
                return nil
            }.first
            let name = "Ch \(channel + 1) " + GeneralMIDI.instrumentName(program: firstProgram ?? 0, channel: channel)
            let named = [TimedEvent(tick: 0, .meta(.text(.trackName, Array(name.utf8))))]
                + events + [TimedEvent(tick: end, .meta(.endOfTrack))]
            tracks.append(MusicTrack(events: named))
        }
        return MusicSequence(format: 1, division: division, tracks: tracks)
    }

    /// A format 2 sequence as format 1 with its patterns one after another: each track is shifted to
    /// start where the previous one ends, and a pattern that sets no tempo or time signature at its
    /// start gets the SMF defaults (120 BPM, 4/4) there, as it would when played alone.
    /// Other formats are returned unchanged.
    public func concatenatingPatterns() -> MusicSequence {
        guard format == 2 else { return self }
        var patterns: [MusicTrack] = []
        for (index, (track, offset)) in zip(tracks, patternOffsets).enumerated() {
            var shifted = track.events.map { TimedEvent(tick: $0.tick.saturatingAdd(offset), $0.event) }
            if index > 0 {
                let opening = track.events.prefix { $0.tick <= 0 }.map(\.event)
                if !opening.contains(where: { if case .meta(.tempo) = $0 { true } else { false } }) {
                    shifted.insert(TimedEvent(tick: offset, .meta(.tempo(microsecondsPerQuarter: 500_000))), at: 0)
                }
                if !opening.contains(where: { if case .meta(.timeSignature) = $0 { true } else { false } }) {
                    let fourFour = MetaEvent.timeSignature(numerator: 4, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8)
                    shifted.insert(TimedEvent(tick: offset, .meta(fourFour)), at: 0)
                }
            }
            patterns.append(MusicTrack(events: shifted))
        }
        return MusicSequence(format: 1, division: division, tracks: patterns)
    }

    /// Per track, the tick `concatenatingPatterns()` starts it at: in format 2, where the patterns
    /// before it end, one after another; in formats 0 and 1, 0.
    var patternOffsets: [Int64] {
        guard format == 2 else { return Array(repeating: 0, count: tracks.count) }
        var offset: Int64 = 0
        return tracks.map { track in
            defer { offset = offset.saturatingAdd(track.durationInTicks) }
            return offset
        }
    }

    /// A summary of each track: name, channels, programs and note count.
    public var trackSummaries: [TrackSummary] {
        tracks.map(TrackSummary.init)
    }
}

/// What a track contains, at a glance: what `seqplay info` lists per track.
public struct TrackSummary: Hashable, Sendable, Codable {
    /// The first Track Name meta event's text.
    public var name: String?
    /// The first Instrument Name meta event's text.
    public var instrumentName: String?
    /// The 0-based channels of its channel messages, ascending.
    public var channels: [Int]
    /// Its program changes, first use of each (channel, program) pair, in order.
    public var programs: [ProgramUse]
    /// Number of note-ons with velocity > 0.
    public var noteCount: Int
    /// Number of events, End of Track included.
    public var eventCount: Int

    /// Summarises a track from its events given one at a time, in order (as the streaming report
    /// reads them from the file).
    struct Builder {
        private var name: String?
        private var instrumentName: String?
        private var channels = Set<Int>()
        private var programs: [ProgramUse] = []
        private var noteCount = 0
        private var eventCount = 0

        mutating func add(_ timed: TimedEvent) {
            eventCount += 1
            switch timed.event {
            case .meta(.text(.trackName, _)) where name == nil:
                if case .meta(let meta) = timed.event { name = meta.text }
            case .meta(.text(.instrumentName, _)) where instrumentName == nil:
                if case .meta(let meta) = timed.event { instrumentName = meta.text }
            case .midi(let message):
                if let channel = message.channel { channels.insert(Int(channel)) }
                if message.isNoteOn { noteCount += 1 }
                if case .programChange(let channel, let program) = message {
                    let use = ProgramUse(channel: Int(channel), program: Int(program))
                    if !programs.contains(use) { programs.append(use) }
                }
            default:
                break
            }
        }

        var summary: TrackSummary {
            TrackSummary(name: name, instrumentName: instrumentName, channels: channels.sorted(), programs: programs,
                         noteCount: noteCount, eventCount: eventCount)
        }
    }
}

// In an extension, so that the Builder makes summaries with Swift's memberwise init.
extension TrackSummary {
    /// Summarises `track`.
    public init(_ track: MusicTrack) {
        var builder = Builder()
        for timed in track.events { builder.add(timed) }
        self = builder.summary
    }
}

/// A program (0-based) selected on a channel (0-based), with its General MIDI instrument name.
public struct ProgramUse: Hashable, Sendable, Codable {
    public var channel: Int
    public var program: Int
    public var instrument: String

    public init(channel: Int, program: Int) {
        self.channel = channel
        self.program = program
        self.instrument = GeneralMIDI.instrumentName(program: UInt8(clamping: program), channel: UInt8(clamping: channel))
    }
}
