import CFluidSynth

/// Makes every voice a synthesizer starts fade in from silence over its first 64-frame block, as
/// FluidSynth does in a voice slot never used before, instead of from the gains of the voice that
/// used the slot last (FluidSynth 2.3 never resets them; see `seqplay_fluid_voice_start_gains_from_zero`).
/// With it a note sounds the same whatever other channels played, so renders add up over channels:
/// synthesizers playing groups of a song's channels sum to one synthesizer playing them all, which
/// stems and multi-threaded rendering rely on. Render thread only; no allocation after init.
final class VoiceStartGains {
    /// Whether the installed FluidSynth has the voice layout this was written for (2.3.1).
    static let isSupported: Bool = {
        var major: Int32 = 0, minor: Int32 = 0, micro: Int32 = 0
        fluid_version(&major, &minor, &micro)
        return (major, minor, micro) == (2, 3, 1)
    }()

    private let list: VoiceListBuffer
    private var lastVoiceID: Int64 = -1
    /// True once a voice did not match the expected layout: from then on nothing is changed.
    private(set) var layoutMismatch = false

    init(polyphony: Int) { list = VoiceListBuffer(polyphony: polyphony) }

    /// Makes room for `polyphony` voices. Not on the render thread (between cycles).
    func resize(polyphony: Int) { list.resize(polyphony: polyphony) }

    /// Applies to the voices `synth` started since the last call: call it after each note-on. Returns
    /// the highest voice id seen (the id of the voices the note started, when it started any), which
    /// where the layout is not supported is looked up only when `needsID`.
    @discardableResult
    func voicesStarted(in synth: OpaquePointer, needsID: Bool = false) -> Int64 {
        guard Self.isSupported, !layoutMismatch else {
            guard needsID else { return lastVoiceID }
            let listed = list.fill(from: synth)
            var index = 0
            while index < listed {
                lastVoiceID = max(lastVoiceID, Int64(fluid_voice_get_id(list[index])))
                index += 1
            }
            return lastVoiceID
        }
        var failed: Int32 = 0
        lastVoiceID = seqplay_fluid_synth_start_new_voice_gains_from_zero(synth, list.voices, Int32(list.capacity), lastVoiceID, &failed)
        if failed != 0 { layoutMismatch = true }
        return lastVoiceID
    }
}
