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
// Why unchecked: the render cycle and the control calls meet in atomics and FluidSynth's own API mutex; control calls are serialised by the caller (above).
public final class Synthesizer: MIDIReceiver, @unchecked Sendable {
    /// The settings the synthesizer was created with or last given (`apply(_:)`); gain, reverb and
    /// chorus on/off and polyphony follow later changes made through this object.
    public internal(set) var settings: SamplerSettings
    /// Output sample rate in Hz (see `sampleRate`).
    var currentSampleRate: Double
    /// The fonts loaded, oldest first.
    public internal(set) var soundFonts: [SoundFontID] = []
    /// Fonts of a `SharedSoundFonts` added to this synthesizer, taken out again before it is deleted.
    var sharedFonts: [OpaquePointer] = []
    var sharedFontHolders: [SharedSoundFonts] = []
    /// FluidSynth's font stack as of the last change, top (highest priority) first: what
    /// `selectProgram` searches, so it finds a preset without entering the synth's API. Changed only
    /// by control calls while they hold the synth (`refreshFontStack`), read by control calls.
    var fontStack: [(sfont: OpaquePointer, id: Int32, bankOffset: Int32)] = []

    let fluidSettings: OpaquePointer
    let synth: OpaquePointer
    /// Channels whose program is forced (`SamplerSettings.programs`): their program changes and bank selects are ignored.
    let forcedPrograms = ForcedProgramTable()
    /// Control changes waiting for the render thread; producers serialise among themselves only.
    let commands = SingleProducerQueue<Command>(capacity: 256, filler: .allNotesOff)
    let producerLock = ManagedAtomic<Bool>(false)
    /// Who may touch the synth now: `free`, the render thread (`rendering`) or a control thread.
    let owner = ManagedAtomic<Int>(Owner.free)
    let voices = ManagedAtomic<Int>(0)
    let voiceStartGains: VoiceStartGains
    /// Ends voices for a budget shared with other synthesizers (`endVoices`).
    let voiceCutter: VoiceCutter
    /// What each channel plays, as the render thread last saw it (`channelStatus`).
    public let channelStatus = ChannelStatusTable()
    /// Channels whose note-ons are dropped (bit n: channel n); render thread only.
    var mutedChannels: UInt16 = 0
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
    func perform(_ command: Command) {
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

    func applyQueuedCommands() {
        while let command = commands.removeFirst() { apply(command) }
    }

    func apply(_ command: Command) {
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
    enum Command {
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

    enum Owner {
        static let free = 0
        static let rendering = 1
        static let control = 2
    }
}
