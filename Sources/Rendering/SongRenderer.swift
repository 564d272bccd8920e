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
/// sequence → `MusicPlayer` → `SamplerNode` → effect chain → mixer → (channel map) → output, then the
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
    /// The player feeding the sampler; mute and solo may still be changed while rendering.
    public let player: MusicPlayer
    public let sampler: SamplerNode
    /// Every sampler playing: `sampler`, or with channel groups (`options.channelSplit`,
    /// `options.channelOutputs`) one per group.
    public let samplers: [SamplerNode]
    /// With channel groups: the node rendering them (its bus 1 + g is group g alone).
    public let channelGroups: ChannelGroupSampler?
    public let engine: AudioEngine
    /// The LV2 instruments of `options.instruments`, in order, each fed by its own player of the song.
    public let instruments: [LV2InstrumentNode]
    private let instrumentSources: [SeekableEventSource]
    /// Meters the stereo mix after the effects (before the varispeed and the channel map), when
    /// `options.metersLevel` asks for it.
    public let levelMeter: LevelMeterTap?
    /// Frames of the song itself (start to end, loops included), before the tail.
    public let songFrames: Int64
    /// The most frames the render can produce: the song plus the longest tail.
    public let maximumFrames: Int64
    /// Frames rendered so far (a seek moves it to the frame of the new position).
    public private(set) var renderedFrames: Int64 = 0
    /// True once the song and its tail have been rendered.
    public private(set) var isFinished = false

    private let tailFrames: Int64
    private let stopsAtSilence: Bool
    /// Frames by which the effects delay the sound (rendered and dropped at the start; followed as LV2
    /// effects report changes, `followEffectLatency()`).
    private var effectLatencyFrames: Int
    /// The LV2 effects, whose reported latency may change while rendering.
    private let lv2Effects: [LV2EffectNode]
    /// The other effects' latency (fixed).
    private let fixedEffectLatencyFrames: Int
    /// Output frames of silence still to put in because the effects' latency fell.
    private var pendingSilenceFrames = 0
    /// The silence put in (and a block made of silence and sound, for `renderBlock`).
    private let latencyGap: AudioBuffer
    private let eventSource: SeekableEventSource
    private let varispeed: VarispeedRenderer?
    /// Player samples per output frame: the varispeed's rate, 1 without one.
    private let speed: Double

    /// Builds and starts the graph: loads `soundFontPaths` in order (later fonts take priority), once
    /// however many synthesizers play them (`SharedSoundFonts`), plays `sequence` as `options.song`
    /// asks (a `MusicPlayer` applies it, mutes and solos included), inserts the effects.
    public convenience init(sequence: MusicSequence, soundFontPaths: [String], options: RenderOptions) throws(RenderError) {
        let fonts: SharedSoundFonts
        do throws(SoundFontError) {
            fonts = try SharedSoundFonts(paths: options.sampler.fontLoadOrder(soundFontPaths))
        } catch {
            throw .soundFont(error)
        }
        try self.init(sequence: sequence, options: options) { () throws(RenderError) in
            try Self.makeSampler(options: options) { $0.addSoundFonts(fonts) }
        }
    }

    /// Builds and starts the graph around the samplers `makeSampler` makes (one, or with
    /// `options.channelOutputs` one per channel used; each with its fonts, attached to no running
    /// engine): plays `sequence` as `options.song` asks, inserts the effects.
    public init(sequence: MusicSequence, options: RenderOptions,
                makeSampler: () throws(RenderError) -> SamplerNode) throws(RenderError) {
        guard Self.supportedSampleRates.contains(options.sampleRate) else { throw .unsupportedSampleRate(options.sampleRate) }
        let tailSeconds: Double
        switch options.tail {
        case .untilSilent(let seconds), .fixed(let seconds): tailSeconds = seconds
        }
        guard tailSeconds.within(0...SongOptions.maximumDuration) != nil else { throw .invalidTail(tailSeconds) }

        let isEmpty = TempoMap(sequence: sequence.concatenatingPatterns()).endTick == 0
        // Each LV2 instrument has a player of its own; the sampler gets nothing on their channels.
        var instrumentSources: [SeekableEventSource] = []
        do throws(SongOptionsError) {
            player = try MusicPlayer(sequence: sequence, sampleRate: options.sampleRate, options: options.song)
            for _ in options.instruments {
                instrumentSources.append(SeekableEventSource(
                    player: try MusicPlayer(sequence: sequence, sampleRate: options.sampleRate, options: options.song)))
            }
        } catch {
            throw .song(error)
        }
        self.instrumentSources = instrumentSources
        instruments = zip(options.instruments, instrumentSources).map { assignment, source in
            let node = LV2InstrumentNode(settings: assignment.settings, channels: assignment.channels)
            node.eventSource = source
            node.workerMode = options.lv2Worker
            return node
        }

        eventSource = SeekableEventSource(player: player)
        let samplerSource: any ScheduledMIDISource = options.instruments.isEmpty ? eventSource
            : ChannelDroppingSource(source: eventSource, channels: options.instruments.flatMap(\.channels))

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
        let instrumentChannels = Set(options.instruments.flatMap(\.channels))
        if let groups = try Self.channelGroups(split, of: sequence, silentChannels: instrumentChannels, makeSampler: makeSampler) {
            // Each group's sampler may sound the whole budget; together they keep it (`VoiceLedger`).
            let node = try ChannelGroupSampler(groups: groups, source: samplerSource, voiceBudget: options.sampler.polyphony,
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
            sampler = try makeSampler()
            sampler.eventSource = samplerSource
            (mix, effects) = try Self.connectGraph(of: engine, source: sampler, instruments: instruments, options: options)
            samplers = [sampler]
            channelGroups = nil
        }
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
        songFrames = isEmpty ? 0 : Int64((Double(player.durationInSamples) / speed).rounded(.up))
        tailFrames = Int64((tailSeconds * Double(options.sampleRate)).rounded())
        maximumFrames = songFrames + tailFrames
        if case .untilSilent = options.tail { stopsAtSilence = true } else { stopsAtSilence = false }
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
    static func channelGroups(_ split: ChannelSplit, of sequence: MusicSequence, silentChannels: Set<Int> = [],
                              makeSampler: () throws(RenderError) -> SamplerNode) throws(RenderError) -> ChannelGroups? {
        switch split {
        case .none: return nil
        case .perChannel, .groups: return split.groups(for: sequence)
        case .balanced(let count):
            let estimate = try NoteCostEstimate(probe: makeSampler())
            let load = ChannelGroups.walkNotes(of: sequence) { note, _ in
                silentChannels.contains(Int(note.channel)) ? 0 : estimate.cost(note)
            }
            return .balanced(load: load, count: count)
        }
    }

    /// Renders and drops the frames by which the effects' look-ahead (the limiter's) delays the sound,
    /// so that output frame 0 is the song's sample 0 and every note keeps its time.
    private func skipEffectLatency(_ latencyFrames: Int) {
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
    private static func connectGraph(of engine: AudioEngine, source samplerSource: AudioNode, instruments: [LV2InstrumentNode],
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

    // MARK: Position

    /// Where the player is, in its samples (0 = the start of playback, `player.durationInSamples` =
    /// the end). Readable from another thread while rendering (a snapshot).
    public var playerPosition: Int64 { engine.sampleTime + eventSource.offset }

    /// Moves playback to player sample `sampleTime` (clamped to the song): notes sounding end, the
    /// controllers and programs of that point are sent, and rendering carries on from there. Not
    /// real-time safe, and not while a block renders: call it between blocks from the rendering
    /// thread, or while that thread is held off (`SongPlayback` does this). With channel groups on
    /// several threads, what they rendered ahead is dropped; the notes sounding then release from
    /// where the groups had got to, so the first second after the seek may differ from one thread's.
    public func seek(toSample sampleTime: Int64) {
        let target = min(max(0, sampleTime), player.durationInSamples)
        player.seek(toSample: target)
        eventSource.offset = target - engine.sampleTime
        for source in instrumentSources {
            source.player.seek(toSample: target)
            source.offset = target - engine.sampleTime
        }
        channelGroups?.discardRenderedAhead()
        renderedFrames = Int64((Double(target) / speed).rounded())
        isFinished = false
        limitRenderingAhead()
    }

    /// Tells the channel groups the last engine frame a render to the end pulls from here (a block
    /// more for varispeed's rounding), so they do not render ahead past it.
    private func limitRenderingAhead() {
        let engineFrames = (Double(maximumFrames - renderedFrames) * speed).rounded(.up)
        channelGroups?.renderAheadLimit = engine.sampleTime + Int64(engineFrames) + Int64(effectLatencyFrames + options.blockFrames)
    }

    /// Puts `wrap(source)` between the player and the sampler(s), e.g. to record the events they
    /// get. Before rendering.
    public func interceptEvents(_ wrap: (any ScheduledMIDISource) -> any ScheduledMIDISource) {
        // With LV2 instruments, what the sampler takes is the player without their channels: wrap the player,
        // so the wrapper sees every channel's events (the instruments' players play the same song).
        let current = channelGroups?.fanOut.source ?? sampler.eventSource
        if let dropping = current as? ChannelDroppingSource {
            dropping.source = wrap(dropping.source)
        } else if let channelGroups {
            channelGroups.fanOut.source = wrap(channelGroups.fanOut.source)
        } else if let source = sampler.eventSource {
            sampler.eventSource = wrap(source)
        }
    }

    // MARK: Rendering

    /// Renders the next block (at most `options.blockFrames` frames, never past the song's end
    /// or the tail's) and returns it, valid until the next call; nil once finished. In the tail, a
    /// block whose peak is below `RenderOptions.silenceThreshold` ends the render (when the tail
    /// stops at silence) and is still returned. Real-time safe.
    public func renderNextBlock() -> AudioBuffer? {
        guard !isFinished else { return nil }
        followEffectLatency()
        let remaining = renderedFrames < songFrames ? songFrames - renderedFrames : maximumFrames - renderedFrames
        let frameCount = Int(min(Int64(options.blockFrames), remaining))
        if remaining > 0, let silence = pendingSilence(frameCount: frameCount) { return silence }
        guard remaining > 0, let block = pull(frameCount: frameCount) else {
            isFinished = true
            return nil
        }
        advance(over: block)
        return block
    }

    /// Renders exactly `frameCount` frames (1...`options.blockFrames`), as a real-time output needs
    /// each period: like `renderNextBlock`, but the last block of the song or tail is not cut short,
    /// and rendering goes on (the sound dying away) after `isFinished` turns true. Real-time safe.
    public func renderBlock(frameCount: Int) -> AudioBuffer? {
        followEffectLatency()
        let silent = pendingSilenceFrames
        if silent >= frameCount { return pendingSilence(frameCount: frameCount) }
        guard let block = pull(frameCount: frameCount - silent) else { return nil }
        guard let gap = pendingSilence(frameCount: silent) else {
            if !isFinished { advance(over: block) }
            return block
        }
        // Silence, then the sound: one block of `frameCount` frames.
        gap.frameLength = frameCount
        gap.copy(from: block, frameCount: block.frameLength, toOffset: silent)
        if !isFinished { advance(over: block) }
        return gap
    }

    /// Keeps output frame 0 the song's sample 0 when an LV2 effect's reported latency changes while
    /// rendering (read after each of its runs): the frames it grew by are rendered and dropped, the frames it
    /// fell by are put in as silence before the next sound. Between blocks; real-time safe.
    private func followEffectLatency() {
        guard lv2Effects.count > 0 else { return }
        var latency = fixedEffectLatencyFrames
        for index in lv2Effects.indices { latency += lv2Effects[index].latencyFrames }
        guard latency != effectLatencyFrames else { return }
        let change = latency - effectLatencyFrames
        effectLatencyFrames = latency
        // In output frames, net of silence still pending.
        let frames = pendingSilenceFrames - Int((Double(change) / speed).rounded())
        pendingSilenceFrames = max(0, frames)
        var skipping = max(0, -frames)
        while skipping > 0, let block = pull(frameCount: min(options.blockFrames, skipping)) {
            skipping -= block.frameLength
        }
        limitRenderingAhead()
    }

    /// Up to `frameCount` frames of the silence pending (none: nil), counted as rendered.
    private func pendingSilence(frameCount: Int) -> AudioBuffer? {
        guard pendingSilenceFrames > 0 else { return nil }
        let frames = min(frameCount, pendingSilenceFrames)
        latencyGap.frameLength = frames
        latencyGap.clear()
        pendingSilenceFrames -= frames
        if !isFinished {
            renderedFrames += Int64(frames)
            if renderedFrames >= maximumFrames { isFinished = true }
        }
        return latencyGap
    }

    private func pull(frameCount: Int) -> AudioBuffer? {
        varispeed?.renderBlock(frameCount: frameCount) ?? engine.renderBlock(frameCount: frameCount)
    }

    /// Counts `block` as rendered and decides whether the render is finished.
    private func advance(over block: AudioBuffer) {
        let inTail = renderedFrames >= songFrames
        renderedFrames += Int64(block.frameLength)
        if renderedFrames >= maximumFrames || (inTail && stopsAtSilence && block.peak < RenderOptions.silenceThreshold) {
            isFinished = true
        }
    }

    /// Renders the whole song and tail into `writer` and finishes the file; on any failure, or when
    /// `isCancelled` turns true between blocks, the writer is cancelled, so no partial file is left
    /// under its name. `progress` is called every 16384 frames or so with the frames rendered so far.
    /// Returns the frames written, or nil when cancelled. (The loop is `render(into:)`'s.)
    @discardableResult
    public func render(to writer: AudioFileWriter, isCancelled: () -> Bool = { false },
                       progress: ((Int64) -> Void)? = nil) throws(RenderError) -> Int64? {
        try renderMeasuringPeak(to: writer, isCancelled: isCancelled, progress: progress)?.frames
    }

    /// Renders as `render(to:isCancelled:progress:)` does; returns the frames written and the highest
    /// absolute sample among them (1: full scale; above it, an integer file clipped), or nil when cancelled.
    public func renderMeasuringPeak(to writer: AudioFileWriter, isCancelled: () -> Bool = { false },
                                    progress: ((Int64) -> Void)? = nil) throws(RenderError) -> (frames: Int64, peak: Float)? {
        let output = BlockFileWriter(file: writer)
        do throws(AudioFileError) {
            guard try render(into: output, isCancelled: isCancelled, progress: { progress?($0) },
                             afterBlock: { _, _ in
                FluidSynthLog.forwardPendingMessages()
                LV2Log.forwardPendingMessages()
            }) else { return nil }
            try output.finish()
        } catch {
            writer.cancel()
            throw .audioFile(error)
        }
        return (renderedFrames, output.peak)
    }

    /// Renders the whole song and tail to the file at `path` (see `render(to:isCancelled:progress:)`),
    /// at the renderer's sample rate and channel count; `format` defaults to the one the extension
    /// names. Returns the frames written, or nil when cancelled.
    @discardableResult
    public func render(toFile path: String, format: AudioFileFormat? = nil, sampleFormat: AudioSampleFormat? = nil,
                       isCancelled: () -> Bool = { false }, progress: ((Int64) -> Void)? = nil) throws(RenderError) -> Int64? {
        let writer: AudioFileWriter
        do throws(AudioFileError) {
            writer = try AudioFileWriter(path: path, format: format, sampleFormat: sampleFormat,
                                         sampleRate: options.sampleRate, channelCount: options.outputChannelCount,
                                         expectedFrameCount: maximumFrames)
        } catch {
            throw .audioFile(error)
        }
        return try render(to: writer, isCancelled: isCancelled, progress: progress)
    }
}

/// The player as the sampler's event source, shifted by `offset` samples: the engine's sample time
/// runs on through a seek, the player's position jumps, and the offset bridges the two.
final class SeekableEventSource: ScheduledMIDISource, @unchecked Sendable {
    let player: MusicPlayer
    /// Player sample time minus engine sample time. Changed only between blocks (see `seek`).
    var offset: Int64 = 0

    init(player: MusicPlayer) { self.player = player }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        player.deliverEvents(before: sampleTime + offset, to: receiver)
    }

    var nextEventSampleTime: Int64? { player.nextEventSampleTime.map { $0 - offset } }
}

/// A source without the messages on some channels (those LV2 instruments play, for the SoundFont sampler).
final class ChannelDroppingSource: ScheduledMIDISource, MIDIReceiver, @unchecked Sendable {
    var source: any ScheduledMIDISource
    private var dropped = [Bool](repeating: false, count: 16)
    private var target: (any MIDIReceiver)?

    init(source: any ScheduledMIDISource, channels: [Int]) {
        self.source = source
        for channel in channels where (0..<16).contains(channel) { dropped[channel] = true }
    }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        target = receiver
        source.deliverEvents(before: sampleTime, to: self)
        target = nil
    }

    var nextEventSampleTime: Int64? { source.nextEventSampleTime }

    func receive(_ message: MIDIMessage) {
        if let channel = message.channel, dropped[Int(channel)] { return }
        target?.receive(message)
    }
}
