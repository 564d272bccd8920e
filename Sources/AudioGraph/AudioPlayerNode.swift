import Atomics

/// A source node that plays audio held in memory at chosen sample times, once or looped: a backing
/// track or a click under a MIDI song (after AVAudioPlayerNode). Files are decoded into memory when
/// scheduled (see `scheduleFile` in AudioGraphFiles), never on the render thread.
///
/// Times are the engine's sample times (`RenderContext.sampleTime`, the grid the sampler's MIDI
/// events use): audio scheduled at sample S starts exactly at frame S of the engine's output, in
/// whatever cycle that falls. Sources scheduled over the same time are summed. The player sounds
/// only between `play()` and `stop()`; scheduled audio whose time passes while it is not playing is
/// skipped. Volume and pan are the mixer's: connect the player to a `MixerNode` and use
/// `setVolume(_:forInput:)` and `setPan(_:forInput:)` on that input.
///
/// Scheduling, `play()` and `stop()` may be called from any one control thread while the engine
/// renders; they reach the render thread through atomics, without locks. A scheduled buffer must not
/// be changed until it has played.
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone.
public final class AudioPlayerNode: AudioNode, @unchecked Sendable {
    /// `loops` value that repeats until `stop()`.
    public static let loopForever = Int.max

    /// The format the player produces.
    public let format: AudioFormat
    /// The most sources scheduled and not yet finished at once.
    public let capacity: Int

    private let slots: [Slot]
    private let playing = ManagedAtomic<Bool>(false)

    /// A player producing `format` that holds up to `capacity` scheduled sources at once.
    public init(name: String? = nil, format: AudioFormat = .standard, capacity: Int = 64) {
        precondition(capacity >= 1, "a player needs room for at least one scheduled source")
        self.format = format
        self.capacity = capacity
        slots = (0..<capacity).map { _ in Slot() }
        super.init(name: name)
    }

    /// Whether the player is sounding (between `play()` and `stop()`).
    public var isPlaying: Bool { playing.load(ordering: .relaxed) }

    /// Sources scheduled that have not finished playing.
    public var scheduledCount: Int { slots.count { $0.state.load(ordering: .acquiring) == Slot.scheduled } }

    /// Schedules `buffer` (its first `frameLength` frames) to start at engine sample time
    /// `sampleTime`, or at the next render cycle when nil, and to play `loops` more times straight
    /// after (0: once; `loopForever`: until `stop()`). The buffer must have the player's sample rate
    /// and its channel count, or one channel (played on every channel).
    public func scheduleBuffer(_ buffer: AudioBuffer, at sampleTime: Int64? = nil, loops: Int = 0) throws(AudioPlayerError) {
        try checkSource(named: "the buffer", sampleRate: buffer.format.sampleRate, channelCount: buffer.channelCount)
        guard buffer.frameLength > 0 else { throw .empty(source: "the buffer") }
        guard sampleTime ?? 0 >= 0 else { throw .negativeStartTime(sampleTime ?? 0) }
        precondition(loops >= 0, "loops must not be negative")
        reclaimCancelledSlots()
        guard let slot = slots.first(where: { $0.state.load(ordering: .acquiring) == Slot.free }) else {
            throw .full(capacity: capacity)
        }
        slot.buffer = buffer
        slot.start = sampleTime ?? Slot.nextCycle
        slot.playCount = loops == Self.loopForever ? Self.loopForever : loops + 1
        slot.state.store(Slot.scheduled, ordering: .releasing)
    }

    /// Throws if audio of `sampleRate` and `channelCount` from `source` (a name for the error)
    /// cannot be played by this player.
    public func checkSource(named source: String, sampleRate: Double, channelCount: Int) throws(AudioPlayerError) {
        guard sampleRate == format.sampleRate else {
            throw .sampleRateMismatch(source: source, sampleRate: sampleRate, playerSampleRate: format.sampleRate)
        }
        guard channelCount == format.channelCount || channelCount == 1 else {
            throw .channelCountMismatch(source: source, channelCount: channelCount, playerChannelCount: format.channelCount)
        }
    }

    /// Starts sounding the scheduled audio.
    public func play() { playing.store(true, ordering: .relaxed) }

    /// Stops sounding and drops everything scheduled.
    public func stop() {
        playing.store(false, ordering: .relaxed)
        for slot in slots {
            _ = slot.state.compareExchange(expected: Slot.scheduled, desired: Slot.cancelled, ordering: .acquiringAndReleasing)
        }
        reclaimCancelledSlots()
    }

    /// While the engine is not rendering, cancelled slots can be freed here; while it renders, the
    /// render thread frees them (so a buffer is never released under it).
    private func reclaimCancelledSlots() {
        guard engine?.isRunning != true else { return }
        for slot in slots where slot.state.load(ordering: .acquiring) == Slot.cancelled {
            slot.state.store(Slot.free, ordering: .releasing)
        }
    }

    // MARK: AudioNode

    public override var numberOfInputs: Int { 0 }

    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat { format }

    /// Drops everything scheduled; `isPlaying` is kept.
    public override func reset() {
        for slot in slots where slot.state.load(ordering: .acquiring) != Slot.free {
            slot.state.store(Slot.free, ordering: .releasing)
        }
    }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        output.clear()
        let isPlaying = playing.load(ordering: .relaxed)
        for index in slots.indices {
            let slot = slots[index]
            switch slot.state.load(ordering: .acquiring) {
            case Slot.cancelled:
                slot.state.store(Slot.free, ordering: .releasing)
            case Slot.scheduled where isPlaying:
                if Self.mix(slot, into: output, context) { slot.state.store(Slot.free, ordering: .releasing) }
            default:
                break
            }
        }
    }

    /// Adds the part of `slot`'s audio that falls in this cycle to `output`; true when it has
    /// finished. A separate function so every reference to the buffer is gone before the slot is freed.
    private static func mix(_ slot: Slot, into output: AudioBuffer, _ context: RenderContext) -> Bool {
        guard let buffer = slot.buffer else { return true }
        if slot.start == Slot.nextCycle { slot.start = context.sampleTime }
        let length = Int64(buffer.frameLength)
        let cycleEnd = context.sampleTime + Int64(context.frameCount)
        let end = slot.playCount == loopForever || slot.playCount > (Int64.max - slot.start) / length
            ? Int64.max : slot.start + length * Int64(slot.playCount)
        let stop = min(cycleEnd, end)
        var time = max(context.sampleTime, slot.start)
        while time < stop {
            let position = Int((time - slot.start) % length)
            let count = Int(min(length - Int64(position), stop - time))
            let offset = Int(time - context.sampleTime)
            for channel in 0..<output.channelCount {
                let source = buffer[buffer.channelCount == 1 ? 0 : channel].baseAddress! + position
                let destination = output[channel].baseAddress! + offset
                for i in 0..<count { destination[i] += source[i] }
            }
            time += Int64(count)
        }
        return end <= cycleEnd
    }

    /// One scheduled source. The control thread writes the fields of a free slot, then publishes it
    /// by storing `scheduled`; from then the render thread owns it until it stores `free`.
    private final class Slot {
        static let free = 0, scheduled = 1, cancelled = 2
        static let nextCycle: Int64 = -1

        let state = ManagedAtomic<Int>(free)
        var buffer: AudioBuffer?
        var start: Int64 = 0
        var playCount = 1
    }
}

/// Why a player refused to schedule audio.
public enum AudioPlayerError: Error, Equatable, CustomStringConvertible {
    /// The audio's sample rate is not the player's.
    case sampleRateMismatch(source: String, sampleRate: Double, playerSampleRate: Double)
    /// The audio has neither the player's channel count nor one channel.
    case channelCountMismatch(source: String, channelCount: Int, playerChannelCount: Int)
    /// The audio has no frames.
    case empty(source: String)
    /// `capacity` sources are already scheduled and unfinished.
    case full(capacity: Int)
    /// A start time before the engine's sample time 0.
    case negativeStartTime(Int64)

    public var description: String {
        switch self {
        case .sampleRateMismatch(let source, let rate, let playerRate):
            return "\(source) is at \(AudioFormat(sampleRate: rate, channelCount: 1).description.prefix { $0 != "," }) "
                + "but the player plays at \(AudioFormat(sampleRate: playerRate, channelCount: 1).description.prefix { $0 != "," }); "
                + "an engine runs at one sample rate and a ConverterNode does not change it: resample the audio first "
                + "(e.g. sox in.wav -r \(Int(playerRate)) out.wav)"
        case .channelCountMismatch(let source, let channels, let playerChannels):
            return "\(source) has \(channels) channels but the player plays \(playerChannels) (or mono); "
                + "make a player with \(channels) channels and put a ConverterNode(channelCount: \(playerChannels)) after it"
        case .empty(let source):
            return "\(source) has no audio frames"
        case .negativeStartTime(let time):
            return "start time \(time) is before sample 0: schedule at a sample time of 0 or more, or nil for the next render cycle"
        case .full(let capacity):
            return "the player already holds \(capacity) unfinished sources; stop it or make it with a larger capacity"
        }
    }
}
