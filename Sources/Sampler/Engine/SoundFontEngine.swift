import Foundation
import SoundFontFile

/// seqplay's own SoundFont synthesizer (issue 31): 16 MIDI channels playing a stack of `SoundFontBank`s
/// (as FluidSynth stacks its fonts) from a fixed pool of voices, rendered as FluidSynth 2.3 renders
/// (4-point interpolation, its envelopes, LFOs, resonant filter, pan law and attenuation scale), except
/// that every event starts on its own sample: `render` takes events stamped with a frame offset. Its voices
/// send to FluidSynth 2.3's reverb and chorus (`setReverb(_:)`, `setChorus(_:)`; off in a new engine).
///
/// Everything is allocated at init; `render` takes no lock and allocates nothing. One engine is used by
/// one thread at a time (it is not `Sendable`); the banks it plays are shared.
public final class SoundFontEngine {
    /// A MIDI message the engine plays. Channels are 0...15; data values 0...127 (pitch bend 0...16383, 8192 centre).
    public enum Message: Sendable, Equatable {
        case noteOn(channel: Int, key: Int, velocity: Int)
        case noteOff(channel: Int, key: Int)
        case controlChange(channel: Int, controller: Int, value: Int)
        case programChange(channel: Int, program: Int)
        case pitchBend(channel: Int, value: Int)
        case channelPressure(channel: Int, value: Int)
        /// Polyphonic key pressure (aftertouch) on one key.
        case keyPressure(channel: Int, key: Int, value: Int)
        /// A SysEx message, with or without its F0/F7 framing: GM System On and GS and XG resets act as with
        /// libfluidsynth (`systemExclusive(_:)`); the others are ignored.
        case systemExclusive([UInt8])
        /// MIDI System Reset (0xFF): `reset()`.
        case systemReset
    }

    /// A message and the frame of the render call it happens on (0 is the call's first frame).
    public struct Event: Sendable, Equatable {
        public var frame: Int
        public var message: Message
        public init(frame: Int, _ message: Message) {
            self.frame = frame
            self.message = message
        }
    }

    /// The fonts played, in load order: a program change picks its preset from the last that has it
    /// (`setChannels(drums:programs:fonts:)` can tie a channel to one of them).
    public let banks: [SoundFontBank]
    /// The font loaded last, the one of highest priority.
    public let bank: SoundFontBank
    /// Output frames per second.
    public let sampleRate: Double
    /// The number of voices in the pool: notes beyond it steal voices by FluidSynth's priority rule.
    public let polyphony: Int
    /// How bank selects (CC 0, CC 32) choose banks and drum channels, as FluidSynth's `synth.midi-bank-select`
    /// (GS to begin with): GM ignores them; GS takes CC 0 as the bank; XG makes a channel a drum channel with
    /// CC 0 at 120 or above (melodic below) and takes CC 32 as the bank; MMA takes CC 0 × 128 + CC 32. A drum
    /// channel ignores CC 0 in GS and MMA and picks kits from bank 128 whatever its bank. GM System On, and a GS or
    /// XG reset that libfluidsynth takes as one (device id 0 or 0x7F), switch it as they do there.
    public var bankSelect: SamplerSettings.BankSelectMode = .gs

    /// FluidSynth's control block: envelopes, LFOs and modulation move once per 64 samples of a voice's life.
    static let blockSize = 64

    /// The unit conversions and their tables (`SynthMath.shared`).
    let math = SynthMath.shared
    let voices: UnsafeMutablePointer<Voice>
    /// Per voice, what the pool's scans read (`VoiceStatus`), apart from `voices`.
    let statuses: UnsafeMutablePointer<VoiceStatus>
    /// Per voice, `Gen.count` generator values (region values; the nominal pitch at `Gen.pitch`).
    let generatorValues: UnsafeMutablePointer<Float>
    /// Per voice, `Gen.count` modulator sums.
    let modulatorSums: UnsafeMutablePointer<Float>
    let channels: UnsafeMutablePointer<Channel>
    /// 16 × 128 controller values.
    let controllers: UnsafeMutablePointer<UInt8>
    /// 16 × 128 key pressures.
    let keyPressures: UnsafeMutablePointer<UInt8>
    /// Per channel, `Gen.count` generator offsets set by RPN tuning and SoundFont NRPNs (added to every voice's generators).
    let generatorOffsets: UnsafeMutablePointer<Float>
    /// Per voice, the samples of its current control block (written by the sample side, read by its mixes).
    let blockBuffers: UnsafeMutablePointer<Float>
    /// Per voice, the low-pass filter's two history values (sample side).
    let filterHistories: UnsafeMutablePointer<Float>
    /// Per voice, the chunk frame at which its control side next has work (`nextControlFrame(of:)`); Int.max when free.
    let nextControl: UnsafeMutablePointer<Int>
    /// The recorded sample work of the current chunk, and the threads that do it (`VoiceJobs`).
    let jobs: VoiceJobs
    /// The reverb and chorus, and the buses the voices send to.
    let effects: EngineEffects
    /// Where the current render call writes, how many frames it has, and where the current chunk starts in it.
    var output: (left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>)?
    var outputFrames = 0
    var chunkStart = 0
    /// The chunk frame the control side has reached: events apply here.
    var now = 0
    /// Per bank, where its sample points are while the sample side runs (`runJobs`).
    let highPoints: UnsafeMutablePointer<UnsafePointer<Int16>?>
    let lowPoints: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    var noteCounter: UInt64 = 0
    let minimumNoteTicks: Int

    /// An engine playing `bank` alone (`init(banks:sampleRate:polyphony:threads:)`).
    public convenience init(bank: SoundFontBank, sampleRate: Double = 44100, polyphony: Int = 256, threads: Int = 1) {
        self.init(banks: [bank], sampleRate: sampleRate, polyphony: polyphony, threads: threads)
    }

    /// An engine playing the stack `banks` (load order, at least one; later ones win, as FluidSynth's
    /// fonts loaded later do) at `sampleRate` with `polyphony` voices (FluidSynth's default is 256), its
    /// sample work done on `threads` threads (the calling one and `threads - 1` workers it starts). The voices
    /// are split into `VoiceJobs.groups` fixed groups whatever the thread count, each mixed into its own
    /// buffer and summed in order: the output is the same bytes on any number of threads.
    public init(banks: [SoundFontBank], sampleRate: Double = 44100, polyphony: Int = 256, threads: Int = 1) {
        precondition(!banks.isEmpty, "SoundFontEngine plays at least one bank")
        self.banks = banks
        bank = banks[banks.count - 1]
        self.sampleRate = sampleRate
        self.polyphony = max(1, polyphony)
        voices = .allocate(capacity: self.polyphony)
        voices.initialize(repeating: Voice(), count: self.polyphony)
        statuses = .allocate(capacity: self.polyphony)
        statuses.initialize(repeating: VoiceStatus(), count: self.polyphony)
        generatorValues = .allocate(capacity: self.polyphony * Gen.count)
        generatorValues.initialize(repeating: 0, count: self.polyphony * Gen.count)
        modulatorSums = .allocate(capacity: self.polyphony * Gen.count)
        modulatorSums.initialize(repeating: 0, count: self.polyphony * Gen.count)
        channels = .allocate(capacity: 16)
        channels.initialize(repeating: Channel(), count: 16)
        controllers = .allocate(capacity: 16 * 128)
        keyPressures = .allocate(capacity: 16 * 128)
        keyPressures.initialize(repeating: 0, count: 16 * 128)
        generatorOffsets = .allocate(capacity: 16 * Gen.count)
        generatorOffsets.initialize(repeating: 0, count: 16 * Gen.count)
        blockBuffers = .allocate(capacity: self.polyphony * Self.blockSize)
        blockBuffers.initialize(repeating: 0, count: self.polyphony * Self.blockSize)
        filterHistories = .allocate(capacity: self.polyphony * 2)
        filterHistories.initialize(repeating: 0, count: self.polyphony * 2)
        nextControl = .allocate(capacity: self.polyphony)
        nextControl.initialize(repeating: Int.max, count: self.polyphony)
        jobs = VoiceJobs(polyphony: self.polyphony, threads: threads)
        effects = EngineEffects(sampleRate: sampleRate)
        highPoints = .allocate(capacity: banks.count)
        highPoints.initialize(repeating: nil, count: banks.count)
        lowPoints = .allocate(capacity: banks.count)
        lowPoints.initialize(repeating: nil, count: banks.count)
        // FluidSynth's synth.min-note-length: a note-off within 10 ms of its note-on waits until then.
        minimumNoteTicks = Int(sampleRate * 0.010)
        for channel in 0..<16 {
            channels[channel].isDrumByDefault = channel == 9
            resetChannel(channel, program: true)
        }
        // The lazily made tables of NRPN steps and reset messages, made here: their first use on the render thread would allocate.
        _ = Self.nrpnScales.count
        _ = ResetKind.deviceResetBodies.count
    }

    deinit {
        voices.deinitialize(count: polyphony); voices.deallocate()
        statuses.deallocate()
        generatorValues.deallocate(); modulatorSums.deallocate()
        channels.deinitialize(count: 16); channels.deallocate()
        controllers.deallocate(); keyPressures.deallocate(); generatorOffsets.deallocate()
        blockBuffers.deallocate(); filterHistories.deallocate(); nextControl.deallocate()
        highPoints.deallocate(); lowPoints.deallocate()
    }

    /// Voices sounding now.
    public var activeVoiceCount: Int {
        var count = 0
        for v in 0..<polyphony where statuses[v].active { count += 1 }
        return count
    }

    // MARK: - Rendering

    /// Renders `frames` frames into `left` and `right` (overwritten), applying each event at its frame:
    /// a note starts on exactly that sample. Events must be in frame order; frames past the call are applied at its end.
    public func render(frames: Int, events: UnsafeBufferPointer<Event>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        beginRender(frames: frames, left: left, right: right)
        for event in events {
            advance(to: event.frame)
            apply(event.message)
        }
        endRender()
    }

    /// `render(frames:events:left:right:)` with the events in an array (no copy is made).
    public func render(frames: Int, events: [Event] = [], left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        events.withUnsafeBufferPointer { render(frames: frames, events: $0, left: left, right: right) }
    }

    /// Ends up to `count` sounding voices, those FluidSynth would steal first; returns how many it ended.
    public func endVoices(_ count: Int) -> Int {
        var ended = 0
        while ended < count && activeVoiceCount > 0 {
            stopVoice(freeVoice())
            ended += 1
        }
        return ended
    }

    /// A free voice, or the one FluidSynth would steal: released before sustained before held, oldest first.
    func freeVoice() -> Int {
        var best = 0
        var bestScore = Int.max
        for v in 0..<polyphony {
            let status = statuses[v]
            if !status.active { return v }
            let state = status.released ? 0 : status.sustained || status.heldBySostenuto ? 1 : 2
            let score = state << 56 | Int(truncatingIfNeeded: status.note & ((1 << 56) - 1))
            if score < bestScore { bestScore = score; best = v }
        }
        return best
    }

    /// The first chunk frame from which voice `v`'s control side has work: the frame after its next
    /// block boundary (events at a boundary come first), or its sample's end; Int.max when it is free.
    func nextControlFrame(of v: Int) -> Int {
        statuses[v].active ? min(voices[v].nextBoundary + 1, voices[v].endFrame) : Int.max
    }
}
