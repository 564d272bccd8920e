import Atomics
import MIDICore
import MIDIFile

/// Plays a `MusicSequence` into a sampler at exact audio sample times: the Linux counterpart of
/// Apple's MusicPlayer, pulled by the renderer instead of running its own clock.
///
/// At init it works out the whole playback (tempo map, start/end, loop, transpose, rate) as a sorted
/// list of messages at sample times computed exactly from the tempo map (no drift, whatever the tempo
/// changes). A renderer working in 64-frame blocks calls `deliverEvents(before: blockStart + 32, to:)`
/// before each block, so every event is sent at the block boundary nearest its exact time (within 32
/// samples). All channel messages and SysEx pass through; meta events are not sent.
///
/// Threading contract:
/// - `deliverEvents(before:to:)` is called from one thread at a time (the render thread). It does not
///   allocate, lock or do I/O.
/// - The mute and solo setters may be called from any thread at any time (relaxed atomics; the
///   render thread picks changes up at its next call). Muting silences notes: note-ons are held back
///   and notes already sounding are ended; other messages keep flowing so unmuting sounds right.
/// - `reset()` and `seek(toSample:)` must not run while `deliverEvents` runs (call them with the
///   renderer stopped, or between blocks on the render thread).
public final class MusicPlayer: ScheduledMIDISource, @unchecked Sendable {
    /// The sample rate the schedule was computed for.
    public let sampleRate: Int
    /// The tempo map of the sequence (of its patterns put in order, for format 2).
    public let tempoMap: TempoMap
    /// Length of the whole playback, loops included, in samples.
    public let durationInSamples: Int64
    /// Number of tracks that can be muted or soloed.
    public let trackCount: Int

    private let schedule: [ScheduledEvent]
    private let stretches: [PlaybackSchedule.PlayedStretch]
    /// Song seconds per player second.
    private let rate: Double
    private let trackMuted: [ManagedAtomic<Bool>]
    private let trackSoloed: [ManagedAtomic<Bool>]
    private let channelMuted: [ManagedAtomic<Bool>]
    private let channelSoloed: [ManagedAtomic<Bool>]
    /// Bumped by every mute/solo change, so the render thread knows to recompute what is audible.
    private let audibilityGeneration = ManagedAtomic<Int>(0)
    private let finished = ManagedAtomic<Bool>(false)

    // Render-thread state, allocated once.
    private var cursor = 0
    private var seenGeneration = -1
    private let trackAudible: UnsafeMutableBufferPointer<Bool>
    private let channelAudible: UnsafeMutableBufferPointer<Bool>
    /// One bit per (track, channel, note) that this player has started and not yet ended.
    private let soundingNotes: UnsafeMutableBufferPointer<UInt64>
    private static let wordsPerTrack = 16 * 128 / 64
    // Set by seek/reset, consumed by the next delivery.
    private var pendingStateMessages: [(track: Int, message: MIDIMessage)] = []
    private var pendingStateDelivered = true
    private var pendingAllNotesOff = false

    /// Prepares playback of `sequence` at `sampleRate` samples per second. Format 2 patterns play
    /// one after another.
    public init(sequence: MusicSequence, sampleRate: Int, settings: PlaybackSettings = PlaybackSettings()) throws(PlaybackSettingsError) {
        let playable = sequence.concatenatingPatterns()
        let map = TempoMap(sequence: playable)
        let built = try PlaybackSchedule(sequence: playable, map: map, settings: settings, sampleRate: sampleRate)
        self.sampleRate = sampleRate
        tempoMap = map
        schedule = built.events
        stretches = built.stretches
        rate = settings.rate
        durationInSamples = built.durationInSamples
        trackCount = playable.tracks.count
        trackMuted = (0..<trackCount).map { _ in ManagedAtomic(false) }
        trackSoloed = (0..<trackCount).map { _ in ManagedAtomic(false) }
        channelMuted = (0..<16).map { _ in ManagedAtomic(false) }
        channelSoloed = (0..<16).map { _ in ManagedAtomic(false) }
        trackAudible = .allocate(capacity: trackCount)
        trackAudible.initialize(repeating: true)
        channelAudible = .allocate(capacity: 16)
        channelAudible.initialize(repeating: true)
        soundingNotes = .allocate(capacity: trackCount * MusicPlayer.wordsPerTrack)
        soundingNotes.initialize(repeating: 0)
    }

    deinit {
        trackAudible.deallocate()
        channelAudible.deallocate()
        soundingNotes.deallocate()
    }

    /// Length of the whole playback, loops included, in seconds.
    public var durationInSeconds: Double {
        Double(durationInSamples) / Double(sampleRate)
    }

    /// The song tick playing at player sample `sampleTime`: where in the song playback is, with
    /// `start`, the loop repeats and `rate` taken into account (a loop's second time through gives
    /// the ticks of its first).
    public func songTick(atSample sampleTime: Int64) -> Int64 {
        var low = 0, high = stretches.count
        while low < high {
            let middle = (low + high) / 2
            if stretches[middle].startSample <= sampleTime { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return stretches.first?.fromTick ?? 0 }
        let stretch = stretches[low - 1]
        let songSeconds = Double(sampleTime - stretch.startSample) / Double(sampleRate) * rate
        let tick = tempoMap.tick(atSeconds: tempoMap.seconds(atTick: stretch.fromTick) + songSeconds)
        return min(tick, stretch.toTick)
    }

    /// Number of messages in the schedule (chase, loop and end note-offs included).
    public var scheduledEventCount: Int {
        schedule.count
    }

    /// True once every scheduled event has been delivered and the renderer has asked for events up to
    /// the end of playback.
    public var isFinished: Bool {
        finished.load(ordering: .acquiring)
    }

    // MARK: Mute and solo

    public func setTrack(_ track: Int, muted: Bool) { set(trackMuted[track], muted) }
    public func setTrack(_ track: Int, soloed: Bool) { set(trackSoloed[track], soloed) }
    /// Mutes a 0-based channel (channel 10 is 9).
    public func setChannel(_ channel: Int, muted: Bool) { set(channelMuted[channel], muted) }
    /// Solos a 0-based channel: while any channel is soloed only soloed channels sound (and likewise
    /// for tracks; with both, a note sounds when its track and its channel pass).
    public func setChannel(_ channel: Int, soloed: Bool) { set(channelSoloed[channel], soloed) }

    public func isTrackMuted(_ track: Int) -> Bool { trackMuted[track].load(ordering: .relaxed) }
    public func isTrackSoloed(_ track: Int) -> Bool { trackSoloed[track].load(ordering: .relaxed) }
    public func isChannelMuted(_ channel: Int) -> Bool { channelMuted[channel].load(ordering: .relaxed) }
    public func isChannelSoloed(_ channel: Int) -> Bool { channelSoloed[channel].load(ordering: .relaxed) }

    private func set(_ flag: ManagedAtomic<Bool>, _ value: Bool) {
        flag.store(value, ordering: .relaxed)
        audibilityGeneration.wrappingIncrement(ordering: .releasing)
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
        pendingStateMessages = Chase.stateMessages(from: schedule[..<low].lazy.map { (track: $0.track, message: $0.message) })
        pendingStateDelivered = false
        pendingAllNotesOff = true
        finished.store(false, ordering: .releasing)
    }

    // MARK: Delivery (render thread)

    /// The sample time of the next scheduled event not yet delivered, nil when none is left. Read it
    /// from the delivering thread, between `deliverEvents` calls (a real-time sequencer uses it to
    /// stamp each message with its exact time).
    public var nextEventSampleTime: Int64? {
        cursor < schedule.count ? schedule[cursor].sampleTime : nil
    }

    public func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        let generation = audibilityGeneration.load(ordering: .acquiring)
        if generation != seenGeneration {
            seenGeneration = generation
            updateAudibility()
            endNotes(to: receiver) { [trackAudible, channelAudible] track, channel in
                !(trackAudible[track] && channelAudible[channel])
            }
        }
        if pendingAllNotesOff {
            pendingAllNotesOff = false
            endNotes(to: receiver) { _, _ in true }
        }
        if !pendingStateDelivered {
            pendingStateDelivered = true
            for index in 0..<pendingStateMessages.count { receiver.receive(pendingStateMessages[index].message) }
        }
        while cursor < schedule.count && schedule[cursor].sampleTime < sampleTime {
            deliver(schedule[cursor], to: receiver)
            cursor += 1
        }
        if cursor == schedule.count && sampleTime >= durationInSamples {
            finished.store(true, ordering: .releasing)
        }
    }

    private func deliver(_ event: ScheduledEvent, to receiver: any MIDIReceiver) {
        switch event.message {
        case .noteOn(let channel, let note, let velocity) where velocity > 0:
            guard trackAudible[event.track] && channelAudible[Int(channel)] else { return }
            setSounding(event.track, channel, note, true)
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            // Only end notes this player started: a note-on held back by a mute has no note-off either.
            guard isSounding(event.track, channel, note) else { return }
            setSounding(event.track, channel, note, false)
        default:
            break
        }
        receiver.receive(event.message)
    }

    private func updateAudibility() {
        let anyTrackSoloed = trackSoloed.contains { $0.load(ordering: .relaxed) }
        let anyChannelSoloed = channelSoloed.contains { $0.load(ordering: .relaxed) }
        for track in 0..<trackCount {
            trackAudible[track] = !trackMuted[track].load(ordering: .relaxed)
                && (!anyTrackSoloed || trackSoloed[track].load(ordering: .relaxed))
        }
        for channel in 0..<16 {
            channelAudible[channel] = !channelMuted[channel].load(ordering: .relaxed)
                && (!anyChannelSoloed || channelSoloed[channel].load(ordering: .relaxed))
        }
    }

    /// Sends a note-off for every sounding note for which `shouldEnd(track, channel)` holds.
    private func endNotes(to receiver: any MIDIReceiver, where shouldEnd: (Int, Int) -> Bool) {
        for track in 0..<trackCount {
            for channel in 0..<16 {
                let firstWord = track * MusicPlayer.wordsPerTrack + channel * 2
                guard soundingNotes[firstWord] | soundingNotes[firstWord + 1] != 0, shouldEnd(track, channel) else { continue }
                for note in 0..<128 where isSounding(track, UInt8(channel), UInt8(note)) {
                    setSounding(track, UInt8(channel), UInt8(note), false)
                    receiver.receive(.noteOff(channel: UInt8(channel), note: UInt8(note), velocity: 0))
                }
            }
        }
    }

    private func isSounding(_ track: Int, _ channel: UInt8, _ note: UInt8) -> Bool {
        let bit = Int(channel) * 128 + Int(note)
        return soundingNotes[track * MusicPlayer.wordsPerTrack + bit / 64] & (1 << UInt64(bit % 64)) != 0
    }

    private func setSounding(_ track: Int, _ channel: UInt8, _ note: UInt8, _ sounding: Bool) {
        let bit = Int(channel) * 128 + Int(note)
        let word = track * MusicPlayer.wordsPerTrack + bit / 64
        if sounding { soundingNotes[word] |= 1 << UInt64(bit % 64) } else { soundingNotes[word] &= ~(1 << UInt64(bit % 64)) }
    }
}
