import CFluidSynth

/// Note limiting for dense songs (`SamplerSettings.maximumNotesPerKey`, `minimumVelocity`), as
/// black-MIDI players offer it, applied where the synthesizer receives notes. A note-on quieter than
/// the minimum velocity is skipped, and so is the note-off paired with it (first in, first out per
/// channel and key), so it does not release a louder note on the same key. A note sounds from its
/// note-on until its voices finish (held, then releasing); FluidSynth itself releases a held note
/// when its key is struck again, but its release rings on, and fast repeated notes pile voices up
/// on one key. A note-on on a key already sounding the most notes allowed first ends the oldest of
/// them as FluidSynth ends a note cut off by its exclusive class (a hi-hat choked): its volume and
/// modulation envelopes' release set to -200 timecents (0.89 s from where the envelope is, so it
/// does not click) and the note released if still held. Render thread only; its tables are
/// allocated once, so it never allocates.
final class NoteLimiter {
    /// The most notes sounding per channel and key (0: no limit), at most `maximumLimit`.
    let maximumNotes: Int
    /// Note-ons below this velocity are skipped (0: none).
    let minimumVelocity: UInt8

    /// The highest `maximumNotesPerKey` taken.
    static let maximumLimit = SamplerSettings.noteLimitRanges.maximumNotesPerKey.upperBound
    /// The release FluidSynth gives a voice its exclusive class cuts off (`fluid_voice_kill_excl`).
    static let chokeReleaseTimecents: Float = -200

    private static let slots = 16 * 128
    /// Per slot: the voice ids of the notes that may still sound (not ended here), oldest first, in
    /// a ring of `maximumNotes`.
    private let ids: UnsafeMutablePointer<Int64>
    private let first: UnsafeMutablePointer<Int32>
    private let sounding: UnsafeMutablePointer<Int32>
    /// Per slot: whether each note-on still waiting for its note-off was skipped, oldest in bit 0 (at most 64).
    private let skipped: UnsafeMutablePointer<UInt64>
    private let waiting: UnsafeMutablePointer<Int32>
    /// The voices of one note, as FluidSynth lists them.
    private static let voiceCapacity = 64
    private let voices: UnsafeMutablePointer<OpaquePointer?>
    /// The highest voice id seen after a note-on.
    private var lastID: Int64 = -1

    init(maximumNotes: Int, minimumVelocity: UInt8) {
        self.maximumNotes = min(max(0, maximumNotes), Self.maximumLimit)
        self.minimumVelocity = minimumVelocity
        let ringSlots = Self.slots * max(1, self.maximumNotes)
        ids = .allocate(capacity: ringSlots)
        ids.initialize(repeating: -1, count: ringSlots)
        first = .allocate(capacity: Self.slots)
        sounding = .allocate(capacity: Self.slots)
        waiting = .allocate(capacity: Self.slots)
        skipped = .allocate(capacity: Self.slots)
        for pointer in [first, sounding, waiting] { pointer.initialize(repeating: 0, count: Self.slots) }
        skipped.initialize(repeating: 0, count: Self.slots)
        voices = .allocate(capacity: Self.voiceCapacity + 1)
        voices.initialize(repeating: nil, count: Self.voiceCapacity + 1)
    }

    deinit {
        ids.deallocate()
        for pointer in [first, sounding, waiting] { pointer.deallocate() }
        skipped.deallocate()
        voices.deallocate()
    }

    /// The limiter `settings` ask for, nil when they limit nothing.
    static func make(for settings: SamplerSettings) -> NoteLimiter? {
        let notes = settings.maximumNotesPerKey ?? 0, velocity = settings.minimumVelocity ?? 0
        guard notes > 0 || velocity > 0 else { return nil }
        return NoteLimiter(maximumNotes: notes, minimumVelocity: velocity)
    }

    /// Whether this limiter does what `settings` ask.
    func matches(_ settings: SamplerSettings) -> Bool {
        maximumNotes == min(settings.maximumNotesPerKey ?? 0, Self.maximumLimit) && minimumVelocity == (settings.minimumVelocity ?? 0)
    }

    private static func slot(_ channel: UInt8, _ key: UInt8) -> Int { Int(channel & 0x0F) * 128 + Int(key & 0x7F) }

    /// Before a note-on (velocity > 0) goes to `synth`: false when it is skipped; otherwise, when its
    /// key sounds the most notes allowed, the oldest is ended first.
    func admitsNoteOn(channel: UInt8, key: UInt8, velocity: UInt8, synth: OpaquePointer) -> Bool {
        let slot = Self.slot(channel, key)
        if minimumVelocity > 0 {
            let skip = velocity < minimumVelocity
            if waiting[slot] == 64 {
                skipped[slot] >>= 1
                waiting[slot] -= 1
            }
            if skip { skipped[slot] |= 1 << UInt64(waiting[slot]) }
            waiting[slot] += 1
            if skip { return false }
        }
        guard maximumNotes > 0, sounding[slot] >= Int32(maximumNotes) else { return true }
        // Forget the notes whose voices have finished, keeping the others in order.
        let ring = ids + slot * maximumNotes
        var kept: Int32 = 0
        for index in 0..<Int(sounding[slot]) {
            let id = ring[(Int(first[slot]) + index) % maximumNotes]
            guard hasVoices(id, synth) else { continue }
            ring[(Int(first[slot]) + Int(kept)) % maximumNotes] = id
            kept += 1
        }
        sounding[slot] = kept
        guard kept >= Int32(maximumNotes) else { return true }
        end(ring[Int(first[slot])], synth)
        first[slot] = (first[slot] + 1) % Int32(maximumNotes)
        sounding[slot] -= 1
        return true
    }

    private func hasVoices(_ id: Int64, _ synth: OpaquePointer) -> Bool {
        voices[0] = nil
        fluid_synth_get_voicelist(synth, voices, Int32(Self.voiceCapacity), Int32(truncatingIfNeeded: id))
        return voices[0] != nil
    }

    /// Ends the note whose voices have `id` as FluidSynth ends a voice its exclusive class cuts off.
    private func end(_ id: Int64, _ synth: OpaquePointer) {
        voices.update(repeating: nil, count: Self.voiceCapacity + 1)
        fluid_synth_get_voicelist(synth, voices, Int32(Self.voiceCapacity), Int32(truncatingIfNeeded: id))
        var index = 0
        while index < Self.voiceCapacity, let voice = voices[index] {
            fluid_voice_gen_set(voice, Int32(GEN_VOLENVRELEASE.rawValue), Self.chokeReleaseTimecents)
            fluid_voice_update_param(voice, Int32(GEN_VOLENVRELEASE.rawValue))
            fluid_voice_gen_set(voice, Int32(GEN_MODENVRELEASE.rawValue), Self.chokeReleaseTimecents)
            fluid_voice_update_param(voice, Int32(GEN_MODENVRELEASE.rawValue))
            index += 1
        }
        fluid_synth_stop(synth, UInt32(truncatingIfNeeded: id))
    }

    /// After a note-on went to the synth: `highestID`, the highest voice id now, names its voices
    /// when it is above the last seen (else it started none).
    func noteStarted(channel: UInt8, key: UInt8, highestID: Int64) {
        guard highestID > lastID else { return }
        lastID = highestID
        guard maximumNotes > 0 else { return }
        let slot = Self.slot(channel, key)
        if sounding[slot] == Int32(maximumNotes) {
            // Only when a note-on started no voices was the ring left full: the oldest gives way.
            first[slot] = (first[slot] + 1) % Int32(maximumNotes)
            sounding[slot] -= 1
        }
        ids[slot * maximumNotes + (Int(first[slot]) + Int(sounding[slot])) % maximumNotes] = highestID
        sounding[slot] += 1
    }

    /// Whether a note-off (or note-on at velocity 0) goes to the synth: not when its note was skipped.
    func admitsNoteOff(channel: UInt8, key: UInt8) -> Bool {
        let slot = Self.slot(channel, key)
        guard minimumVelocity > 0, waiting[slot] > 0 else { return true }
        let wasSkipped = skipped[slot] & 1 != 0
        skipped[slot] >>= 1
        waiting[slot] -= 1
        return !wasSkipped
    }

    /// Forgets the skipped notes of `channel` (all channels when nil): all its notes were ended.
    func clear(channel: UInt8?) {
        let range = channel.map { Int($0 & 0x0F) * 128..<(Int($0 & 0x0F) + 1) * 128 } ?? 0..<Self.slots
        for slot in range {
            waiting[slot] = 0
            skipped[slot] = 0
        }
    }
}
