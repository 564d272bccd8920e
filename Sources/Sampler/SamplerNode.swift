import AudioGraph
import MIDICore
import Player
import SoundFontFile

/// A SoundFont sampler in the audio graph, like AVAudioUnitSampler: a stereo source node that
/// plays through FluidSynth, and a MIDI endpoint.
///
/// MIDI arrives two ways. `receive(_:)` acts at once (live input; the note starts at the next
/// 64-frame block). An `eventSource` (such as the MusicPlayer) is asked, at each 64-frame block
/// boundary S where an event may be due, for every event before S + 32, so each scheduled event
/// lands on the 64-sample boundary nearest its exact sample time; the blocks between two such
/// boundaries render in one FluidSynth call. The node's blocks follow FluidSynth's internal
/// 64-frame blocks, which stay aligned with the engine's sample-time grid from 0, whatever frame
/// counts the engine renders.
///
/// The sample rate follows the engine's output format, set at prepare. Set `eventSource` while the
/// engine is stopped. The render thread takes no lock: programs, gain, effects and notes-off set from
/// other threads are queued and applied at the next block; loading a font while the engine runs makes
/// the sampler play silence until it is loaded (the render thread never waits for it).
///
/// With `SamplerSettings.engine` `.seqplay`, seqplay's own `SoundFontEngine` plays instead (fonts shared
/// through `SharedSoundFonts(paths:engine:)` are loaded by the engine alone, which answers `soundFonts`,
/// `presets` and `program(onChannel:)`; a font given to `loadSoundFont(at:)` is also loaded by FluidSynth,
/// for the font-stack API live hosts use): each scheduled event is applied
/// on its own sample (the source's `nextEventSampleTime`), not on the 64-frame grid; live MIDI starts
/// at the next render call. It plays the fonts stacked as FluidSynth stacks them, with the settings' bank-select
/// mode, drum channels, forced programs and channel fonts, the song's GM, GS and XG resets, and the settings' reverb and
/// chorus (FluidSynth 2.3's, also as changed at run time), and leaves out what it does not have yet (the control thread's
/// queue, mutes).
// Why unchecked: the AudioNode contract: set up while its engine is stopped, rendered by the render thread alone; control through the synthesizer's thread-safe paths.
public final class SamplerNode: AudioNode, MIDIReceiver, @unchecked Sendable {
    /// FluidSynth renders, and takes events, in blocks of this many frames.
    public static let blockFrames = 64

    /// Where scheduled MIDI comes from, or nil for live MIDI only.
    public var eventSource: (any ScheduledMIDISource)?

    let synthesizer: Synthesizer
    /// Frames FluidSynth has rendered since the node was made or reset; its internal block
    /// boundaries fall where this is a multiple of `blockFrames`.
    private var synthesizerFrames: Int64 = 0
    /// Space for the frames `reset()` renders and discards to realign FluidSynth's blocks.
    private let discardLeft: UnsafeMutablePointer<Float>
    private let discardRight: UnsafeMutablePointer<Float>
    /// seqplay's engine when the settings ask for it and a font is loaded; nil: FluidSynth plays.
    var soundFontEngine: SoundFontEngine?
    /// What the engine plays (set with the fonts: the stack, in load order, and each bank's file), and
    /// its master gain (FluidSynth's `synth.gain`).
    private var engineBanks: [(path: String, bank: SoundFontBank)] = []
    private var engineGain: Float
    /// Why the seqplay engine cannot play the fonts given (`prepare` throws it).
    private var engineFontError: SoundFontError?
    /// The fonts only the engine loaded (`SharedSoundFonts` made for it), with the ids FluidSynth would give them.
    private var engineOnlyFonts: [SoundFontID] = []
    /// While the engine takes a block's live messages: the block's first sample time (`Int64.min` otherwise), so
    /// a message whose due time the source knows (`receive(_:at:)`) starts on its own frame of the block.
    private var liveBlockStart = Int64.min

    /// A sampler with no fonts loaded, made as `settings` say (`Synthesizer.init(settings:sampleRate:)`);
    /// load fonts, then `apply(settings)` for the rest. `sampleRate` is replaced by the engine's rate
    /// at prepare (making it at that rate saves rebuilding the effects then).
    public init(name: String? = nil, settings: SamplerSettings = SamplerSettings(), sampleRate: Double = 44_100) throws(SynthesizerError) {
        synthesizer = try Synthesizer(settings: settings, sampleRate: sampleRate)
        engineGain = settings.gain
        discardLeft = .allocate(capacity: Self.blockFrames)
        discardRight = .allocate(capacity: Self.blockFrames)
        super.init(name: name ?? "sampler")
    }

    deinit {
        discardLeft.deallocate()
        discardRight.deallocate()
    }

    // MARK: SoundFonts and presets

    /// Loads an SF2/SF3 font; it takes priority over fonts loaded before it.
    @discardableResult
    public func loadSoundFont(at path: String) throws(SoundFontError) -> SoundFontID {
        let font = try synthesizer.loadSoundFont(at: path)
        if usesSeqplayEngine {
            let known = Dictionary(engineBanks.map { ($0.path, $0.bank) }, uniquingKeysWith: { first, _ in first })
            let paths = synthesizer.soundFonts.map(\.path)
            startEngine(playing: Array(zip(paths, try SoundFontBank.stack(paths, known: known))))
        }
        return font
    }

    /// Plays `fonts`, loaded once and shared with other samplers, as if loaded here in their order.
    /// (When the seqplay engine cannot play them, preparing the sampler for an engine fails, saying why.)
    public func addSoundFonts(_ fonts: SharedSoundFonts) {
        synthesizer.addSoundFonts(fonts)
        guard usesSeqplayEngine else { return }
        if fonts.isEngineOnly {
            engineOnlyFonts = fonts.paths.enumerated().map { SoundFontID(id: $0.offset + 1, path: $0.element) }
        }
        do throws(SoundFontError) {
            startEngine(playing: Array(zip(fonts.paths, try fonts.engineBanks())))
        } catch {
            engineFontError = error
        }
    }

    private var usesSeqplayEngine: Bool { synthesizer.settings.engine == .seqplay }

    /// Makes seqplay's engine play the stack `banks` at the sampler's rate, its channels as the settings
    /// say (between render cycles).
    private func startEngine(playing banks: [(path: String, bank: SoundFontBank)]) {
        engineBanks = banks
        let engine = SoundFontEngine(banks: banks.map(\.bank), sampleRate: synthesizer.sampleRate, polyphony: synthesizer.settings.polyphony,
                                     threads: synthesizer.settings.engineThreads)
        soundFontEngine = engine
        let settings = synthesizer.settings
        engine.bankSelect = settings.bankSelect
        engine.setChannels(drums: settings.drumChannels, programs: settings.programs,
                           fonts: (try? engineChannelFonts(settings)) ?? [:])
        Self.applyEffects(of: settings, to: engine)
    }

    /// The index in the engine's stack of each channel font of `settings` (the first bank of that file, as
    /// FluidSynth's path takes the first font of that file); throws `fontNotLoaded` for a font not in it,
    /// and `noSuchPreset` for a forced program no font of the stack has.
    private func engineChannelFonts(_ settings: SamplerSettings) throws(SynthesizerError) -> [UInt8: Int] {
        var fonts: [UInt8: Int] = [:]
        for (channel, path) in settings.channelFonts {
            guard let index = engineBanks.firstIndex(where: { $0.path == path }) else { throw .fontNotLoaded(path) }
            fonts[channel] = index
        }
        for (channel, forced) in settings.programs.sorted(by: { $0.key < $1.key })
        where !engineBanks.contains(where: { $0.bank.exactPresetIndex(bank: forced.bank, program: Int(forced.program)) != nil }) {
            throw .noSuchPreset(bank: forced.bank, program: Int(forced.program), channel: Int(channel))
        }
        return fonts
    }

    /// The voices a note would start here after `setup` (`Synthesizer.noteVoices`): for a sampler
    /// that estimates what a song costs, not one that plays it.
    public func noteVoices(after setup: [MIDIMessage], noteOn channel: UInt8, key: UInt8, velocity: UInt8) -> NoteVoices {
        synthesizer.noteVoices(after: setup, noteOn: channel, key: key, velocity: velocity)
    }

    /// Unloads a font loaded with `loadSoundFont(at:)`.
    public func unloadSoundFont(_ font: SoundFontID) { synthesizer.unloadSoundFont(font) }

    /// Loads `font` again from its file, keeping its id (`Synthesizer.reloadSoundFont`).
    public func reloadSoundFont(_ font: SoundFontID) throws(SoundFontError) { try synthesizer.reloadSoundFont(font) }

    /// Offsets the banks of `font` by `offset` (`Synthesizer.setBankOffset`).
    public func setBankOffset(_ offset: Int, of font: SoundFontID) { synthesizer.setBankOffset(offset, of: font) }

    /// The fonts loaded, oldest first.
    public var soundFonts: [SoundFontID] { engineOnlyFonts.isEmpty ? synthesizer.soundFonts : engineOnlyFonts }

    /// Every preset of every loaded font, by bank, program, then priority.
    public var presets: [Preset] {
        guard !engineOnlyFonts.isEmpty, engineOnlyFonts.count == engineBanks.count else { return synthesizer.presets }
        let listed = zip(engineOnlyFonts, engineBanks).enumerated().flatMap { priority, font in
            font.1.bank.hydra.presets.map { (preset: Preset(bank: $0.bank, program: $0.program, name: $0.name, soundFont: font.0), priority: priority) }
        }
        return listed.sorted { ($0.preset.bank, $0.preset.program, -$0.priority) < ($1.preset.bank, $1.preset.program, -$1.priority) }.map(\.preset)
    }

    /// Makes `channel` play `program` from `bank` (see `Synthesizer.selectProgram`).
    public func selectProgram(_ program: UInt8, bank: Int = 0, channel: UInt8 = 0) throws(SynthesizerError) {
        try synthesizer.selectProgram(program, bank: bank, channel: channel)
    }

    /// Makes `channel` play `program` from `bank` of the loaded font with FluidSynth id `font`.
    public func selectProgram(_ program: UInt8, bank: Int, channel: UInt8, font: Int) throws(SynthesizerError) {
        try synthesizer.selectProgram(program, bank: bank, channel: channel, font: font)
    }

    /// The preset `channel` plays now.
    public func program(onChannel channel: UInt8) -> ChannelProgram? {
        guard !engineOnlyFonts.isEmpty, let soundFontEngine else { return synthesizer.program(onChannel: channel) }
        guard let program = soundFontEngine.program(onChannel: Int(channel)), let index = soundFontEngine.bankIndex(onChannel: Int(channel)),
              engineOnlyFonts.indices.contains(index) else { return nil }
        return ChannelProgram(soundFontID: engineOnlyFonts[index].id, bank: program.bank, program: program.program)
    }

    /// Applies polyphony, gain, interpolation, reverb/chorus, drum channels, channel fonts and forced
    /// programs (see `Synthesizer.apply(_:)`; seqplay's engine takes the last three as
    /// `SoundFontEngine.setChannels(drums:programs:fonts:)`, throwing as FluidSynth's path does).
    public func apply(_ settings: SamplerSettings) throws(SynthesizerError) {
        guard let soundFontEngine else {
            try synthesizer.apply(settings)
            engineGain = settings.gain
            return
        }
        let fonts = try engineChannelFonts(settings)
        if engineOnlyFonts.isEmpty {
            try synthesizer.apply(settings)
        } else {
            // FluidSynth holds none of the fonts: it would find neither the programs nor the fonts.
            var rest = settings
            rest.drumChannels = nil; rest.programs = [:]; rest.channelFonts = [:]
            try synthesizer.apply(rest)
            synthesizer.settings.drumChannels = settings.drumChannels
            synthesizer.settings.programs = settings.programs
            synthesizer.settings.channelFonts = settings.channelFonts
        }
        soundFontEngine.setChannels(drums: settings.drumChannels, programs: settings.programs, fonts: fonts)
        Self.applyEffects(of: settings, to: soundFontEngine)
        engineGain = settings.gain
    }

    /// The settings the sampler was made with or last given, as later changes left them.
    public var settings: SamplerSettings { synthesizer.settings }

    // MARK: Parameters

    /// Master gain.
    public var gain: Float {
        get { synthesizer.gain }
        set { synthesizer.gain = newValue; engineGain = newValue }
    }

    /// Whether the reverb is on.
    public var reverbEnabled: Bool {
        get { synthesizer.reverbEnabled }
        set {
            synthesizer.reverbEnabled = newValue
            changeEngine { $0.setReverb(.init(isEnabled: newValue)) }
        }
    }

    /// Whether the chorus is on.
    public var chorusEnabled: Bool {
        get { synthesizer.chorusEnabled }
        set {
            synthesizer.chorusEnabled = newValue
            changeEngine { $0.setChorus(.init(isEnabled: newValue)) }
        }
    }

    /// The most voices sounding at once.
    public var polyphony: Int {
        get { synthesizer.polyphony }
        set { synthesizer.polyphony = newValue }
    }

    /// The sample rate FluidSynth renders at (the engine's, once prepared).
    public var sampleRate: Double { synthesizer.sampleRate }

    /// Voices sounding now.
    public var activeVoiceCount: Int { synthesizer.activeVoiceCount }

    // MARK: MIDI

    /// Acts on `message` now. On the render thread only (an `eventSource` delivers there); real-time safe.
    public func receive(_ message: MIDIMessage) {
        guard let soundFontEngine else { return synthesizer.receive(message) }
        if let message = SoundFontEngine.Message(message) { soundFontEngine.apply(message) }
    }

    /// Acts on `message`, due at `sampleTime`: seqplay's engine starts a live message on that frame of the block it
    /// renders (a late one on its first frame); FluidSynth, and the engine otherwise, act on it now. On the render
    /// thread only; real-time safe.
    public func receive(_ message: MIDIMessage, at sampleTime: Int64) {
        if let soundFontEngine, liveBlockStart != .min {
            soundFontEngine.advance(to: Int(max(sampleTime, liveBlockStart) - liveBlockStart))
        }
        receive(message)
    }

    /// Sends a system, GM, GS or XG reset.
    public func sendReset(_ kind: ResetKind) {
        synthesizer.reset(kind)
        soundFontEngine?.reset(kind)
    }

    /// Releases every sounding note.
    public func allNotesOff() {
        synthesizer.allNotesOff()
        soundFontEngine?.applyToEveryChannel(controller: 123)
    }

    /// Silences every voice at once.
    public func allSoundsOff() {
        synthesizer.allSoundsOff()
        soundFontEngine?.applyToEveryChannel(controller: 120)
    }

    // MARK: AudioNode

    public override var numberOfInputs: Int { 0 }

    /// Stereo at the engine's output sample rate.
    public override func outputFormat(forBus bus: Int, inputFormats: [AudioFormat]) -> AudioFormat {
        AudioFormat(sampleRate: engine?.outputFormat.sampleRate ?? synthesizer.sampleRate, channelCount: 2)
    }

    public override func prepare(_ setup: AudioNodeRenderSetup) throws {
        synthesizer.sampleRate = setup.outputFormats[0].sampleRate
        if let engineFontError { throw engineFontError }
        if !engineBanks.isEmpty, soundFontEngine?.sampleRate != synthesizer.sampleRate { startEngine(playing: engineBanks) }
    }

    /// Silences every voice and realigns FluidSynth's 64-frame blocks with sample time 0.
    public override func reset() {
        allSoundsOff()
        synthesizer.withSynthBetweenCycles {
            let phase = Int(synthesizerFrames % Int64(Self.blockFrames))
            if phase != 0 {
                synthesizer.render(frameCount: Self.blockFrames - phase, left: discardLeft, right: discardRight)
            }
            synthesizerFrames = 0
        }
    }

    public override func render(_ context: RenderContext, inputs: [AudioBuffer], outputs: [AudioBuffer]) {
        let output = outputs[0]
        guard let left = output[0].baseAddress, let right = output[1].baseAddress else { return }
        render(sampleTime: context.sampleTime, frameCount: context.frameCount, left: left, right: right)
    }

    /// Renders `frameCount` frames from engine sample `sampleTime` into `left` and `right`, taking
    /// the events due in them, as `render(_:inputs:outputs:)` does.
    package func render(sampleTime: Int64, frameCount: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        guard synthesizer.beginRenderCycle() else {
            // A control thread is loading a font: silence now, the events wait for the next block.
            left.update(repeating: 0, count: frameCount)
            right.update(repeating: 0, count: frameCount)
            return
        }
        defer { synthesizer.endRenderCycle() }
        if let soundFontEngine {
            return render(soundFontEngine, sampleTime: sampleTime, frameCount: frameCount, left: left, right: right)
        }
        var done = 0
        while done < frameCount {
            let phase = Int(synthesizerFrames % Int64(Self.blockFrames))
            let untilBoundary = phase == 0 ? framesUntilEventsAreDue(at: sampleTime + Int64(done)) : Self.blockFrames - phase
            let count = min(untilBoundary, frameCount - done)
            synthesizer.render(frameCount: count, left: left + done, right: right + done)
            done += count
            synthesizerFrames += Int64(count)
        }
    }

    /// Renders through seqplay's engine, each scheduled event on its own sample: up to the source's next
    /// event time, then the events of that time, and so on. A source that cannot tell when its next event
    /// is (live input) hands over the messages due in these frames at once: each starts on the frame it is
    /// due at when the source gives its time (`receive(_:at:)`: JACK MIDI frames, timestamped ALSA and network
    /// input), else on the block's first frame, as one that is late does.
    private func render(_ engine: SoundFontEngine, sampleTime: Int64, frameCount: Int,
                        left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        engine.beginRender(frames: frameCount, left: left, right: right)
        if let eventSource {
            let end = sampleTime + Int64(frameCount)
            while let next = eventSource.nextEventSampleTime, next < end {
                // A live source's next time is `Int64.min` (due now): it plays at this block's first frame.
                let due = max(next, sampleTime)
                engine.advance(to: Int(due - sampleTime))
                eventSource.deliverEvents(before: due + 1, to: self)
                // Nothing delivered: the source only knows no event comes sooner (or it is live).
                if eventSource.nextEventSampleTime == next { break }
            }
            if eventSource.nextEventSampleTime == .min { liveBlockStart = sampleTime }
            eventSource.deliverEvents(before: end, to: self)
            liveBlockStart = .min
        }
        engine.endRender()
        if engineGain != 1 {
            for i in 0..<frameCount { left[i] *= engineGain; right[i] *= engineGain }
        }
    }

    /// At the 64-frame block boundary `blockStart`, rendered up to: takes the events due there now
    /// (as the next `render` would) and returns the voices sounding then (`activeVoiceCount`'s count),
    /// so a voice budget shared with other samplers can be settled before the block renders. Real-time safe.
    package func takeEvents(at blockStart: Int64) -> Int {
        guard synthesizer.beginRenderCycle() else { return synthesizer.activeVoiceCount }
        defer { synthesizer.endRenderCycle() }
        eventSource?.deliverEvents(before: blockStart + Int64(Self.blockFrames / 2), to: self)
        return soundFontEngine?.activeVoiceCount ?? synthesizer.soundingVoiceCount()
    }

    /// Ends up to `count` sounding voices, those of lowest priority first (`Synthesizer.endVoices`);
    /// returns how many it ended. Real-time safe.
    package func endVoices(_ count: Int) -> Int {
        guard synthesizer.beginRenderCycle() else { return 0 }
        defer { synthesizer.endRenderCycle() }
        return soundFontEngine?.endVoices(count) ?? synthesizer.endVoices(count)
    }

    /// At the block boundary `blockStart`: delivers the events due there, then returns how many frames
    /// may render before the next boundary with events due (a multiple of `blockFrames`). FluidSynth
    /// renders several blocks in one call faster than one block per call (each voice renders them in
    /// a row), with the same output.
    private func framesUntilEventsAreDue(at blockStart: Int64) -> Int {
        // Without a source, MIDI comes through `receive` at any time: it starts at the next block.
        guard let eventSource else { return Self.blockFrames }
        let halfBlock = Int64(Self.blockFrames / 2)
        eventSource.deliverEvents(before: blockStart + halfBlock, to: self)
        guard let next = eventSource.nextEventSampleTime else { return Int.max }
        guard next > blockStart else { return Self.blockFrames }
        // The event at `next` is due at the first boundary B after `blockStart` with next < B + 32.
        let blocks = min((next - blockStart - halfBlock) / Int64(Self.blockFrames) + 1, Int64(Int32.max))
        return Int(blocks) * Self.blockFrames
    }
}
