import MIDICore

extension SequenceEvent {
    /// The message a sampler is sent for this event: channel messages as they are, SysEx as a
    /// complete F0…F7 message, escapes when their bytes form one complete message; `nil` for metas.
    public var playableMessage: MIDIMessage? {
        switch self {
        case .midi(let message):
            return message
        case .sysEx(let data):
            return .systemExclusive([0xF0] + data + (data.last == 0xF7 ? [] : [0xF7]))
        case .escape(let bytes):
            guard let status = bytes.first else { return nil }
            if status == 0xF0 { return bytes.count >= 2 && bytes.last == 0xF7 ? .systemExclusive(bytes) : nil }
            guard let length = MIDIMessage.dataLength(forStatus: status), bytes.count == 1 + length else { return nil }
            return MIDIMessage(status: status, data1: length > 0 ? bytes[1] : 0, data2: length > 1 ? bytes[2] : 0)
        case .meta:
            return nil
        }
    }
}

extension MIDIMessage {
    /// The message with its note moved `semitones`, except on channel index 9 (drums); `nil` when the
    /// note leaves 0...127. Messages without a note are returned unchanged.
    public func transposed(by semitones: Int) -> MIDIMessage? {
        guard semitones != 0, channel != 9 else { return self }
        func moved(_ note: UInt8) -> UInt8? {
            let shifted = Int(note) + semitones
            return (0...127).contains(shifted) ? UInt8(shifted) : nil
        }
        switch self {
        case .noteOn(let c, let n, let v): return moved(n).map { .noteOn(channel: c, note: $0, velocity: v) }
        case .noteOff(let c, let n, let v): return moved(n).map { .noteOff(channel: c, note: $0, velocity: v) }
        case .polyPressure(let c, let n, let p): return moved(n).map { .polyPressure(channel: c, note: $0, pressure: p) }
        default: return self
        }
    }
}
