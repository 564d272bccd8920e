import MIDICore
import MIDIFile

/// One message of a playback, as a destination gets it: when to send it (in the player's time unit
/// from the start of playback: audio samples, or nanoseconds), the track it comes from, the SMF port
/// (meta event 0x21) that track was on, and the message.
public struct SongEvent: Sendable, Hashable {
    /// The track of MIDI clock messages (Timing Clock, Song Position, Start, Continue, Stop), which
    /// belong to no track: a destination that keeps MIDI clock sends them to all its ports.
    public static let clockTrack = -1

    /// Time from the start of playback, in the player's unit (see `MusicPlayer.sampleRate`).
    public var sampleTime: Int64
    public var track: Int
    /// The port the track had chosen with its last SMF port meta event (0 before any), as aplaymidi
    /// routes: a destination with `n` ports sends to port `port % n`.
    public var port: UInt8
    public var message: MIDIMessage

    public init(sampleTime: Int64, track: Int, port: UInt8, message: MIDIMessage) {
        self.sampleTime = sampleTime
        self.track = track
        self.port = port
        self.message = message
    }

    /// Whether this is a MIDI clock message (see `clockTrack`).
    public var isClock: Bool { track == SongEvent.clockTrack }
}

/// A sequence turned into a flat, time-ordered list of messages at exact sample times, with start,
/// end, loop, transpose, rate and the track selection applied: everything `MusicPlayer` delivers
/// (but the periodic Timing Clocks, which it generates as it goes), worked out in advance. It is the
/// one place where a song becomes timed events, whatever the destination.
struct PlaybackSchedule {
    var events = SongEventList()
    /// The length of the whole playback, loops included, rounded to the nearest sample.
    var durationInSamples: Int64 = 0
    /// The stretches of the song played, in order, with the sample each starts at.
    var stretches: [PlayedStretch] = []
    /// Whether the schedule keeps MIDI clock (asked for, and the song counts quarter notes).
    var hasClock = false

    /// A stretch of song ticks [fromTick, toTick) played straight through from `startSample`
    /// (exactly: from `startTime` of player time, rate not applied).
    struct PlayedStretch {
        var startSample: Int64
        var startTime: ExactTime
        var fromTick: Int64
        var toTick: Int64
    }

    /// A stretch of ticks [from, to) played straight through.
    private struct Pass {
        var from: Int64
        var to: Int64
    }

    /// Builds the schedule of `sequence` (format 0 or 1; format 2 patterns already put in order) at
    /// `sampleRate` samples per second.
    init(sequence: MusicSequence, map: TempoMap, settings: SongOptions, sampleRate: Int) throws(SongOptionsError) {
        guard settings.rate.isFinite, (0.01...100).contains(settings.rate) else { throw .rateOutOfRange(settings.rate) }
        guard (1...MusicPlayer.nanosecondRate).contains(sampleRate) else { throw .sampleRateOutOfRange(sampleRate) }
        let speed = (numerator: Int64((settings.rate * 10_000).rounded()), denominator: Int64(10_000))

        let passes = try PlaybackSchedule.passes(map: map, settings: settings)
        // One pass (no loop) reads the song's events once, straight from its tracks; several read
        // them from a list made once.
        let streams = passes.count == 1
        let source = streams ? SongEventList() : PlaybackSchedule.sourceEvents(of: sequence, tracks: settings.tracks)
        var sounding: [NoteKey: Int] = [:]
        var chased: [Int64: [SongEvent]] = [:] // state before each jump target
        var elapsed = ExactTime.zero(denominator: map.time(atTick: 0).denominator)
        func sampleTime(_ time: ExactTime) -> Int64 {
            // Rounded down: a renderer asking for events before `blockStart + half a block` then sends
            // each at the block boundary nearest its exact time.
            time.sampleIndex(sampleRate: sampleRate, speed: speed, rounding: .down)
        }

        hasClock = settings.midiClock && PlaybackSchedule.ticksPerQuarter(of: sequence.division) != nil
        func clock(_ message: MIDIMessage, at time: Int64) {
            events.append(SongEvent(sampleTime: time, track: SongEvent.clockTrack, port: 0, message: message))
        }

        events.reserveCapacity(streams ? sequence.tracks.reduce(0) { $0 + $1.events.count } : source.count)
        for (index, pass) in passes.enumerated() {
            let passStart = sampleTime(elapsed)
            stretches.append(PlayedStretch(startSample: passStart, startTime: elapsed, fromTick: pass.from, toTick: pass.to))
            let jumped = index == 0 ? pass.from > 0 : passes[index - 1].to != pass.from
            if hasClock && (index == 0 || jumped) {
                // Song Position is only followed while stopped: Stop, position, then Start (at 0) or Continue.
                if index > 0 { clock(.stop, at: passStart) }
                clock(.songPosition(PlaybackSchedule.songPosition(atTick: pass.from, division: sequence.division)), at: passStart)
                clock(pass.from == 0 ? .start : .continue, at: passStart)
            }
            if jumped {
                if chased[pass.from] == nil {
                    if streams {
                        var history = SongEventList()
                        PlaybackSchedule.forEachSourceEvent(of: sequence, tracks: settings.tracks) { event in
                            if event.sampleTime < pass.from { history.append(event) }
                        }
                        chased[pass.from] = Chase.stateEntries(from: history) { $0.message }
                    } else {
                        let history = source[..<PlaybackSchedule.firstIndex(in: source, atOrAfter: pass.from)]
                        chased[pass.from] = Chase.stateEntries(from: history) { $0.message }
                    }
                }
                for state in chased[pass.from] ?? [] {
                    events.append(SongEvent(sampleTime: passStart, track: state.track, port: state.port, message: state.message))
                }
            }
            let startTime = map.time(atTick: pass.from)
            func play(_ event: SongEvent) {
                guard let message = event.message.transposed(by: settings.transpose) else { return }
                NoteKey.count(message, track: event.track, port: event.port, in: &sounding)
                events.append(SongEvent(sampleTime: sampleTime(elapsed + map.time(atTick: event.sampleTime) - startTime),
                                        track: event.track, port: event.port, message: message))
            }
            // Events at a pass's end tick belong to what follows (the song's own last tick included:
            // its notes still sounding get their Note Offs there).
            if streams {
                PlaybackSchedule.forEachSourceEvent(of: sequence, tracks: settings.tracks) { event in
                    if event.sampleTime >= pass.from && event.sampleTime < pass.to { play(event) }
                }
            } else {
                let first = PlaybackSchedule.firstIndex(in: source, atOrAfter: pass.from)
                let end = PlaybackSchedule.firstIndex(in: source, atOrAfter: pass.to)
                for position in first..<end { play(source[position]) }
            }
            elapsed = elapsed + map.time(atTick: pass.to) - startTime
            let continues = index + 1 < passes.count && passes[index + 1].from == pass.to
            if !continues {
                let passEnd = sampleTime(elapsed)
                for key in sounding.keys.sorted() {
                    for _ in 0..<sounding[key, default: 0] {
                        events.append(SongEvent(sampleTime: passEnd, track: key.track, port: key.port,
                                                message: .noteOff(channel: key.channel, note: key.note, velocity: 0)))
                    }
                }
                sounding.removeAll()
            }
        }
        durationInSamples = elapsed.sampleIndex(sampleRate: sampleRate, speed: speed)
        if hasClock && !passes.isEmpty { clock(.stop, at: sampleTime(elapsed)) }
    }

    /// The Song Position (MIDI beats: sixteenth notes from the start, at most 16383) of `tick`.
    static func songPosition(atTick tick: Int64, division: Division) -> UInt16 {
        guard let ppq = ticksPerQuarter(of: division) else { return 0 }
        guard tick / ppq < 4096 else { return 16383 }
        return UInt16(min(tick * 4 / ppq, 16383))
    }

    /// Ticks per quarter note of a metrical division (MIDI clock counts quarter notes); nil for SMPTE.
    static func ticksPerQuarter(of division: Division) -> Int64? {
        guard case .ticksPerQuarter(let ppq) = division, ppq > 0 else { return nil }
        return Int64(ppq)
    }

    /// The channel and SysEx messages of the selected tracks (all when `tracks` is nil), by tick, then
    /// track, then order in the track, each with the port its track's last port meta event chose, as
    /// `SongEvent`s whose time is the tick (at least 0).
    private static func sourceEvents(of sequence: MusicSequence, tracks: Set<Int>?) -> SongEventList {
        var found = SongEventList()
        forEachSourceEvent(of: sequence, tracks: tracks) { found.append($0) }
        return found
    }

    /// Calls `body` with each of `sourceEvents(of:tracks:)` in turn, without making the list.
    private static func forEachSourceEvent(of sequence: MusicSequence, tracks: Set<Int>?, _ body: (SongEvent) -> Void) {
        var ports = [UInt8](repeating: 0, count: sequence.tracks.count)
        sequence.forEachEventInTickOrder(tracks: tracks, clampingNegativeTicks: true) { track, _, timed in
            if case .meta(.port(let chosen)) = timed.event { ports[track] = chosen }
            guard let message = timed.event.playableMessage else { return }
            body(SongEvent(sampleTime: max(0, timed.tick), track: track, port: ports[track], message: message))
        }
    }

    /// The stretches played in order: start to loop end, the loop again `count - 1` times, then on to the end.
    /// Refuses playbacks longer than `SongOptions.maximumDuration` before building them, so a
    /// few hostile bytes (or a huge loop count) cannot make the schedule exhaust memory or time.
    private static func passes(map: TempoMap, settings: SongOptions) throws(SongOptionsError) -> [Pass] {
        let start = settings.start?.tick(in: map) ?? 0
        let end = settings.end?.tick(in: map) ?? map.endTick
        guard start <= end else { throw .startAfterEnd(startTick: start, endTick: end) }
        guard start < end else { return [] }
        func seconds(_ from: Int64, _ to: Int64) -> Double {
            (map.seconds(atTick: to) - map.seconds(atTick: from)) / settings.rate
        }
        func checkDuration(_ total: Double) throws(SongOptionsError) {
            guard total <= SongOptions.maximumDuration else { throw .tooLong(seconds: total) }
        }
        guard let loop = settings.loop else {
            try checkDuration(seconds(start, end))
            return [Pass(from: start, to: end)]
        }
        let from = loop.from.tick(in: map), to = loop.to.tick(in: map)
        guard from < to, loop.count >= 1 else { throw .invalidLoop(fromTick: from, toTick: to, count: loop.count) }
        guard start < to, to <= end else {
            try checkDuration(seconds(start, end))
            return [Pass(from: start, to: end)]
        }
        try checkDuration(seconds(start, end) + Double(loop.count - 1) * seconds(from, to))
        var passes = [Pass(from: start, to: to)]
        passes += Array(repeating: Pass(from: from, to: to), count: loop.count - 1)
        if to < end { passes.append(Pass(from: to, to: end)) }
        return passes
    }

    /// The index of the first event at or after `tick` (binary search).
    private static func firstIndex(in events: SongEventList, atOrAfter tick: Int64) -> Int {
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].sampleTime < tick { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
