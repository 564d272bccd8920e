import CFluidSynth

/// Room for a synthesizer's voice list (`fluid_synth_get_voicelist`), allocated once for a polyphony and
/// again only when it grows, so the render thread reads the voices without allocating. Used by
/// `VoiceStartGains` and `VoiceCutter`.
final class VoiceListBuffer {
    /// The list's slots: `capacity` voice pointers (one more than the polyphony, so the list ends in nil).
    private(set) var voices: UnsafeMutablePointer<OpaquePointer?>
    private(set) var capacity: Int

    init(polyphony: Int) {
        capacity = polyphony + 1
        voices = .allocate(capacity: capacity)
    }

    deinit { voices.deallocate() }

    /// Makes room for `polyphony` voices. Not on the render thread (between cycles).
    func resize(polyphony: Int) {
        guard polyphony + 1 > capacity else { return }
        voices.deallocate()
        capacity = polyphony + 1
        voices = .allocate(capacity: capacity)
    }

    /// Fills the slots with the playing voices of `synth`; returns how many.
    func fill(from synth: OpaquePointer) -> Int {
        voices.update(repeating: nil, count: capacity)
        fluid_synth_get_voicelist(synth, voices, Int32(capacity - 1), -1)
        var count = 0
        while count < capacity, voices[count] != nil { count += 1 }
        return count
    }

    subscript(index: Int) -> OpaquePointer { voices[index]! }
}
