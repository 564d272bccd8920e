import Atomics
import MIDICore
import MIDIFile

/// Plays a `MusicSequence` at exact times: the Linux counterpart of Apple's MusicPlayer and the one
/// scheduler of seqplay, pulled by whoever sends the events (a sampler's render thread, a kernel-queue
/// writer, a network sender) instead of running its own clock.
///
/// At init it works out the whole playback as its `SongOptions` ask (tempo map, start/end, loop,
/// transpose, rate, the tracks this destination plays, optionally MIDI clock) as a sorted list of messages at times computed
/// exactly from the tempo map (no drift, whatever the tempo changes), in the player's unit: audio
/// samples at `sampleRate`, or nanoseconds (`MusicPlayer.nanosecondRate`) for destinations that stamp
/// events with a clock time. Times are rounded down to the unit.
///
/// A renderer working in 64-frame blocks calls `deliverEvents(before: blockStart + 32, to:)` before
/// each block, so every event is sent at the block boundary nearest its exact time (within 32 samples).
/// Every destination (`SongDestination`) gets each `SongEvent` with its time, track and SMF port. All channel messages and SysEx (as complete F0…F7 messages) pass through;
/// meta events are not sent. The player tracks the notes it has started (per track, channel and note,
/// counting repeated Note Ons), so a mute, a seek or the end of a pass ends exactly those.
///
/// Threading contract:
/// - `deliverEvents` is called from one thread at a time (the render thread). It does not allocate,
///   lock or do I/O.
/// - The mute and solo setters may be called from any thread at any time (relaxed atomics; the
///   render thread picks changes up at its next call). Muting silences notes: note-ons are held back
///   and notes already sounding are ended; other messages keep flowing so unmuting sounds right.
/// - `reset()` and `seek(toSample:)` must not run while `deliverEvents` runs (call them with the
///   renderer stopped, or between blocks on the render thread).
// Why unchecked: the scheduler's state is touched by one thread at a time: the render thread while it plays, the control thread only with the renderer stopped or held (above).
public final class MusicPlayer: ScheduledMIDISource, @unchecked Sendable {
    /// The unit of nanosecond players: a "sample rate" of 10⁹ per second.
    public static let nanosecondRate = 1_000_000_000

    /// Units per second of the player's times: the audio sample rate, or `nanosecondRate`.
    public let sampleRate: Int
    /// The tempo map of the sequence (of its patterns put in order, for format 2).
    public let tempoMap: TempoMap
    /// Length of the whole playback, loops included, in samples.
    public let durationInSamples: Int64
    /// Number of tracks that can be muted or soloed.
    public let trackCount: Int
    /// The options it was made with (its mutes and solos as they were then; the setters change them).
    public let options: SongOptions

    private let schedule: SongEventList
    let stretches: [PlaybackSchedule.PlayedStretch]
    /// Song seconds per player second.
    private let rate: Double
    let speed: (numerator: Int64, denominator: Int64)
    /// Ticks per quarter note when the player sends MIDI clock.
    let clockTicksPerQuarter: Int64?
    let trackMuted: [ManagedAtomic<Bool>]
    let trackSoloed: [ManagedAtomic<Bool>]
    let channelMuted: [ManagedAtomic<Bool>]
    let channelSoloed: [ManagedAtomic<Bool>]
    /// Bumped by every mute/solo change, so the render thread knows to recompute what is audible.
    let audibilityGeneration: ManagedAtomic<Int>
    private let finished = ManagedAtomic<Bool>(false)

    // Render-thread state, allocated once.
    private var cursor = 0
    private var seenGeneration = -1
    /// The time of the latest event delivered (or of the seek target): when notes a mute or seek ends go out.
    private var lastTime: Int64 = 0
    /// The next Timing Clock: its stretch, its number (clock `n` is at tick n × ppq / 24) and its time.
    private var clock: (stretch: Int, index: Int64, time: Int64)?
    private let trackAudible: UnsafeMutableBufferPointer<Bool>
    private let channelAudible: UnsafeMutableBufferPointer<Bool>
    /// Per (track, channel, note): how many Note Ons this player has sent and not yet ended, and the
    /// port of the last of them.
    private let soundingCount: UnsafeMutableBufferPointer<UInt8>
    private let soundingPort: UnsafeMutableBufferPointer<UInt8>
    private static let notesPerTrack = 16 * 128
    // Set by seek/reset, consumed by the next delivery.
    private var pendingStateMessages: [SongEvent] = []
    private var pendingStateDelivered = true
    private var pendingAllNotesOff = false
    /// Hands the messages of a delivery to a `MIDIReceiver` with their times (one, reused: no allocation).
    private let timedMessages = TimedMessages()

    /// Prepares playback of `sequence` at `sampleRate` units per second (an audio sample rate, or
    /// `MusicPlayer.nanosecondRate`) as `options` ask, its mutes and solos applied. Format 2 patterns
    /// play one after another. A sequence of length zero (only set-up events at tick 0) without start,
    /// end or loop plays one tick, so its tick-0 events are sent. Throws when the options do not fit
    /// the sequence, a muted or soloed track or channel included.
    public convenience init(sequence: MusicSequence, sampleRate: Int, options: SongOptions = SongOptions()) throws(SongOptionsError) {
        try self.init(song: PreparedSong(sequence), sampleRate: sampleRate, options: options)
    }

    /// Prepares playback of `song` as `init(sequence:sampleRate:options:)` does, from the song's
    /// timeline and tempo map as they were prepared (not worked out again).
    public convenience init(song: PreparedSong, sampleRate: Int, options: SongOptions = SongOptions()) throws(SongOptionsError) {
        let playable = song.timeline
        let map = song.tempoMap
        var scheduled = options
        if map.endTick == 0 && options.start == nil && options.end == nil && options.loop == nil { scheduled.end = .tick(1) }
        let built = try PlaybackSchedule(sequence: playable, map: map, settings: scheduled, sampleRate: sampleRate)
        try options.checkMutesAndSolos(trackCount: playable.tracks.count)
        let trackCount = playable.tracks.count
        self.init(sampleRate: sampleRate, options: options, tempoMap: map, schedule: built.events, stretches: built.stretches,
                  clockTicksPerQuarter: built.hasClock ? PlaybackSchedule.ticksPerQuarter(of: playable.division) : nil,
                  durationInSamples: built.durationInSamples, trackCount: trackCount,
                  trackMuted: (0..<trackCount).map { ManagedAtomic(options.mutedTracks.contains($0)) },
                  trackSoloed: (0..<trackCount).map { ManagedAtomic(options.soloedTracks.contains($0)) },
                  channelMuted: (0..<16).map { ManagedAtomic(options.mutedChannels.contains($0)) },
                  channelSoloed: (0..<16).map { ManagedAtomic(options.soloedChannels.contains($0)) },
                  audibilityGeneration: ManagedAtomic(0))
    }

    /// A second cursor through `player`'s playback, for a destination that follows it at its own
    /// pace (a JACK MIDI port beside the sampler the player feeds): the same song, options, unit and
    /// schedule, shared (nothing worked out again), and the same mute and solo flags (a change made
    /// through either player applies to both); its own position (the start), notes sounding and MIDI
    /// clock. Not real-time safe (it allocates the cursor's note table).
    public convenience init(sharingScheduleOf player: MusicPlayer) {
        self.init(sampleRate: player.sampleRate, options: player.options, tempoMap: player.tempoMap, schedule: player.schedule,
                  stretches: player.stretches, clockTicksPerQuarter: player.clockTicksPerQuarter,
                  durationInSamples: player.durationInSamples, trackCount: player.trackCount,
                  trackMuted: player.trackMuted, trackSoloed: player.trackSoloed, channelMuted: player.channelMuted,
                  channelSoloed: player.channelSoloed, audibilityGeneration: player.audibilityGeneration)
    }

    private init(sampleRate: Int, options: SongOptions, tempoMap: TempoMap, schedule: SongEventList,
                 stretches: [PlaybackSchedule.PlayedStretch], clockTicksPerQuarter: Int64?, durationInSamples: Int64,
                 trackCount: Int, trackMuted: [ManagedAtomic<Bool>], trackSoloed: [ManagedAtomic<Bool>],
                 channelMuted: [ManagedAtomic<Bool>], channelSoloed: [ManagedAtomic<Bool>], audibilityGeneration: ManagedAtomic<Int>) {
        self.sampleRate = sampleRate
        self.options = options
        self.tempoMap = tempoMap
        self.schedule = schedule
        self.stretches = stretches
        rate = options.rate
        speed = (Int64((options.rate * 10_000).rounded()), 10_000)
        self.clockTicksPerQuarter = clockTicksPerQuarter
        self.durationInSamples = durationInSamples
        self.trackCount = trackCount
        self.trackMuted = trackMuted
        self.trackSoloed = trackSoloed
        self.channelMuted = channelMuted
        self.channelSoloed = channelSoloed
        self.audibilityGeneration = audibilityGeneration
        trackAudible = .allocate(capacity: trackCount)
        trackAudible.initialize(repeating: true)
        channelAudible = .allocate(capacity: 16)
        channelAudible.initialize(repeating: true)
        soundingCount = .allocate(capacity: trackCount * MusicPlayer.notesPerTrack)
        soundingCount.initialize(repeating: 0)
        soundingPort = .allocate(capacity: trackCount * MusicPlayer.notesPerTrack)
        soundingPort.initialize(repeating: 0)
        clock = firstClock(fromStretch: 0)
    }

    deinit {
        trackAudible.deallocate()
        channelAudible.deallocate()
        soundingCount.deallocate()
        soundingPort.deallocate()
    }

    /// Length of the whole playback, loops included, in seconds.
    public var durationInSeconds: Double {
        Double(durationInSamples) / Double(sampleRate)
    }

    /// The song tick playing at player sample `sampleTime` (the last tick whose time is not after
    /// it): where in the song playback is, with `start`, the loop repeats and `rate` taken into
    /// account (a loop's second time through gives the ticks of its first).
    public func songTick(atSample sampleTime: Int64) -> Int64 {
        guard let index = stretchIndex(atSample: sampleTime) else { return stretches.first?.fromTick ?? 0 }
        let stretch = stretches[index]
        let seconds = tempoMap.seconds(atTick: stretch.fromTick)
            + Double(sampleTime - stretch.startSample) / Double(sampleRate) * rate
        var tick = tempoMap.tick(atSeconds: seconds)
        // tick(atSeconds:) gives the first tick at or after; step back when it lies after (beyond rounding).
        if tick > stretch.fromTick && tempoMap.seconds(atTick: tick) > seconds + 1e-9 { tick -= 1 }
        return min(tick, stretch.toTick)
    }

    /// The tempo (beats per minute, `rate` applied) at player sample `sampleTime`.
    /// Real-time safe (a JACK timebase asks it every cycle).
    public func beatsPerMinute(atSample sampleTime: Int64) -> Double {
        let tick = songTick(atSample: sampleTime)
        let changes = tempoMap.tempoChanges
        // The last change at or before `tick`, by bisection (no closures: generic `last(where:)`
        // allocates in unoptimised builds).
        var low = 0, high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].tick <= tick { low = middle + 1 } else { high = middle }
        }
        return (low > 0 ? changes[low - 1].beatsPerMinute : 120) * rate
    }

    /// The stretch playing at `sampleTime` (the last one starting at or before it).
    private func stretchIndex(atSample sampleTime: Int64) -> Int? {
        var low = 0, high = stretches.count
        while low < high {
            let middle = (low + high) / 2
            if stretches[middle].startSample <= sampleTime { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }

    /// Number of messages in the schedule (chase, loop and end note-offs included; Timing Clocks not).
    public var scheduledEventCount: Int {
        schedule.count
    }

    /// True once every scheduled event has been delivered and the renderer has asked for events up to
    /// the end of playback.
    public var isFinished: Bool {
        finished.load(ordering: .acquiring)
    }

    // MARK: Position

    /// Back to the start: like `seek(toSample: 0)`.
    public func reset() {
        seek(toSample: 0)
    }

    /// Moves playback to `sampleTime`: the next delivery first ends every note this player has
    /// sounding, then sends the controller, program, pitch-bend and SysEx state of that point, then
    /// carries on with the events from there. Not concurrently with `deliverEvents` (see the type's
    /// threading contract).
    public func seek(toSample sampleTime: Int64) {
        var low = 0, high = schedule.count
        while low < high {
            let middle = (low + high) / 2
            if schedule[middle].sampleTime < sampleTime { low = middle + 1 } else { high = middle }
        }
        cursor = low
        lastTime = max(0, sampleTime)
        pendingStateMessages = Chase.stateEntries(from: schedule[..<low]) { $0.message }
        pendingStateDelivered = false
        pendingAllNotesOff = true
        clock = firstClock(fromStretch: stretchIndex(atSample: sampleTime) ?? 0, atOrAfter: sampleTime)
        finished.store(false, ordering: .releasing)
    }

    // MARK: Delivery (render thread)

    /// The time of the next event not yet delivered (a Timing Clock included), nil when none is left.
    /// Read it from the delivering thread, between `deliverEvents` calls (a sampler renders up to it
    /// in one call; a real-time sender stamps each message with it).
    public var nextEventSampleTime: Int64? {
        let next = cursor < schedule.count ? schedule[cursor].sampleTime : nil
        guard let clockTime = clock?.time else { return next }
        return min(clockTime, next ?? .max)
    }

    /// The one delivery of the player: hands `destination`, in order, every pending event before
    /// `sampleTime` with its time, track and port (see `SongDestination`; the notes a mute or seek
    /// ends come first, at the time playback had reached), then ends the delivery with
    /// `endOfDelivery(before:)`. The threading contract is the type's.
    public func deliverEvents(before sampleTime: Int64, to destination: any SongDestination) {
        let generation = audibilityGeneration.load(ordering: .acquiring)
        if generation != seenGeneration {
            seenGeneration = generation
            updateAudibility()
            endNotes(destination, all: false)
        }
        if pendingAllNotesOff {
            pendingAllNotesOff = false
            endNotes(destination, all: true)
        }
        if !pendingStateDelivered {
            pendingStateDelivered = true
            for index in 0..<pendingStateMessages.count {
                var state = pendingStateMessages[index]
                state.sampleTime = lastTime
                destination.receive(state)
            }
        }
        while true {
            let nextEvent = cursor < schedule.count ? schedule[cursor].sampleTime : Int64.max
            if let next = clock, next.time < nextEvent || (next.time == nextEvent && !framesClock(schedule[cursor])), next.time < sampleTime {
                lastTime = next.time
                destination.receive(SongEvent(sampleTime: next.time, track: SongEvent.clockTrack, port: 0, message: .timingClock))
                clock = self.clock(after: next)
                continue
            }
            guard nextEvent < sampleTime else { break }
            deliver(schedule[cursor], to: destination)
            cursor += 1
        }
        if cursor == schedule.count && clock == nil && sampleTime >= durationInSamples {
            finished.store(true, ordering: .releasing)
        }
        destination.endOfDelivery(before: sampleTime)
    }

    /// Works out which tracks and channels sound, as the next delivery does, on the calling thread
    /// (a control thread, before a render thread takes the player over); the notes it would end
    /// are dropped, so call it before the first delivery.
    func settleAudibility() {
        deliverEvents(before: .min, to: timedMessages)
    }

    /// The same delivery as a sampler's event source (`ScheduledMIDISource`) hands it out: each
    /// message with its time (`MIDIReceiver.receive(_:at:)`). (A type that is both a `MIDIReceiver`
    /// and a `SongDestination`, such as `SamplerNode`, is played to as a `SongDestination`.)
    @_disfavoredOverload
    public func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        timedMessages.receiver = receiver
        deliverEvents(before: sampleTime, to: timedMessages)
        timedMessages.receiver = nil
    }

    /// Hands `handle` the events `deliverEvents(before:to:)` hands a destination. Allocates a
    /// little each call: not for a real-time thread.
    @available(*, deprecated, message: "pass a SongDestination (SongEventLog gathers the events): deliverEvents(before:to:)")
    public func deliverEvents(before sampleTime: Int64, _ handle: (SongEvent) -> Void) {
        withoutActuallyEscaping(handle) { handle in
            deliverEvents(before: sampleTime, to: EventHandler(handle))
        }
    }

    /// Whether `event` must go before a Timing Clock at the same time: Song Position, Start and
    /// Continue (and the Stop of a loop jump) frame the clocks that follow; the final Stop comes last.
    private func framesClock(_ event: SongEvent) -> Bool {
        event.isClock && (event.message != .stop || cursor < schedule.count - 1)
    }

    private func deliver(_ event: SongEvent, to destination: any SongDestination) {
        lastTime = event.sampleTime
        switch event.message {
        case .noteOn(let channel, let note, let velocity) where velocity > 0:
            guard trackAudible[event.track] && channelAudible[Int(channel)] else { return }
            let index = noteIndex(event.track, channel, note)
            soundingCount[index] &+= soundingCount[index] == .max ? 0 : 1
            soundingPort[index] = event.port
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            // Only end notes this player started: a note-on held back by a mute has no note-off either.
            let index = noteIndex(event.track, channel, note)
            guard soundingCount[index] > 0 else { return }
            soundingCount[index] -= 1
        default:
            break
        }
        destination.receive(event)
    }

    private func updateAudibility() {
        var anyTrackSoloed = false, anyChannelSoloed = false
        for flag in trackSoloed where flag.load(ordering: .relaxed) { anyTrackSoloed = true }
        for flag in channelSoloed where flag.load(ordering: .relaxed) { anyChannelSoloed = true }
        for track in 0..<trackCount {
            trackAudible[track] = SongOptions.sounds(muted: trackMuted[track].load(ordering: .relaxed),
                                                     soloed: trackSoloed[track].load(ordering: .relaxed), anySoloed: anyTrackSoloed)
        }
        for channel in 0..<16 {
            channelAudible[channel] = SongOptions.sounds(muted: channelMuted[channel].load(ordering: .relaxed),
                                                         soloed: channelSoloed[channel].load(ordering: .relaxed), anySoloed: anyChannelSoloed)
        }
    }

    /// Sends a note-off (one per Note On still sounding, to its port) for every sounding note: `all`
    /// of them, or those of tracks and channels no longer audible.
    private func endNotes(_ destination: any SongDestination, all: Bool) {
        for track in 0..<trackCount {
            for channel in 0..<16 where all || !(trackAudible[track] && channelAudible[channel]) {
                let first = noteIndex(track, UInt8(channel), 0)
                for note in 0..<128 {
                    var count = soundingCount[first + note]
                    while count > 0 {
                        destination.receive(SongEvent(sampleTime: lastTime, track: track, port: soundingPort[first + note],
                                                      message: .noteOff(channel: UInt8(channel), note: UInt8(note), velocity: 0)))
                        count -= 1
                    }
                    soundingCount[first + note] = 0
                }
            }
        }
    }

    private func noteIndex(_ track: Int, _ channel: UInt8, _ note: UInt8) -> Int {
        track * MusicPlayer.notesPerTrack + Int(channel) * 128 + Int(note)
    }
}

/// A `MIDIReceiver` as a destination of the player's one delivery: each message with its time.
private final class TimedMessages: SongDestination {
    var receiver: (any MIDIReceiver)?

    func receive(_ event: SongEvent) { receiver?.receive(event.message, at: event.sampleTime) }
}

/// A closure as a destination (the deprecated `deliverEvents(before:_:)`).
private final class EventHandler: SongDestination {
    let handle: (SongEvent) -> Void

    init(_ handle: @escaping (SongEvent) -> Void) { self.handle = handle }

    func receive(_ event: SongEvent) { handle(event) }
}
