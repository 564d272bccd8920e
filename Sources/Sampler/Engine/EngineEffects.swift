/// The engine's two effect buses, as FluidSynth 2.3's mixer has them: every voice sends its samples, scaled by
/// its reverb and chorus sends, into a mono reverb bus and a mono chorus bus, which `EngineReverb` and then
/// `EngineChorus` process at the end of each chunk and add into the dry output (fluid_rvoice_mixer's
/// "mix effects to out", what `fluid_synth_write_float` does). Each effect is on or off with its parameters;
/// an effect that is off is neither sent to nor processed, and keeps its state for when it is on again.
///
/// All memory is allocated at init; nothing here allocates or locks afterwards.
final class EngineEffects {
    let reverb: EngineReverb
    let chorus: EngineChorus
    /// `VoiceJobs.chunkFrames` frames each: what the voices sent in the current chunk.
    let reverbBus: UnsafeMutablePointer<Float>
    let chorusBus: UnsafeMutablePointer<Float>
    /// The effects' settings, every field given.
    private(set) var reverbSettings: SamplerSettings.Reverb
    private(set) var chorusSettings: SamplerSettings.Chorus

    /// Effects at `sampleRate` with FluidSynth's default parameters, both off.
    init(sampleRate: Double) {
        let reverbDefaults = SamplerSettings.Reverb.defaults.updated(with: .init(isEnabled: false))
        var chorusDefaults = SamplerSettings.Chorus.defaults.updated(with: .init(isEnabled: false))
        chorusDefaults.type = .sine
        reverbSettings = reverbDefaults
        chorusSettings = chorusDefaults
        reverb = EngineReverb(sampleRate: sampleRate, parameters: reverbDefaults)
        chorus = EngineChorus(sampleRate: sampleRate, parameters: chorusDefaults)
        reverbBus = .allocate(capacity: VoiceJobs.chunkFrames)
        reverbBus.initialize(repeating: 0, count: VoiceJobs.chunkFrames)
        chorusBus = .allocate(capacity: VoiceJobs.chunkFrames)
        chorusBus.initialize(repeating: 0, count: VoiceJobs.chunkFrames)
    }

    deinit {
        reverbBus.deallocate()
        chorusBus.deallocate()
    }

    var reverbIsOn: Bool { reverbSettings.isEnabled ?? true }
    var chorusIsOn: Bool { chorusSettings.isEnabled ?? true }
    var areOn: Bool { reverbIsOn || chorusIsOn }

    /// Turns the reverb on or off and sets the parameters `change` gives (nil fields stay as they are).
    func setReverb(_ change: SamplerSettings.Reverb) {
        reverbSettings = reverbSettings.updated(with: change)
        if change.roomSize != nil || change.damping != nil || change.width != nil || change.level != nil { reverb.set(change) }
    }

    /// Turns the chorus on or off and sets the parameters `change` gives (nil fields stay as they are).
    func setChorus(_ change: SamplerSettings.Chorus) {
        chorusSettings = chorusSettings.updated(with: change)
        if change.voices != nil || change.level != nil || change.speed != nil || change.depth != nil || change.type != nil { chorus.set(change) }
    }

    /// Processes the buses' first `count` frames, adding the effects that are on into `left` and `right`.
    func add(to left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
        if reverbIsOn { reverb.addReverb(of: reverbBus, to: left, right, count: count) }
        if chorusIsOn { chorus.addChorus(of: chorusBus, to: left, right, count: count) }
    }

    /// Empties both effects, as a MIDI system reset does in FluidSynth.
    func clear() {
        reverb.clear()
        chorus.clear()
    }
}
