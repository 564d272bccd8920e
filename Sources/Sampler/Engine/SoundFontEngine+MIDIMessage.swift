import MIDICore

extension SoundFontEngine.Message {
    /// The engine's form of a message; nil for what it does not play (timing, transport and the other system common messages).
    init?(_ message: MIDIMessage) {
        switch message {
        case let .noteOn(channel, note, velocity):
            self = .noteOn(channel: Int(channel), key: Int(note), velocity: Int(velocity))
        case let .noteOff(channel, note, _): self = .noteOff(channel: Int(channel), key: Int(note))
        case let .controlChange(channel, controller, value):
            self = .controlChange(channel: Int(channel), controller: Int(controller), value: Int(value))
        case let .programChange(channel, program): self = .programChange(channel: Int(channel), program: Int(program))
        case let .pitchBend(channel, value): self = .pitchBend(channel: Int(channel), value: Int(value))
        case let .channelPressure(channel, pressure): self = .channelPressure(channel: Int(channel), value: Int(pressure))
        case let .polyPressure(channel, note, pressure): self = .keyPressure(channel: Int(channel), key: Int(note), value: Int(pressure))
        case let .systemExclusive(bytes): self = .systemExclusive(bytes)
        case .systemReset: self = .systemReset
        default: return nil
        }
    }
}
