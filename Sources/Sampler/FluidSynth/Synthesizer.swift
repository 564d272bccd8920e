import Atomics
import CFluidSynth
import FluidSynthOpenMP
import MIDICore
import SoundFontFile
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// A FluidSynth synthesizer: SoundFonts in, MIDI messages in, stereo float audio out.
///
/// It owns one `fluid_settings_t` and one `fluid_synth_t` and no FluidSynth drivers: audio is
/// pulled with `render(frameCount:left:right:)` by whoever drives the audio, and MIDI is pushed with
/// `receive(_:)`. Fonts stack as in FluidSynth: when several provide the same bank and program, the
/// last loaded wins. Channel 10 (`channel: 9`) is a drum channel and plays bank 128.
///
/// One thread renders: `render` and `receive` run there and neither allocate nor lock (FluidSynth's
/// thread-safe API, a mutex around every call, is off). The other methods may be called from any
/// other thread: the quick ones (programs, gain, effects on/off, notes off, resets) are queued
/// lock-free and applied at the start of the next `render`; the ones that change the font stack or
/// the synth's size (fonts, polyphony, sample rate, reading presets) take the synth between two
/// render cycles. A render cycle (`beginRenderCycle`) never waits for them: while one holds the
/// synth, the cycle is skipped and its caller plays silence. Control calls come from one thread at a
/// time (or are serialised by the caller).
public final class Synthesizer: MIDIReceiver, @unchecked Sendable {
    /// The settings the synthesizer was created with or last given (`apply(_:)`); gain, reverb and
    /// chorus on/off and polyphony follow later changes made through this object.
    public internal(set) var settings: SamplerSettings
    /// Output sample rate in Hz (see `sampleRate`).
    private var currentSampleRate: Double
    /// The fonts loaded, oldest first.
    public internal(set) var soundFonts: [SoundFontID] = []
    /// Fonts of a `SharedSoundFonts` added to this synthesizer, taken out again before it is deleted.
    var sharedFonts: [OpaquePointer] = []
    var sharedFontHolders: [SharedSoundFonts] = []
    /// FluidSynth's font stack as of the last change, top (highest priority) first: what
    /// `selectProgram` searches, so it finds a preset without entering the synth's API. Changed only
    /// by control calls while they hold the synth (`refreshFontStack`), read by control calls.
    private var fontStack: [(sfont: OpaquePointer, id: Int32, bankOffset: Int32)] = []

    private let fluidSettings: OpaquePointer
    let synth: OpaquePointer
    /// Channels whose program is forced (`SamplerSettings.programs`): their program changes and bank selects are ignored.
    let forcedPrograms = ForcedProgramTable()
    /// Control changes waiting for the render thread; producers serialise among themselves only.
    private let commands = SingleProducerQueue<Command>(capacity: 256, filler: .allNotesOff)
    private let producerLock = ManagedAtomic<Bool>(false)
    /// Who may touch the synth now: `free`, the render thread (`rendering`) or a control thread.
    private let owner = ManagedAtomic<Int>(Owner.free)
    private let voices = ManagedAtomic<Int>(0)
    private let voiceStartGains: VoiceStartGains
    /// Ends voices for a budget shared with other synthesizers (`endVoices`).
    private let voiceCutter: VoiceCutter
    /// What each channel plays, as the render thread last saw it (`channelStatus`).
    public let channelStatus = ChannelStatusTable()
    /// Channels whose note-ons are dropped (bit n: channel n); render thread only.
    private var mutedChannels: UInt16 = 0
    /// Note limiting (`SamplerSettings.maximumNotesPerKey`, `minimumVelocity`); nil when off.
    /// Replaced only between render cycles.
    var noteLimiter: NoteLimiter?

    /// Creates a synthesizer with no fonts loaded, its polyphony, bank-select mode, gain and effects
    /// on/off as `settings` say, at `sampleRate` Hz (FluidSynth accepts 8000...96000). The settings'
    /// other parts (interpolation, effect parameters, channel programs, fonts and drums) take effect
    /// with `apply(_:)`, once the fonts are loaded.
    public init(settings: SamplerSettings = SamplerSettings(), sampleRate: Double = 44_100) throws(SynthesizerError) {
        FluidSynthLog.install()
        defer { FluidSynthLog.forwardPendingMessages() }
        _ = seqplay_openmp_route_fluidsynth_regions()
        // Initialise the reset table now, so the audio thread never runs its one-time initialiser.
        _ = ResetKind.deviceResetBodies
        guard let fluidSettings = new_fluid_settings() else { throw .creationFailed("new_fluid_settings") }
        func set(_ name: String, _ value: Int) -> Bool { fluid_settings_setint(fluidSettings, name, Int32(value)) == FLUID_OK }
        func set(_ name: String, _ value: Double) -> Bool { fluid_settings_setnum(fluidSettings, name, value) == FLUID_OK }
        func set(_ name: String, _ value: String) -> Bool { fluid_settings_setstr(fluidSettings, name, value) == FLUID_OK }
        let accepted = [
            ("synth.sample-rate", set("synth.sample-rate", sampleRate)),
            ("synth.polyphony", set("synth.polyphony", settings.polyphony)),
            ("synth.gain", set("synth.gain", Double(settings.gain))),
            ("synth.reverb.active", set("synth.reverb.active", (settings.reverb.isEnabled ?? true) ? 1 : 0)),
            ("synth.chorus.active", set("synth.chorus.active", (settings.chorus.isEnabled ?? true) ? 1 : 0)),
            ("synth.midi-bank-select", set("synth.midi-bank-select", settings.bankSelect.rawValue)),
            // No mutex around every call: one thread renders, the others queue (see the type's notes).
            ("synth.threadsafe-api", set("synth.threadsafe-api", 0)),
            // One stereo pair out; effects are mixed into it.
            ("synth.audio-channels", set("synth.audio-channels", 1)),
            // Sample data stays pageable and is loaded whole at sfload time, so no file I/O happens
            // when a program change arrives on the audio thread.
            ("synth.lock-memory", set("synth.lock-memory", 0)),
            ("synth.dynamic-sample-loading", set("synth.dynamic-sample-loading", 0)),
        ]
        if let rejected = accepted.first(where: { !$0.1 }) {
            delete_fluid_settings(fluidSettings)
            throw .settingRejected(rejected.0)
        }
        guard let synth = new_fluid_synth(fluidSettings) else {
            delete_fluid_settings(fluidSettings)
            throw .creationFailed("new_fluid_synth")
        }
        self.settings = settings
        currentSampleRate = sampleRate
        self.fluidSettings = fluidSettings
        self.synth = synth
        voiceStartGains = VoiceStartGains(polyphony: Int(fluid_synth_get_polyphony(synth)))
        voiceCutter = VoiceCutter(polyphony: Int(fluid_synth_get_polyphony(synth)))
        noteLimiter = NoteLimiter.make(for: settings)
    }

    deinit {
        removeSharedSoundFonts()
        delete_fluid_synth(synth)
        delete_fluid_settings(fluidSettings)
    }

    // MARK: SoundFonts

    /// Loads an SF2/SF3 file after checking its structure; its presets take priority over those of
    /// fonts loaded earlier. Channels are re-assigned their presets from the new font stack.
    @discardableResult
    public func loadSoundFont(at path: String) throws(SoundFontError) -> SoundFontID {
        try SoundFontValidator.validate(path: path)
        FluidSynthLog.forwardPendingMessages()
        let id = withSynthBetweenCycles {
            let id = fluid_synth_sfload(synth, path, 1)
            refreshFontStack()
            publishAllChannels()
            return id
        }
        // What FluidSynth said while loading: a refusal's reason goes into the error, not the log.
        let messages = FluidSynthLog.takePendingMessages()
        guard id != FLUID_FAILED else {
            throw SoundFontError(path: path, problem: .rejectedByFluidSynth(reason: FluidSynthLog.firstError(in: messages)))
        }
        FluidSynthLog.log(messages)
        let font = SoundFontID(id: Int(id), path: path)
        soundFonts.append(font)
        return font
    }

    /// Unloads a font; channels using it are re-assigned presets from the remaining fonts.
    public func unloadSoundFont(_ font: SoundFontID) {
        guard soundFonts.contains(font) else { return }
        withSynthBetweenCycles {
            _ = fluid_synth_sfunload(synth, Int32(font.id), 1)
            refreshFontStack()
            publishAllChannels()
        }
        soundFonts.removeAll { $0 == font }
    }

    /// Loads `font` again from its file, keeping its id and its place in the stack (FluidSynth's
    /// `reload`); channels get their presets from the new contents. A file that fails the structural
    /// check leaves the font as it was; one FluidSynth then refuses leaves it gone (FluidSynth unloads
    /// it first).
    public func reloadSoundFont(_ font: SoundFontID) throws(SoundFontError) {
        guard soundFonts.contains(font) else { return }
        try SoundFontValidator.validate(path: font.path)
        FluidSynthLog.forwardPendingMessages()
        let result = withSynthBetweenCycles {
            let result = fluid_synth_sfreload(synth, Int32(font.id))
            refreshFontStack()
            publishAllChannels()
            return result
        }
        let messages = FluidSynthLog.takePendingMessages()
        guard result != FLUID_FAILED else {
            soundFonts.removeAll { $0 == font }
            throw SoundFontError(path: font.path, problem: .rejectedByFluidSynth(reason: FluidSynthLog.firstError(in: messages)))
        }
        FluidSynthLog.log(messages)
    }

    /// Offsets the banks of `font` by `offset` (FluidSynth's `load FILE 1 OFFSET`): its bank B plays as
    /// bank B + offset. Each channel then takes its bank and program again from the font stack, as
    /// FluidSynth's shell does after such a load.
    public func setBankOffset(_ offset: Int, of font: SoundFontID) {
        guard soundFonts.contains(font) else { return }
        withSynthBetweenCycles {
            _ = fluid_synth_set_bank_offset(synth, Int32(font.id), Int32(offset))
            _ = fluid_synth_program_reset(synth)
            refreshFontStack()
            publishAllChannels()
        }
    }

    /// Every preset of every loaded font, sorted by bank, program, then font priority (highest first).
    public var presets: [Preset] {
        var result: [Preset] = []
        withSynthBetweenCycles {
            for index in 0..<fluid_synth_sfcount(synth) {
                guard let sfont = fluid_synth_get_sfont(synth, UInt32(index)),
                      let font = soundFonts.first(where: { $0.id == Int(fluid_sfont_get_id(sfont)) })
                else { continue }
                fluid_sfont_iteration_start(sfont)
                while let preset = fluid_sfont_iteration_next(sfont) {
                    result.append(Preset(
                        bank: Int(fluid_preset_get_banknum(preset)),
                        program: Int(fluid_preset_get_num(preset)),
                        name: fluid_preset_get_name(preset).map { String(cString: $0) } ?? "",
                        soundFont: font))
                }
            }
        }
        // fluid_synth_get_sfont(0) is the top of the stack, so a stable sort keeps priority order.
        return result.enumerated().sorted {
            ($0.element.bank, $0.element.program, $0.offset) < ($1.element.bank, $1.element.program, $1.offset)
        }.map(\.element)
    }

    // MARK: Channels

    /// Makes `channel` (0-based) play `program` from `bank`, taken from the highest-priority font
    /// that has it; this works on the drum channel too. Throws if no loaded font has that preset.
    /// Takes effect at the next render.
    public func selectProgram(_ program: UInt8, bank: Int, channel: UInt8) throws(SynthesizerError) {
        // Searches the fonts themselves (read-only while they are loaded), never the synth: every
        // fluid_synth_* call, even a getter such as fluid_synth_sfcount, enters FluidSynth's API,
        // which with the thread-safe API off still reaps finished voices and commits the event
        // queue the render thread is filling (see `withSynthBetweenCycles`).
        for font in fontStack where fluid_sfont_get_preset(font.sfont, Int32(bank) - font.bankOffset, Int32(program)) != nil {
            perform(.selectProgram(channel: Int32(channel), font: font.id, bank: Int32(bank), program: Int32(program)))
            return
        }
        throw .noSuchPreset(bank: bank, program: Int(program), channel: Int(channel))
    }

    /// Makes `channel` (0-based) play `program` from `bank` of the font FluidSynth knows as `font`
    /// (its id, as `soundFonts` lists it), as FluidSynth's `select` does. Throws if that font has no
    /// such preset. Takes effect at the next render.
    public func selectProgram(_ program: UInt8, bank: Int, channel: UInt8, font fontID: Int) throws(SynthesizerError) {
        for font in fontStack where Int(font.id) == fontID && fluid_sfont_get_preset(font.sfont, Int32(bank) - font.bankOffset, Int32(program)) != nil {
            perform(.selectProgram(channel: Int32(channel), font: font.id, bank: Int32(bank), program: Int32(program)))
            return
        }
        throw .noSuchPreset(bank: bank, program: Int(program), channel: Int(channel))
    }

    /// Reads FluidSynth's font stack into `fontStack`. Call while holding the synth, after the stack changed.
    func refreshFontStack() {
        var stack: [(sfont: OpaquePointer, id: Int32, bankOffset: Int32)] = []
        for index in 0..<fluid_synth_sfcount(synth) {
            guard let sfont = fluid_synth_get_sfont(synth, UInt32(index)) else { continue }
            let id = fluid_sfont_get_id(sfont)
            stack.append((sfont, id, fluid_synth_get_bank_offset(synth, id)))
        }
        fontStack = stack
    }

    /// The preset `channel` currently plays (changes still queued included), or `nil` if it has none.
    public func program(onChannel channel: UInt8) -> ChannelProgram? {
        withSynthBetweenCycles {
            var fontID: Int32 = 0, bank: Int32 = 0, program: Int32 = 0
            guard fluid_synth_get_program(synth, Int32(channel), &fontID, &bank, &program) == FLUID_OK,
                  fluid_synth_get_channel_preset(synth, Int32(channel)) != nil
            else { return nil }
            return ChannelProgram(soundFontID: Int(fontID), bank: Int(bank), program: Int(program))
        }
    }

    /// Resets the synthesizer as a MIDI device would on receiving a reset message: `.system` is
    /// FluidSynth's system reset, the others send the standard GM / GS / XG reset SysEx, which also
    /// switches the bank-select mode. Takes effect at the next render.
    public func reset(_ kind: ResetKind) { perform(.reset(kind)) }

    /// Releases every sounding note (they fade out with their release envelopes), at the next render.
    public func allNotesOff() { perform(.allNotesOff) }

    /// Silences every voice, at the next render.
    public func allSoundsOff() { perform(.allSoundsOff) }

    // MARK: Live parameters

    /// Master gain of the output.
    public var gain: Float {
        get { settings.gain }
        set { perform(.gain(newValue)); settings.gain = newValue }
    }

    /// Whether the reverb effect is on.
    public var reverbEnabled: Bool {
        get { settings.reverb.isEnabled ?? true }
        set { perform(.reverb(newValue)); settings.reverb.isEnabled = newValue }
    }

    /// Whether the chorus effect is on.
    public var chorusEnabled: Bool {
        get { settings.chorus.isEnabled ?? true }
        set { perform(.chorus(newValue)); settings.chorus.isEnabled = newValue }
    }

    /// The most voices that sound at once (more voices are allocated, so it waits for a cycle's end).
    public var polyphony: Int {
        get { settings.polyphony }
        set {
            settings.polyphony = withSynthBetweenCycles {
                fluid_synth_set_polyphony(synth, Int32(newValue))
                voiceStartGains.resize(polyphony: Int(fluid_synth_get_polyphony(synth)))
                voiceCutter.resize(polyphony: Int(fluid_synth_get_polyphony(synth)))
                return Int(fluid_synth_get_polyphony(synth))
            }
        }
    }

    /// Output sample rate in Hz. Changing it silences every voice and rebuilds the effects (it waits
    /// for the render cycle in progress).
    public var sampleRate: Double {
        get { currentSampleRate }
        set {
            guard newValue != currentSampleRate else { return }
            withSynthBetweenCycles { seqplay_fluid_synth_set_sample_rate(synth, Float(newValue)) }
            currentSampleRate = newValue
        }
    }

    /// The number of voices sounding after the last render (the render thread publishes it); voices
    /// `endVoices` ended, fading out silent for a few milliseconds, do not count.
    public var activeVoiceCount: Int { voices.load(ordering: .relaxed) }

    /// The voices sounding now (as `activeVoiceCount` counts them). Render thread, in a render cycle.
    package func soundingVoiceCount() -> Int { voiceCutter.soundingVoices(in: synth) }

    /// Ends up to `count` sounding voices, those of lowest priority first (`VoiceCutter`): for a
    /// voice budget shared with other synthesizers. Returns how many it ended. Render thread, in a
    /// render cycle; does not allocate.
    package func endVoices(_ count: Int) -> Int { voiceCutter.endVoices(count, in: synth) }

    // MARK: Ownership: render cycles and control changes

    /// Starts a render cycle on the render thread: applies the queued control changes and returns true,
    /// or returns false at once while a control thread holds the synth (loading a font, say): the
    /// caller then plays silence instead of rendering. `receive` and `render` in the cycle, then
    /// `endRenderCycle()`. Does not allocate, lock or wait.
    public func beginRenderCycle() -> Bool {
        guard owner.compareExchange(expected: Owner.free, desired: Owner.rendering, ordering: .acquiring).exchanged else {
            return false
        }
        applyQueuedCommands()
        return true
    }

    /// Ends the render cycle `beginRenderCycle()` started.
    public func endRenderCycle() {
        channelStatus.cycleCompleted()
        owner.store(Owner.free, ordering: .releasing)
    }

    /// Queues `command` for the render thread; when the queue is full (nothing renders), applies it
    /// and those before it here, between cycles.
    private func perform(_ command: Command) {
        while !producerLock.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        let queued = commands.append(command)
        producerLock.store(false, ordering: .releasing)
        if !queued { withSynthBetweenCycles { apply(command) } }
    }

    /// Runs `body` on a control thread while no render cycle runs: waits for the one in progress, makes
    /// the next ones skip (their callers play silence), applies the queued changes first. For work on
    /// the synth outside the render thread, e.g. rendering frames to discard.
    ///
    /// Every call of FluidSynth's synth API (`fluid_synth_*`, getters included) outside a render cycle
    /// belongs in here. With the thread-safe API off, FluidSynth's API entry and exit still reap the
    /// voices the mixer finished and commit the voice events queued since the last exit; called from
    /// a second thread during a render cycle, that commits events the render thread has not written
    /// yet (the renderer then dispatches an empty slot: a call through a null pointer) and races on
    /// the voices and the API depth counter.
    public func withSynthBetweenCycles<T>(_ body: () -> T) -> T {
        while !owner.compareExchange(expected: Owner.free, desired: Owner.control, ordering: .acquiring).exchanged {
            sched_yield()
        }
        defer { owner.store(Owner.free, ordering: .releasing) }
        applyQueuedCommands()
        return body()
    }

    private func applyQueuedCommands() {
        while let command = commands.removeFirst() { apply(command) }
    }

    private func apply(_ command: Command) {
        switch command {
        case .selectProgram(let channel, let font, let bank, let program):
            fluid_synth_program_select(synth, channel, font, bank, program)
        case .gain(let gain): fluid_synth_set_gain(synth, gain)
        case .reverb(let on): fluid_synth_reverb_on(synth, -1, on ? 1 : 0)
        case .chorus(let on): fluid_synth_chorus_on(synth, -1, on ? 1 : 0)
        case .allNotesOff:
            fluid_synth_all_notes_off(synth, -1)
            noteLimiter?.clear(channel: nil)
        case .allSoundsOff:
            fluid_synth_all_sounds_off(synth, -1)
            noteLimiter?.clear(channel: nil)
        case .reset(let kind):
            switch kind {
            case .system: systemReset()
            case .generalMIDI, .rolandGS, .yamahaXG: sendSysEx(kind.sysExBody)
            }
        case .message(let status, let data1, let data2):
            let channel = status & 0x0F
            switch status & 0xF0 {
            case 0x80: receive(.noteOff(channel: channel, note: data1, velocity: data2))
            case 0x90: receive(.noteOn(channel: channel, note: data1, velocity: data2))
            case 0xA0: receive(.polyPressure(channel: channel, note: data1, pressure: data2))
            case 0xB0: receive(.controlChange(channel: channel, controller: data1, value: data2))
            case 0xC0: receive(.programChange(channel: channel, program: data1))
            case 0xD0: receive(.channelPressure(channel: channel, pressure: data1))
            default: receive(.pitchBend(channel: channel, value: UInt16(data1) | UInt16(data2) << 7))
            }
        case .mute(let channel, let muted):
            if muted {
                mutedChannels |= 1 << UInt16(channel)
                fluid_synth_all_sounds_off(synth, Int32(channel))
            } else {
                mutedChannels &= ~(1 << UInt16(channel))
            }
        }
        switch command {
        case .selectProgram(let channel, _, _, _): publishProgram(channel)
        case .reset: publishAllChannels()
        default: break
        }
    }

    /// A control change queued for the render thread (no payload that would be freed there).
    private enum Command {
        case selectProgram(channel: Int32, font: Int32, bank: Int32, program: Int32)
        case gain(Float)
        case reverb(Bool)
        case chorus(Bool)
        case allNotesOff
        case allSoundsOff
        case reset(ResetKind)
        /// A channel voice message (status with channel, two data bytes), as `receive` takes it.
        case message(status: UInt8, data1: UInt8, data2: UInt8)
        case mute(channel: UInt8, muted: Bool)
    }

    // MARK: Control of a running synthesizer (queued for the render thread)

    /// Queues a channel voice message (note, controller, program, pressure, pitch bend) for the render
    /// thread, which acts on it at the start of the next render as `receive(_:)` would. Other
    /// messages are ignored. From a control thread; does not wait for the render thread.
    public func enqueue(_ message: MIDIMessage) {
        switch message {
        case .noteOff(let c, let n, let v): perform(.message(status: 0x80 | c & 15, data1: n & 127, data2: v & 127))
        case .noteOn(let c, let n, let v): perform(.message(status: 0x90 | c & 15, data1: n & 127, data2: v & 127))
        case .polyPressure(let c, let n, let p): perform(.message(status: 0xA0 | c & 15, data1: n & 127, data2: p & 127))
        case .controlChange(let c, let cc, let v): perform(.message(status: 0xB0 | c & 15, data1: cc & 127, data2: v & 127))
        case .programChange(let c, let p): perform(.message(status: 0xC0 | c & 15, data1: p & 127, data2: 0))
        case .channelPressure(let c, let p): perform(.message(status: 0xD0 | c & 15, data1: p & 127, data2: 0))
        case .pitchBend(let c, let v):
            perform(.message(status: 0xE0 | c & 15, data1: UInt8(v & 127), data2: UInt8(v >> 7 & 127)))
        default: break
        }
    }

    /// Mutes or unmutes `channel` (0-based): a muted channel's sounding voices are silenced and its
    /// note-ons dropped (controllers and programs still act). At the next render.
    public func setMuted(_ muted: Bool, channel: UInt8) { perform(.mute(channel: channel & 15, muted: muted)) }

    /// Sets the reverb's parameters given (FluidSynth's ranges). FluidSynth reads its settings (taking
    /// their mutex) to check each value, so this takes the synth between two render cycles, as
    /// `apply(_:)` does, rather than queueing it for the render thread.
    public func setReverb(roomSize: Double? = nil, damping: Double? = nil, width: Double? = nil, level: Double? = nil) {
        let given = SamplerSettings.Reverb(roomSize: roomSize, damping: damping, width: width, level: level)
        withSynthBetweenCycles { setParameters(of: given) }
        settings.reverb = settings.reverb.updated(with: given)
    }

    /// Sets the chorus's parameters given (FluidSynth's ranges), between two render cycles (see `setReverb`).
    public func setChorus(voices: Int? = nil, level: Double? = nil, speed: Double? = nil, depth: Double? = nil) {
        let given = SamplerSettings.Chorus(voices: voices, level: level, speed: speed, depth: depth)
        withSynthBetweenCycles { setParameters(of: given) }
        settings.chorus = settings.chorus.updated(with: given)
    }

    /// Publishes every channel's program, volume and pan to `channelStatus` now (between render
    /// cycles), e.g. before the first render.
    public func refreshChannelStatus() {
        withSynthBetweenCycles { publishAllChannels() }
    }

    /// Publishes `channel`'s preset (render thread, or a control thread holding the synth).
    private func publishProgram(_ channel: Int32) {
        // The preset FluidSynth plays (a substitute when the one asked for is missing), as its shell shows it.
        if let preset = fluid_synth_get_channel_preset(synth, channel) {
            let font = fluid_preset_get_sfont(preset).map { Int(fluid_sfont_get_id($0)) } ?? 0
            channelStatus.setProgram(channel: Int(channel), known: true, font: font, bank: Int(fluid_preset_get_banknum(preset)),
                                     program: Int(fluid_preset_get_num(preset)))
        } else {
            var fontID: Int32 = 0, bank: Int32 = 0, program: Int32 = 0
            _ = fluid_synth_get_program(synth, channel, &fontID, &bank, &program)
            channelStatus.setProgram(channel: Int(channel), known: false, font: Int(fontID), bank: Int(bank), program: Int(program))
        }
    }

    /// Publishes every channel's preset and controllers 7 and 10.
    func publishAllChannels() {
        var channel: Int32 = 0
        while channel < 16 {
            publishProgram(channel)
            var volume: Int32 = 100, pan: Int32 = 64
            _ = fluid_synth_get_cc(synth, channel, 7, &volume)
            _ = fluid_synth_get_cc(synth, channel, 10, &pan)
            channelStatus.setController(channel: Int(channel), volume: Int(volume), pan: Int(pan))
            channel += 1
        }
    }

    private enum Owner {
        static let free = 0
        static let rendering = 1
        static let control = 2
    }

    // MARK: Real-time: MIDI in, audio out

    /// Acts on one MIDI message now. Timing and transport messages are ignored; SysEx goes to
    /// FluidSynth's SysEx handler (GM/GS/XG resets, MIDI Tuning Standard). Does not allocate.
    public func receive(_ message: MIDIMessage) {
        switch message {
        case .noteOn(let c, _, _) where mutedChannels & (1 << UInt16(c & 15)) != 0: break
        case .noteOn(let c, let note, let velocity):
            if let noteLimiter {
                if velocity == 0 {
                    if noteLimiter.admitsNoteOff(channel: c, key: note) { fluid_synth_noteoff(synth, Int32(c), Int32(note)) }
                    break
                }
                guard noteLimiter.admitsNoteOn(channel: c, key: note, velocity: velocity, synth: synth) else { break }
                fluid_synth_noteon(synth, Int32(c), Int32(note), Int32(velocity))
                noteLimiter.noteStarted(channel: c, key: note, highestID: voiceStartGains.voicesStarted(in: synth, needsID: true))
                break
            }
            fluid_synth_noteon(synth, Int32(c), Int32(note), Int32(velocity))
            voiceStartGains.voicesStarted(in: synth)
        case .noteOff(let c, let note, _):
            if let noteLimiter, !noteLimiter.admitsNoteOff(channel: c, key: note) { break }
            fluid_synth_noteoff(synth, Int32(c), Int32(note))
        case .polyPressure(let c, let note, let p): fluid_synth_key_pressure(synth, Int32(c), Int32(note), Int32(p))
        case .controlChange(let c, let cc, _) where (cc == 0 || cc == 32) && forcedPrograms.isForced(c): break
        case .controlChange(let c, let cc, let value):
            fluid_synth_cc(synth, Int32(c), Int32(cc), Int32(value))
            if cc == 7 || cc == 10 { channelStatus.setController(channel: Int(c & 15), cc: cc, value: Int(value)) }
        case .programChange(let c, _) where forcedPrograms.isForced(c): break
        case .programChange(let c, let program):
            fluid_synth_program_change(synth, Int32(c), Int32(program))
            if forcedPrograms.hasFont(c) { forcedPrograms.selectFromFont(c, in: synth) }
            publishProgram(Int32(c & 15))
        case .channelPressure(let c, let p): fluid_synth_channel_pressure(synth, Int32(c), Int32(p))
        case .pitchBend(let c, let value): fluid_synth_pitch_bend(synth, Int32(c), Int32(value))
        case .systemExclusive(let bytes): sendSysEx(bytes)
        case .systemReset: systemReset()
        case .timeCodeQuarterFrame, .songPosition, .songSelect, .tuneRequest,
             .timingClock, .start, .continue, .stop, .activeSensing:
            break
        }
    }

    /// True once FluidSynth's one-thread OpenMP regions (its reverb and chorus, in Debian's build) have
    /// run inline on the calling thread instead of through libgomp, which allocates for each of them.
    public static var runsOpenMPRegionsInline: Bool { seqplay_openmp_inline_regions_active() != 0 }

    /// Renders `frameCount` frames of stereo audio into `left` and `right`, overwriting them, after
    /// applying the queued control changes. Does not allocate or lock; FluidSynth renders in 64-frame
    /// blocks internally, so events received between calls of 64 frames land exactly on block boundaries.
    public func render(frameCount: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        applyQueuedCommands()
        fluid_synth_write_float(synth, Int32(frameCount), left, 0, 1, right, 0, 1)
        voices.store(voiceCutter.soundingVoices(in: synth), ordering: .relaxed)
    }

    /// Resets controllers and programs, then silences every voice. FluidSynth 2.3's system reset
    /// alone lets voices that have already been rendered fade out with their release envelopes
    /// (and silencing them before the reset does not help).
    private func systemReset() {
        fluid_synth_system_reset(synth)
        fluid_synth_all_sounds_off(synth, -1)
        forcedPrograms.select(in: synth)
        publishAllChannels()
    }

    /// Hands a SysEx message to FluidSynth without its framing bytes (F0 ... F7), as it expects.
    /// FluidSynth 2.3 acts on GM System On but ignores GS Reset and XG System On (2.4 handles
    /// them); when it leaves a reset unhandled, it gets a system reset instead. Every reset ends
    /// with all voices silenced, as `systemReset()` explains.
    private func sendSysEx(_ message: [UInt8]) {
        // Pointer arithmetic only: ArraySlice operations allocate in unoptimised builds.
        message.withUnsafeBufferPointer { buffer in
            guard var start = buffer.baseAddress else { return }
            var count = buffer.count
            if start.pointee == 0xF0 { start += 1; count -= 1 }
            if count > 0, start[count - 1] == 0xF7 { count -= 1 }
            guard count > 0 else { return }
            var handled: Int32 = 0
            let chars = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
            fluid_synth_sysex(synth, chars, Int32(count), nil, nil, &handled, 0)
            if ResetKind.isDeviceReset(UnsafeBufferPointer(start: start, count: count)) {
                if handled == 0 { fluid_synth_system_reset(synth) }
                fluid_synth_all_sounds_off(synth, -1)
                forcedPrograms.select(in: synth)
                publishAllChannels()
            }
        }
    }
}

/// The reset messages a `Synthesizer` understands.
public enum ResetKind: Sendable, CaseIterable {
    /// FluidSynth's system reset (MIDI 0xFF): all voices off, controllers and programs to defaults.
    case system
    /// General MIDI System On (F0 7E 7F 09 01 F7).
    case generalMIDI
    /// Roland GS Reset (F0 41 10 42 12 40 00 7F 00 41 F7).
    case rolandGS
    /// Yamaha XG System On (F0 43 10 4C 00 00 7E 00 F7).
    case yamahaXG

    /// Whether `body` (a SysEx message without F0/F7) is a GM, GS or XG reset for any device id
    /// (byte 1). Does not allocate.
    static func isDeviceReset(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
        // Index loops: generic sequence iteration allocates in unoptimised builds.
        var candidate = 0
        while candidate < deviceResetBodies.count {
            let reset = deviceResetBodies[candidate]
            if reset.count == body.count {
                var offset = 0
                while offset < reset.count,
                      offset == 1 || reset[offset] == body[offset] {
                    offset += 1
                }
                if offset == reset.count { return true }
            }
            candidate += 1
        }
        return false
    }

    /// The SysEx message without F0/F7 (empty for `.system`).
    var sysExBody: [UInt8] {
        switch self {
        case .system: return []
        case .generalMIDI: return Self.deviceResetBodies[0]
        case .rolandGS: return Self.deviceResetBodies[1]
        case .yamahaXG: return Self.deviceResetBodies[2]
        }
    }

    /// GM System On, GS Reset and XG System On, without F0/F7, for device id 0x7F / 0x10.
    static let deviceResetBodies: [[UInt8]] = [
        [0x7E, 0x7F, 0x09, 0x01],
        [0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41],
        [0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00],
    ]
}

/// Why a `Synthesizer` could not be created or could not do what was asked.
public enum SynthesizerError: Error, Equatable {
    /// FluidSynth failed to create the named object.
    case creationFailed(String)
    /// FluidSynth rejected the value of the named setting (e.g. a sample rate out of range).
    case settingRejected(String)
    /// No loaded font has that bank and program.
    case noSuchPreset(bank: Int, program: Int, channel: Int)
    /// A channel font (`SamplerSettings.channelFonts`) that was not loaded.
    case fontNotLoaded(String)
}

extension SynthesizerError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .creationFailed(let object): return "FluidSynth could not create its \(object)"
        case .settingRejected(let setting): return "FluidSynth refused the value of \(setting)"
        case .noSuchPreset(let bank, let program, let channel):
            return "no loaded SoundFont has bank \(bank) program \(program) (asked for on channel \(channel + 1))"
        case .fontNotLoaded(let path): return "the channel font \(path) is not among the loaded SoundFonts"
        }
    }
}
