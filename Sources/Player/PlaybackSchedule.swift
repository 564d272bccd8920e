import MIDICore
import MIDIFile

/// One message of a playback schedule: when to send it (audio sample index from the start of
/// playback) and which track it comes from.
struct ScheduledEvent: Sendable {
    var sampleTime: Int64
    var track: Int
    var message: MIDIMessage
}

/// A sequence turned into a flat, time-ordered list of messages at exact sample times, with start,
/// end, loop, transpose and rate applied: everything `MusicPlayer` delivers, worked out in advance.
struct PlaybackSchedule {
    var events: [ScheduledEvent] = []
    /// The length of the whole playback, loops included, rounded to the nearest sample.
    var durationInSamples: Int64 = 0
    /// The stretches of the song played, in order, with the sample each starts at.
    var stretches: [PlayedStretch] = []

    /// A stretch of song ticks [fromTick, toTick) played straight through from `startSample`.
    struct PlayedStretch {
        var startSample: Int64
        var fromTick: Int64
        var toTick: Int64
    }

    /// A message of the sequence at its tick.
    private struct SourceEvent {
        var tick: Int64
        var track: Int
        var message: MIDIMessage
    }

    /// A stretch of ticks [from, to) played straight through.
    private struct Pass {
        var from: Int64
        var to: Int64
    }

    /// Builds the schedule of `sequence` (format 0 or 1; format 2 patterns already put in order) at
    /// `sampleRate` samples per second.
    init(sequence: MusicSequence, map: TempoMap, settings: PlaybackSettings, sampleRate: Int) throws(PlaybackSettingsError) {
        guard settings.rate.isFinite, (0.01...100).contains(settings.rate) else { throw .rateOutOfRange(settings.rate) }
        guard (1...1_000_000).contains(sampleRate) else { throw .sampleRateOutOfRange(sampleRate) }
        let speed = (numerator: Int64((settings.rate * 10_000).rounded()), denominator: Int64(10_000))

        let source = PlaybackSchedule.sourceEvents(of: sequence)
        let passes = try PlaybackSchedule.passes(map: map, settings: settings)
        var sounding: [NoteKey: Int] = [:]
        var chased: [Int64: [(track: Int, message: MIDIMessage)]] = [:] // state before each jump target
        var elapsed = ExactTime.zero(denominator: map.time(atTick: 0).denominator)
        func sampleTime(_ time: ExactTime) -> Int64 {
            // Rounded down: a renderer asking for events before `blockStart + half a block` then sends
            // each at the block boundary nearest its exact time.
            time.sampleIndex(sampleRate: sampleRate, speed: speed, rounding: .down)
        }

        for (index, pass) in passes.enumerated() {
            let passStart = sampleTime(elapsed)
            stretches.append(PlayedStretch(startSample: passStart, fromTick: pass.from, toTick: pass.to))
            let jumped = index == 0 ? pass.from > 0 : passes[index - 1].to != pass.from
            if jumped {
                if chased[pass.from] == nil {
                    let history = source[..<PlaybackSchedule.firstIndex(in: source, atOrAfter: pass.from)]
                    chased[pass.from] = Chase.stateMessages(from: history.lazy.map { (track: $0.track, message: $0.message) })
                }
                for state in chased[pass.from] ?? [] {
                    events.append(ScheduledEvent(sampleTime: passStart, track: state.track, message: state.message))
                }
            }
            let startTime = map.time(atTick: pass.from)
            let first = PlaybackSchedule.firstIndex(in: source, atOrAfter: pass.from)
            let end = PlaybackSchedule.firstIndex(in: source, atOrAfter: pass.to)
            for event in source[first..<end] {
                guard let message = event.message.transposed(by: settings.transpose) else { continue }
                NoteKey.track(message, from: event.track, in: &sounding)
                events.append(ScheduledEvent(sampleTime: sampleTime(elapsed + map.time(atTick: event.tick) - startTime),
                                             track: event.track, message: message))
            }
            elapsed = elapsed + map.time(atTick: pass.to) - startTime
            let continues = index + 1 < passes.count && passes[index + 1].from == pass.to
            if !continues {
                let passEnd = sampleTime(elapsed)
                for key in sounding.keys.sorted() {
                    events.append(ScheduledEvent(sampleTime: passEnd, track: key.track,
                                                 message: .noteOff(channel: key.channel, note: key.note, velocity: 0)))
                }
                sounding.removeAll()
            }
        }
        durationInSamples = elapsed.sampleIndex(sampleRate: sampleRate, speed: speed)
    }

    /// The channel and SysEx messages of all tracks, by tick, then track, then order in the track.
    private static func sourceEvents(of sequence: MusicSequence) -> [SourceEvent] {
        var found: [(event: SourceEvent, index: Int)] = []
        for (trackIndex, track) in sequence.tracks.enumerated() {
            for (index, timed) in track.events.enumerated() {
                guard let message = timed.event.playableMessage else { continue }
                found.append((SourceEvent(tick: max(0, timed.tick), track: trackIndex, message: message), index))
            }
        }
        found.sort { ($0.event.tick, $0.event.track, $0.index) < ($1.event.tick, $1.event.track, $1.index) }
        return found.map(\.event)
    }

    /// The stretches played in order: start to loop end, the loop again `count - 1` times, then on to the end.
    /// Refuses playbacks longer than `PlaybackSettings.maximumDuration` before building them, so a
    /// few hostile bytes (or a huge loop count) cannot make the schedule exhaust memory or time.
    private static func passes(map: TempoMap, settings: PlaybackSettings) throws(PlaybackSettingsError) -> [Pass] {
        let start = settings.start?.tick(in: map) ?? 0
        let end = settings.end?.tick(in: map) ?? map.endTick
        guard start <= end else { throw .startAfterEnd(startTick: start, endTick: end) }
        guard start < end else { return [] }
        func seconds(_ from: Int64, _ to: Int64) -> Double {
            (map.seconds(atTick: to) - map.seconds(atTick: from)) / settings.rate
        }
        func checkDuration(_ total: Double) throws(PlaybackSettingsError) {
            guard total <= PlaybackSettings.maximumDuration else { throw .tooLong(seconds: total) }
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
    private static func firstIndex(in events: [SourceEvent], atOrAfter tick: Int64) -> Int {
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].tick < tick { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A note sounding on a channel from a track, for ending what is still held when a pass ends.
private struct NoteKey: Hashable, Comparable {
    var track: Int
    var channel: UInt8
    var note: UInt8

    static func < (a: NoteKey, b: NoteKey) -> Bool {
        (a.track, a.channel, a.note) < (b.track, b.channel, b.note)
    }

    /// Counts a note-on in, a note-off out.
    static func track(_ message: MIDIMessage, from track: Int, in sounding: inout [NoteKey: Int]) {
        switch message {
        case .noteOn(let channel, let note, let velocity) where velocity > 0:
            sounding[NoteKey(track: track, channel: channel, note: note), default: 0] += 1
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            let key = NoteKey(track: track, channel: channel, note: note)
            if let count = sounding[key] { sounding[key] = count > 1 ? count - 1 : nil }
        default:
            break
        }
    }
}
