import CFluidSynth

/// Ends voices of a synthesizer to keep a voice budget shared with other synthesizers (the channel
/// groups of one render): FluidSynth steals a voice only when its own polyphony is full, and knows
/// nothing of the others'. The voices to end are chosen by FluidSynth's own order of overflow
/// priority, simplified to what its public API shows: released voices first, then voices held by
/// the sustain or sostenuto pedal, then held notes; drum voices after all others; the oldest first
/// within each. A voice ended is silenced at once (its attenuation to 144 dB, which FluidSynth
/// ramps over its next 64-frame block, so it does not click) and released in FluidSynth's shortest
/// release (8 ms), after which its slot is free; until then it is not counted as sounding.
/// Render thread only; its voice list is allocated once (again only when the polyphony grows).
final class VoiceCutter {
    /// The release an ended voice is given: FluidSynth's shortest (-7200 timecents, 8 ms), half a
    /// timecent below it, so the value (no SoundFont sets a fraction) also marks the voice as ended.
    static let endedReleaseTimecents: Float = -7200.5
    /// Silence (FluidSynth's most attenuation, centibels).
    static let silentAttenuation: Float = 1440

    private let list: VoiceListBuffer
    /// Whether voices ended here may still be fading (FluidSynth still counts them).
    private var mayHaveEndedVoices = false

    init(polyphony: Int) { list = VoiceListBuffer(polyphony: polyphony) }

    /// Makes room for `polyphony` voices. Not on the render thread (between cycles).
    func resize(polyphony: Int) { list.resize(polyphony: polyphony) }

    /// The voices `synth` sounds now: FluidSynth's count of active voices, less the ones ended here
    /// that are still fading.
    func soundingVoices(in synth: OpaquePointer) -> Int {
        let active = Int(fluid_synth_get_active_voice_count(synth))
        guard mayHaveEndedVoices else { return active }
        let listed = list.fill(from: synth)
        var ended = 0, index = 0
        while index < listed {
            if Self.isEnded(list[index]) { ended += 1 }
            index += 1
        }
        if ended == 0 { mayHaveEndedVoices = false }
        return active - ended
    }

    /// Ends up to `count` sounding voices of `synth` in overflow-priority order; returns how many it ended.
    func endVoices(_ count: Int, in synth: OpaquePointer) -> Int {
        guard count > 0 else { return 0 }
        let listed = list.fill(from: synth)
        var drums: UInt16 = 0, channel: Int32 = 0
        while channel < 16 {
            var font: Int32 = 0, bank: Int32 = 0, program: Int32 = 0
            if fluid_synth_get_program(synth, channel, &font, &bank, &program) == FLUID_OK, bank == 128 { drums |= 1 << UInt16(channel) }
            channel += 1
        }
        var ended = 0
        while ended < count {
            // The sounding voice of lowest priority left (a few per call: one pass each).
            var best = -1, bestRank = Int64.max
            var index = 0
            while index < listed {
                let voice = list[index]
                if !Self.isEnded(voice) {
                    let rank = Self.rank(voice, drums: drums)
                    if rank < bestRank { best = index; bestRank = rank }
                }
                index += 1
            }
            guard best >= 0 else { break }
            end(list[best], in: synth)
            ended += 1
        }
        if ended > 0 { mayHaveEndedVoices = true }
        return ended
    }

    private static func isEnded(_ voice: OpaquePointer) -> Bool {
        fluid_voice_gen_get(voice, Int32(GEN_VOLENVRELEASE.rawValue)) == endedReleaseTimecents
    }

    /// Lower ends first: non-drum before drum, then released, pedal-held, held; then the oldest (lowest id).
    private static func rank(_ voice: OpaquePointer, drums: UInt16) -> Int64 {
        let isDrum: Int64 = drums & (1 << UInt16(fluid_voice_get_channel(voice) & 15)) != 0 ? 1 : 0
        let state: Int64
        if fluid_voice_is_on(voice) != 0 {
            state = 2
        } else if fluid_voice_is_sustained(voice) != 0 || fluid_voice_is_sostenuto(voice) != 0 {
            state = 1
        } else {
            state = 0
        }
        return (isDrum * 4 + state) << 40 | Int64(fluid_voice_get_id(voice))
    }

    private func end(_ voice: OpaquePointer, in synth: OpaquePointer) {
        func set(_ generator: fluid_gen_type, _ value: Float) {
            fluid_voice_gen_set(voice, Int32(generator.rawValue), value)
            fluid_voice_update_param(voice, Int32(generator.rawValue))
        }
        set(GEN_ATTENUATION, Self.silentAttenuation)
        set(GEN_VOLENVRELEASE, Self.endedReleaseTimecents)
        set(GEN_MODENVRELEASE, Self.endedReleaseTimecents)
        // A held note is released (its other voices too, with their own release); a pedal-held
        // one stays silent until the pedal lifts.
        if fluid_voice_is_on(voice) != 0 { fluid_synth_stop(synth, UInt32(fluid_voice_get_id(voice))) }
    }
}
