import AudioFiles
import AudioGraph
import SoundFontFile
import SeqplaySupport
import Effects
import Sampler
import LV2
import MIDICore
import MIDIFile
import Player

/// Renders a MIDI sequence through SoundFonts to audio: the graph
/// song → one `MusicPlayer` → a router splitting its timed events by channel → `SamplerNode` (or one per
/// channel group) and the LV2 instruments → effect chain → mixer → (channel map) → output, then the
/// chain's varispeed if it has one, pulled block by block, with the tail after the song's end cut
/// where the output falls silent (or at a fixed length). Offline rendering (`render(to:)`) and
/// real-time playback (`SongPlayback`) both use it, so both hear the same graph.
///
/// ```swift
/// let renderer = try SongRenderer(sequence: song, soundFontPaths: ["piano.sf2"], options: RenderOptions())
/// try renderer.render(toFile: "song.wav")   // at the options' sample rate; finishes the file
/// ```
///
/// `render(to:progress:)` is the whole job; `renderNextBlock()` is the step it repeats, for callers
/// that consume the audio themselves, and `renderBlock(frameCount:)` the fixed-size step of a
/// real-time output. Rendering a block neither allocates, locks nor does I/O. One thread renders.
public final class SongRenderer {
    /// Sample rates FluidSynth renders at.
    public static let supportedSampleRates = 8_000...96_000

    public let options: RenderOptions
    /// The song, prepared once for the player, the channel groups and whoever follows the render
    /// (a JACK MIDI output's player).
    public let song: PreparedSong
    /// The player feeding the sampler; mute and solo may still be changed while rendering.
    public let player: MusicPlayer
    public let sampler: SamplerNode
    /// Every sampler playing: `sampler`, or with channel groups (`options.channelSplit`,
    /// `options.channelOutputs`) one per group.
    public let samplers: [SamplerNode]
    /// With channel groups: the node rendering them (its bus 1 + g is group g alone).
    public let channelGroups: ChannelGroupSampler?
    public let engine: AudioEngine
    /// The LV2 instruments of `options.instruments`, in order, fed by the same player as the sampler.
    public let instruments: [LV2InstrumentNode]
    /// Meters the stereo mix after the effects (before the varispeed and the channel map), when
    /// `options.metersLevel` asks for it.
    public let levelMeter: LevelMeterTap?
    /// Frames of the song itself (start to end, loops included), before the tail.
    public let songFrames: Int64
    /// The most frames the render can produce: the song plus the longest tail.
    public let maximumFrames: Int64
    /// Frames rendered so far (a seek moves it to the frame of the new position).
    public var renderedFrames: Int64 { length.renderedFrames }
    /// True once the song and its tail have been rendered.
    public var isFinished: Bool { length.isFinished }

    /// The song, then its tail (until silent, or fixed): how far the render goes, and how far it got.
    var length: RenderLength
    /// Frames by which the effects delay the sound (rendered and dropped at the start; followed as LV2
    /// effects report changes, `followEffectLatency()`).
    var effectLatencyFrames: Int
    /// The LV2 effects, whose reported latency may change while rendering.
    let lv2Effects: [LV2EffectNode]
    /// The other effects' latency (fixed).
    let fixedEffectLatencyFrames: Int
    /// Output frames of silence still to put in because the effects' latency fell.
    var pendingSilenceFrames = 0
    /// The silence put in (and a block made of silence and sound, for `renderBlock`).
    let latencyGap: AudioBuffer
    /// The one path of the player's events: split by channel among the sampler (or its channel
    /// groups) and the LV2 instruments.
    let router: SongEventRouter
    let varispeed: VarispeedRenderer?
    /// Player samples per output frame: the varispeed's rate, 1 without one.
    let speed: Double

    /// Builds and starts the graph: loads `soundFontPaths` in order (later fonts take priority), once
    /// however many synthesizers play them (`SharedSoundFonts`), plays `sequence` as `options.song`
    /// asks (a `MusicPlayer` applies it, mutes and solos included), inserts the effects.
    public convenience init(sequence: MusicSequence, soundFontPaths: [String], options: RenderOptions) throws(RenderError) {
        try self.init(song: PreparedSong(sequence), soundFontPaths: soundFontPaths, options: options)
    }

    /// Builds and starts the graph as `init(sequence:soundFontPaths:options:)` does, for a song
    /// prepared once (`PreparedSong`): its tempo map and channels are not worked out again.
    public convenience init(song: PreparedSong, soundFontPaths: [String], options: RenderOptions) throws(RenderError) {
        let fonts: SharedSoundFonts
        do throws(SoundFontError) {
            fonts = try SharedSoundFonts(paths: options.sampler.fontLoadOrder(soundFontPaths), engine: options.sampler.engine)
        } catch {
            throw .soundFont(error)
        }
        try self.init(song: song, options: options) { () throws(RenderError) in
            try Self.makeSampler(options: options) { $0.addSoundFonts(fonts) }
        }
    }

    /// Builds and starts the graph around the samplers `makeSampler` makes, as
    /// `init(song:options:makeSampler:)` does for `sequence` prepared here.
    public convenience init(sequence: MusicSequence, options: RenderOptions,
                            makeSampler: () throws(RenderError) -> SamplerNode) throws(RenderError) {
        try self.init(song: PreparedSong(sequence), options: options, makeSampler: makeSampler)
    }

    /// Builds and starts the graph around the samplers `makeSampler` makes (one, or with
    /// `options.channelOutputs` one per channel used; each with its fonts, attached to no running
    /// engine): plays `song` as `options.song` asks, inserts the effects.
    public init(song: PreparedSong, options: RenderOptions,
                makeSampler: () throws(RenderError) -> SamplerNode) throws(RenderError) {
        guard Self.supportedSampleRates.contains(options.sampleRate) else { throw .unsupportedSampleRate(options.sampleRate) }
        let tailSeconds: Double
        switch options.tail {
        case .untilSilent(let seconds), .fixed(let seconds): tailSeconds = seconds
        }
        guard tailSeconds.within(0...SongOptions.maximumDuration) != nil else { throw .invalidTail(tailSeconds) }

        do throws(SongOptionsError) {
            player = try MusicPlayer(song: song, sampleRate: options.sampleRate, options: options.song)
        } catch {
            throw .song(error)
        }
        instruments = options.instruments.map { assignment in
            let node = LV2InstrumentNode(settings: assignment.settings, channels: assignment.channels)
            node.workerMode = options.lv2Worker
            return node
        }
        let instrumentChannels = options.instruments.map(\.channels)

        engine = AudioEngine()
        let format = AudioFormat(sampleRate: Double(options.sampleRate), channelCount: options.outputChannelCount)
        do throws(AudioEngineError) {
            try engine.enableManualRenderingMode(format: format, maximumFrameCount: options.blockFrames)
        } catch {
            throw .engine(error.description)
        }
        let mix: MixerNode
        var effects: [AudioNode] = []
        let split = options.channelOutputs ? .perChannel : options.channelSplit
        // Channels LV2 instruments play reach the sampler empty: they cost it nothing and need no voices.
        // The router gives each instrument its channels (before any group that has them too).
        let silentChannels = Set(instrumentChannels.joined())
        if let groups = try Self.channelGroups(split, of: song, silentChannels: silentChannels, makeSampler: makeSampler) {
            router = SongEventRouter(source: player, channels: groups.groups + instrumentChannels, groupCount: groups.groups.count)
            // Each group's sampler may sound the whole budget; together they keep it (`VoiceLedger`).
            let node = try ChannelGroupSampler(groups: groups, router: router, voiceBudget: options.sampler.polyphony,
                                               threads: options.threads, rangeFrames: Self.threadedRangeFrames,
                                               cyclesAlone: options.channelOutputs, makeSampler: makeSampler)
            channelGroups = node
            samplers = node.samplers
            if let first = samplers.first { sampler = first } else { sampler = try makeSampler() }
            if options.channelOutputs {
                guard instruments.isEmpty else { throw .engine("LV2 instruments do not combine with channel outputs") }
                mix = try ChannelOutputs.connect(engine, node, sampleRate: options.sampleRate)
            } else {
                (mix, effects) = try Self.connectGraph(of: engine, source: node, instruments: instruments, options: options)
            }
        } else {
            router = SongEventRouter(source: player, channels: [(0..<16).filter { !silentChannels.contains($0) }] + instrumentChannels,
                                     groupCount: 1)
            sampler = try makeSampler()
            sampler.eventSource = router.pullingSource(of: 0)
            (mix, effects) = try Self.connectGraph(of: engine, source: sampler, instruments: instruments, options: options)
            samplers = [sampler]
            channelGroups = nil
        }
        router.receivers = samplers + instruments
        for (index, node) in instruments.enumerated() { node.eventSource = router.pullingSource(of: router.groupCount + index) }
        levelMeter = options.metersLevel ? LevelMeterTap() : nil
        if let levelMeter { mix.installTap(levelMeter, at: .output(bus: 0)) }
        do throws(AudioEngineError) {
            try engine.start()
        } catch {
            throw .engine(error.description)
        }
        if let rate = options.effects?.varispeedRate {
            do throws(VarispeedError) {
                let varispeed = try VarispeedRenderer(engine: engine)
                varispeed.rate = rate
                self.varispeed = varispeed
            } catch {
                throw .varispeed(error)
            }
            speed = Double(rate)
        } else {
            varispeed = nil
            speed = 1
        }

        self.options = options
        self.song = song
        songFrames = song.isEmpty ? 0 : Int64((Double(player.durationInSamples) / speed).rounded(.up))
        let stopsAtSilence: Bool
        if case .untilSilent = options.tail { stopsAtSilence = true } else { stopsAtSilence = false }
        length = RenderLength(contentFrames: songFrames, tailFrames: Int64((tailSeconds * Double(options.sampleRate)).rounded()),
                              stopsAtSilence: stopsAtSilence)
        maximumFrames = length.maximumFrames
        effectLatencyFrames = effects.latencyFrames
        lv2Effects = effects.compactMap { $0 as? LV2EffectNode }
        fixedEffectLatencyFrames = effects.filter { !($0 is LV2EffectNode) }.latencyFrames
        latencyGap = AudioBuffer(format: format, frameCapacity: options.blockFrames)
        limitRenderingAhead()
        skipEffectLatency(effects.latencyFrames)
    }

    /// The channel groups of `split` for `sequence`, balanced by the note-cost model on a probe
    /// sampler `makeSampler` makes (channels in `silentChannels` cost nothing); nil for `.none`
    /// (one synthesizer).
    static func channelGroups(_ split: ChannelSplit, of song: PreparedSong, silentChannels: Set<Int> = [],
                              makeSampler: () throws(RenderError) -> SamplerNode) throws(RenderError) -> ChannelGroups? {
        switch split {
        case .none: return nil
        case .perChannel: return .perChannel(song)
        case .groups(let groups): return groups
        case .balanced(let count):
            let estimate = try NoteCostEstimate(probe: makeSampler())
            let load = ChannelGroups.walkNotes(of: song) { note, _ in
                silentChannels.contains(Int(note.channel)) ? 0 : estimate.cost(note)
            }
            return .balanced(load: load, count: count)
        }
    }

    /// Renders and drops the frames by which the effects' look-ahead (the limiter's) delays the sound,
    /// so that output frame 0 is the song's sample 0 and every note keeps its time.
    func skipEffectLatency(_ latencyFrames: Int) {
        var pending = Int((Double(latencyFrames) / speed).rounded())
        while pending > 0, let block = pull(frameCount: min(options.blockFrames, pending)) {
            pending -= block.frameLength
        }
    }

    /// A sampler set up as `options` ask, its fonts given by `loadFonts` (loaded files, or fonts
    /// shared with other samplers) before the sound settings are applied.
    public static func makeSampler(options: RenderOptions,
                                   loadFonts: (SamplerNode) throws(SoundFontError) -> Void) throws(RenderError) -> SamplerNode {
        let sampler: SamplerNode
        do throws(SynthesizerError) {
            sampler = try SamplerNode(settings: options.sampler, sampleRate: Double(options.sampleRate))
        } catch {
            throw .synthesizer("\(error)")
        }
        do throws(SoundFontError) {
            try loadFonts(sampler)
        } catch {
            throw .soundFont(error)
        }
        do throws(SynthesizerError) {
            try sampler.apply(options.sampler)
        } catch {
            throw .synthesizer("\(error)")
        }
        return sampler
    }

    /// Frames in each range the channel groups render ahead when several threads render them.
    static let threadedRangeFrames = 4096

    /// Connects the sampler (or channel groups) → effects → the stereo mix, and the mix to the output
    /// (through a router when `options.channelMap` spreads it over more channels). Returns the mix
    /// and the effect nodes. The engine's output format must be set already.
    static func connectGraph(of engine: AudioEngine, source samplerSource: AudioNode, instruments: [LV2InstrumentNode],
                                     options: RenderOptions) throws(RenderError) -> (MixerNode, [AudioNode]) {
        let effects = options.effects?.makeNodes() ?? []
        for case let node as LV2EffectNode in effects { node.workerMode = options.lv2Worker }
        var source = samplerSource
        if !instruments.isEmpty {
            // The sampler and the instruments summed (at unity) before the effects.
            let instrumentMix = MixerNode(name: "instruments", format: AudioFormat(sampleRate: Double(options.sampleRate), channelCount: 2))
            for node in [samplerSource, instrumentMix] + instruments { engine.attach(node) }
            for node in [samplerSource] + instruments { engine.connect(node, to: instrumentMix) }
            source = instrumentMix
        }
        for node in [source] + effects { engine.attach(node) }
        guard let map = options.channelMap else {
            engine.connect([source] + effects + [engine.mainMixerNode])
            return (engine.mainMixerNode, effects)
        }
        guard map.requiredChannelCount <= options.outputChannelCount else {
            throw .channelMap(.deviceTooSmall(route: map.routes.last!.name, deviceChannelCount: options.outputChannelCount))
        }
        let mix = MixerNode(name: "main", format: AudioFormat(sampleRate: Double(options.sampleRate), channelCount: 2))
        do throws(ChannelMapError) {
            try engine.connectRoutes(["main": mix], map: map)
        } catch {
            throw .channelMap(error)
        }
        engine.connect([source] + effects + [mix])
        return (mix, effects)
    }
}
