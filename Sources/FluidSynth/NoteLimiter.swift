import CFluidSynth

/// Note limiting for dense songs (`SamplerSettings.maximumNotesPerKey`, `minimumVelocity`), as
/// black-MIDI players offer it, applied where the synthesizer receives notes: a note-on quieter than
/// the minimum velocity is skipped, and so is the note-off paired with it (first in, first out per
/// channel and key); a note-on on a key already holding the most notes allowed first releases the
/// oldest of them (`fluid_synth_stop` on its voices: FluidSynth's own release, so it does not click),
/// and that note's own note-off, when it comes, is dropped. Render thread only; its tables are
/// allocated once, so it never allocates.
final class NoteLimiter {
    /// The most notes held per channel and key (0: no limit), at most `maximumLimit`.
    let maximumNotes: Int
    /// Note-ons below this velocity are skipped (0: none).
    let minimumVelocity: UInt8

    /// The highest `maximumNotesPerKey` taken.
    static let maximumLimit = 128

    private static let slots = 16 * 128
    /// Per slot: the voice ids of the held notes, oldest first, in a ring of `maximumNotes`.
    private let ids: UnsafeMutablePointer<Int64>
    private let first: UnsafeMutablePointer<Int32>
    private let held: UnsafeMutablePointer<Int32>
    /// Per slot: note-offs to drop, of notes ended by the limit.
    private let ended: UnsafeMutablePointer<Int32>
    /// Per slot: whether each note-on still waiting for its note-off was skipped, oldest in bit 0 (at most 64).
    private let skipped: UnsafeMutablePointer<UInt64>
    private let waiting: UnsafeMutablePointer<Int32>
    /// The highest voice id seen after a note-on.
    private var lastID: Int64 = -1

    init(maximumNotes: Int, minimumVelocity: UInt8) {
        self.maximumNotes = min(max(0, maximumNotes), Self.maximumLimit)
        self.minimumVelocity = minimumVelocity
        let ringSlots = Self.slots * max(1, self.maximumNotes)
        ids = .allocate(capacity: ringSlots)
        ids.initialize(repeating: -1, count: ringSlots)
        first = .allocate(capacity: Self.slots)
        held = .allocate(capacity: Self.slots)
        ended = .allocate(capacity: Self.slots)
        waiting = .allocate(capacity: Self.slots)
        skipped = .allocate(capacity: Self.slots)
        for pointer in [first, held, ended, waiting] { pointer.initialize(repeating: 0, count: Self.slots) }
        skipped.initialize(repeating: 0, count: Self.slots)
    }

    deinit {
        ids.deallocate()
        for pointer in [first, held, ended, waiting] { pointer.deallocate() }
        skipped.deallocate()
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
    /// key holds the most notes allowed, the oldest is released first.
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
        if maximumNotes > 0, held[slot] >= Int32(maximumNotes) {
            let oldest = slot * maximumNotes + Int(first[slot])
            fluid_synth_stop(synth, UInt32(truncatingIfNeeded: ids[oldest]))
            first[slot] = (first[slot] + 1) % Int32(maximumNotes)
            held[slot] -= 1
            ended[slot] += 1
        }
        return true
    }

    /// After a note-on went to the synth: `highestID`, the highest voice id now, names its voices
    /// when it is above the last seen (else it started none).
    func noteStarted(channel: UInt8, key: UInt8, highestID: Int64) {
        guard highestID > lastID else { return }
        lastID = highestID
        guard maximumNotes > 0 else { return }
        let slot = Self.slot(channel, key)
        let index = (Int(first[slot]) + Int(held[slot])) % maximumNotes
        ids[slot * maximumNotes + index] = highestID
        if held[slot] < Int32(maximumNotes) { held[slot] += 1 }
    }

    /// Whether a note-off (or note-on at velocity 0) goes to the synth: not when its note was
    /// skipped or already ended by the limit. One that goes releases every note of its key in
    /// FluidSynth, so the key then holds none.
    func admitsNoteOff(channel: UInt8, key: UInt8) -> Bool {
        let slot = Self.slot(channel, key)
        if minimumVelocity > 0, waiting[slot] > 0 {
            let wasSkipped = skipped[slot] & 1 != 0
            skipped[slot] >>= 1
            waiting[slot] -= 1
            if wasSkipped { return false }
        }
        if ended[slot] > 0 {
            ended[slot] -= 1
            return false
        }
        held[slot] = 0
        first[slot] = 0
        return true
    }

    /// Forgets every held note of `channel` (all channels when nil): they were silenced or released.
    func clear(channel: UInt8?) {
        let range = channel.map { Int($0 & 0x0F) * 128..<(Int($0 & 0x0F) + 1) * 128 } ?? 0..<Self.slots
        for slot in range {
            held[slot] = 0
            first[slot] = 0
            ended[slot] = 0
            waiting[slot] = 0
            skipped[slot] = 0
        }
    }
}
