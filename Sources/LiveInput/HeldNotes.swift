import MIDICore

/// Which notes and sustain pedals each source (an ALSA client, a network peer) holds down, so that
/// when a source leaves everything it still holds can be released: the one held-note table of live
/// input. A fixed table allocated once (`sourceCapacity` sources at a time); updating and releasing
/// never allocate. Used on one thread (the producer's).
package struct HeldNotes: Sendable {
    /// Sources tracked at once; notes of a source beyond them are not tracked (and not released).
    package let sourceCapacity: Int
    /// The source in each slot; `free` for a free slot. (Not optionals: comparing those is generic,
    /// and allocates, in unoptimized builds.)
    private var sources: [UInt64]
    private static let free = UInt64.max
    /// Bit `note % 64` of word `(slot * 16 + channel) * 2 + note / 64`.
    private var notes: [UInt64]
    /// Bit `channel` of entry `slot`: that source's sustain pedal is down on that channel.
    private var sustain: [UInt16]

    package init(sourceCapacity: Int = 64) {
        self.sourceCapacity = sourceCapacity
        sources = Array(repeating: Self.free, count: sourceCapacity)
        notes = Array(repeating: 0, count: sourceCapacity * 32)
        sustain = Array(repeating: 0, count: sourceCapacity)
    }

    /// Takes note of `message` sent by `source`.
    package mutating func update(_ message: MIDIMessage, from source: UInt32) {
        switch message {
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            let isOn = message.isNoteOn
            guard let slot = slot(of: source, adding: isOn) else { return }
            let word = (slot * 16 + Int(channel & 0x0F)) * 2 + Int((note & 0x7F) >> 6)
            let bit = UInt64(1) << UInt64(note & 63)
            if isOn { notes[word] |= bit } else { notes[word] &= ~bit }
        case .controlChange(let channel, 64, let value):
            guard let slot = slot(of: source, adding: value >= 64) else { return }
            let bit = UInt16(1) << UInt16(channel & 0x0F)
            if value >= 64 { sustain[slot] |= bit } else { sustain[slot] &= ~bit }
        default:
            break
        }
    }

    /// Calls `release` with a note-off for every note `source` holds and a sustain-off for every
    /// pedal it holds down, and forgets the source.
    package mutating func releaseAll(from source: UInt32, _ release: (MIDIMessage) -> Void) {
        guard let slot = slot(of: source, adding: false) else { return }
        for channel in 0..<16 {
            for half in 0..<2 {
                let word = (slot * 16 + channel) * 2 + half
                var bits = notes[word]
                while bits != 0 {
                    release(.noteOff(channel: UInt8(channel), note: UInt8(half * 64 + bits.trailingZeroBitCount), velocity: 0))
                    bits &= bits - 1
                }
                notes[word] = 0
            }
            if sustain[slot] & (1 << channel) != 0 {
                release(.controlChange(channel: UInt8(channel), controller: 64, value: 0))
            }
        }
        sustain[slot] = 0
        sources[slot] = Self.free
    }

    /// The slot of `source`; with `adding`, a free one (or one whose source holds nothing) is taken
    /// for a source not seen yet.
    private mutating func slot(of source: UInt32, adding: Bool) -> Int? {
        for slot in 0..<sourceCapacity where sources[slot] == UInt64(source) { return slot }
        guard adding else { return nil }
        for slot in 0..<sourceCapacity where sources[slot] == Self.free || holdsNothing(slot) {
            sources[slot] = UInt64(source)
            return slot
        }
        return nil
    }

    private func holdsNothing(_ slot: Int) -> Bool {
        guard sustain[slot] == 0 else { return false }
        for word in slot * 32..<slot * 32 + 32 where notes[word] != 0 { return false }
        return true
    }
}
