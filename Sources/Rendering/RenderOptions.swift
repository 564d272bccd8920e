import AudioGraph
import Effects
import Sampler
import LV2
import MIDIFile
import Player

/// Everything that shapes a render of a song, offline or in real time: the samplers' settings, how
/// the player plays the sequence (`SongOptions`, mutes and solos included), the effects after the sampler,
/// where the mix goes, and how long the audio runs on after the end.
public struct RenderOptions: Sendable {
    /// How long rendering goes on after the last event of the song.
    public enum Tail: Hashable, Sendable {
        /// Until the output falls silent (peak below `RenderOptions.silenceThreshold` for a whole
        /// block), but no longer than `maximumSeconds`.
        case untilSilent(maximumSeconds: Double)
        /// Exactly this many seconds.
        case fixed(seconds: Double)
    }

    /// The default tail: stop when silent, at most 3 s.
    public static let defaultTail = Tail.untilSilent(maximumSeconds: 3)
    /// Output peaks below this count as silence (`AudioBuffer.silenceThreshold`: half a 16-bit step).
    public static let silenceThreshold = AudioBuffer.silenceThreshold

    /// Output sample rate in Hz: the render's, which its samplers and player follow.
    public var sampleRate: Int = 44_100
    /// How every sampler of the render sounds: polyphony, interpolation, bank select, gain, reverb
    /// and chorus, per-channel programs, fonts and drums.
    public var sampler = SamplerSettings()
    /// How the song plays (start/end, loop, transpose, rate, mutes and solos): what the renderer's
    /// `MusicPlayer` takes, as every other destination's does.
    public var song = SongOptions()
    public var tail: Tail = RenderOptions.defaultTail
    /// Frames rendered per engine cycle (the most, in real time: the output's period).
    public var blockFrames = 512
    /// Effects after the sampler, in order (`--fx`); a trailing varispeed plays the whole output
    /// faster or slower. Nil: none.
    public var effects: EffectChainSpec?
    /// Channels of the rendered output. 2 unless a channel map spreads the stereo mix over more.
    public var outputChannelCount = 2
    /// Where the stereo mix (the route called `main`) goes among the `outputChannelCount` channels;
    /// nil: straight out, channels 1 and 2.
    public var channelMap: ChannelMap?
    /// Whether the renderer meters the mix (`SongRenderer.levelMeter`), for a status line to show.
    public var metersLevel = false
    /// One sampler per MIDI channel, each on its own stereo pair after the mix: 34 output channels
    /// (1-2 the mix, 3-4 channel 1 … 33-34 channel 16; `outputChannelCount` must be 34). No effects.
    public var channelOutputs = false
    /// How the song's channels are split among synthesizers whose outputs sum to the mix (see
    /// `ChannelGroups`); `.none`: one synthesizer plays every channel.
    public var channelSplit: ChannelSplit = .none
    /// Threads rendering the channel groups of `channelSplit` in parallel (offline rendering).
    public var threads = 1
    /// LV2 instruments playing some channels (`--instrument`); the other channels stay on the SoundFont
    /// sampler. Empty: the sampler plays every channel.
    public var instruments: [LV2InstrumentAssignment] = []
    /// Where LV2 plugins' scheduled work runs: synchronously in renders to files (they repeat exactly), on a
    /// worker thread in real-time playback (`SongPlayback` sets it).
    public var lv2Worker: LV2WorkerMode = .synchronous

    /// The channel groups every render to a file uses (`seqplay -o`, `seqplay render`), whatever
    /// the thread count, so the output is the same bytes on any number of threads and cores.
    public static let fileChannelGroups = 2

    /// These options as `seqplay` renders to a file: `fileChannelGroups` channel groups on `threads` threads
    /// (FluidSynth), or one sampler whose engine works on `threads` threads (`SamplerSettings.Engine.seqplay`).
    public func renderingToFile(threads: Int) -> RenderOptions {
        var options = self
        // seqplay's engine plays every channel from one voice pool, so it renders without groups, its
        // voices' sample work on the threads (the same bytes on any thread count too).
        options.channelSplit = sampler.engine == .seqplay ? .none : .balanced(Self.fileChannelGroups)
        if sampler.engine == .seqplay { options.sampler.engineThreads = threads }
        options.threads = threads
        return options
    }

    public init() {}
}

/// How a render splits a song's channels among synthesizers (`RenderOptions.channelSplit`).
public enum ChannelSplit: Hashable, Sendable {
    /// One synthesizer plays every channel.
    case none
    /// At most this many groups of about equal load (`ChannelGroups.balanced`).
    case balanced(Int)
    /// One group per channel used.
    case perChannel
    /// These groups.
    case groups(ChannelGroups)

    /// The groups for `sequence`, nil for `.none`; `.balanced` weighs each note by `noteCost` when given.
    public func groups(for sequence: MusicSequence, noteCost: ((ChannelGroups.CostedNote) -> Double)? = nil) -> ChannelGroups? {
        switch self {
        case .none: return nil
        case .balanced(let count): return .balanced(sequence, count: count, noteCost: noteCost)
        case .perChannel: return .perChannel(sequence)
        case .groups(let groups): return groups
        }
    }
}

extension RenderOptions {
    /// These options at `output`'s sample rate and channel count, in blocks of its period: what a
    /// `SongRenderer` for `SongPlayback` on that output needs, so the rate is the output's alone.
    public func matching(_ output: RealtimeOutput) -> RenderOptions {
        var options = self
        options.sampleRate = output.sampleRate
        options.outputChannelCount = output.channelCount
        options.blockFrames = output.periodFrames
        return options
    }
}
