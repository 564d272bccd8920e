import MIDICore

/// Which notes (and sustain pedals) each sequencer client holds down, so that when a client leaves
/// everything it still holds can be released. A fixed table, allocated once; updated and read on
/// the MIDI input thread only.
struct HeldNotes {
    /// Bit `note % 64` of word `(client * 16 + channel) * 2 + note / 64`.
    private var notes = [UInt64](repeating: 0, count: 256 * 16 * 2)
    /// Bit `channel` of entry `client`: that client's sustain pedal is down on that channel.
    private var sustain = [UInt16](repeating: 0, count: 256)

    /// Takes note of `message` sent by `client`.
    mutating func update(_ message: MIDIMessage, from client: UInt8) {
        switch message {
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            let word = (Int(client) * 16 + Int(channel & 0x0F)) * 2 + Int(note >> 6)
            let bit = UInt64(1) << UInt64(note & 63)
            if message.isNoteOn { notes[word] |= bit } else { notes[word] &= ~bit }
        case .controlChange(let channel, 64, let value):
            let bit = UInt16(1) << UInt16(channel & 0x0F)
            if value >= 64 { sustain[Int(client)] |= bit } else { sustain[Int(client)] &= ~bit }
        default:
            break
        }
    }

    /// Calls `release` with a note-off for every note `client` holds and a sustain-off for every pedal
    /// it holds down, and forgets them.
    mutating func releaseAll(from client: UInt8, _ release: (MIDIMessage) -> Void) {
        for channel in 0..<16 {
            for half in 0..<2 {
                let word = (Int(client) * 16 + channel) * 2 + half
                var bits = notes[word]
                while bits != 0 {
                    let note = half * 64 + bits.trailingZeroBitCount
                    release(.noteOff(channel: UInt8(channel), note: UInt8(note), velocity: 0))
                    bits &= bits - 1
                }
                notes[word] = 0
            }
            if sustain[Int(client)] & (1 << channel) != 0 {
                release(.controlChange(channel: UInt8(channel), controller: 64, value: 0))
            }
        }
        sustain[Int(client)] = 0
    }
}
