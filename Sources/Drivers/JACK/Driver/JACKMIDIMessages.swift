import MIDICore

extension JACKMIDIEvent {
    /// The event as a channel, system common or real-time message; nil for System Exclusive (not
    /// taken from a live port: it would allocate on JACK's thread) and for bytes that are not a
    /// complete message. Real-time safe.
    var message: MIDIMessage? {
        // Subscripts only: the generic `first` allocates in unoptimized builds.
        guard bytes.count > 0 else { return nil }
        let status = bytes[0]
        guard status >= 0x80, status != 0xF0, let length = MIDIMessage.dataLength(forStatus: status), bytes.count > length else { return nil }
        return MIDIMessage(status: status, data1: length > 0 ? bytes[1] : 0, data2: length > 1 ? bytes[2] : 0)
    }
}

extension JACKMIDIOutputBuffer {
    /// Writes `message` at frame `frame` of the cycle (System Exclusive from its own storage, the
    /// others from the stack). Returns false when the buffer is full. Real-time safe.
    @discardableResult
    public func write(_ message: MIDIMessage, atFrame frame: Int) -> Bool {
        if case .systemExclusive(let data) = message {
            return data.withUnsafeBufferPointer { write($0, atFrame: frame) }
        }
        let status = message.statusByte
        var bytes: (UInt8, UInt8, UInt8) = (status, 0, 0)
        switch message {
        case .noteOff(_, let a, let b), .noteOn(_, let a, let b), .polyPressure(_, let a, let b), .controlChange(_, let a, let b):
            bytes.1 = a & 0x7F
            bytes.2 = b & 0x7F
        case .programChange(_, let a), .channelPressure(_, let a), .timeCodeQuarterFrame(let a), .songSelect(let a):
            bytes.1 = a & 0x7F
        case .pitchBend(_, let value), .songPosition(let value):
            bytes.1 = UInt8(value & 0x7F)
            bytes.2 = UInt8((value >> 7) & 0x7F)
        default:
            break
        }
        let count = 1 + (MIDIMessage.dataLength(forStatus: status) ?? 0)
        return withUnsafeBytes(of: &bytes) { raw in
            write(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count), atFrame: frame)
        }
    }
}
