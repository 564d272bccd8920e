/// Joins System Exclusive segments that arrive across several packets into complete messages,
/// with a size limit so a hostile peer cannot make it grow without bound.
struct SysExReassembler {
    let limit: Int
    private var buffer: [UInt8] = []
    private var inProgress = false

    init(limit: Int) { self.limit = limit }

    /// Takes one segment; returns the complete message (with F0 … F7) when `isLast` closes it.
    /// A segment that does not continue a message in progress, or one that overflows the limit,
    /// abandons the message and throws.
    mutating func add(_ data: [UInt8], isFirst: Bool, isLast: Bool) throws(NetworkMIDIPacketError) -> [UInt8]? {
        if isFirst {
            buffer = [0xF0]
            inProgress = true
        } else if !inProgress {
            throw .invalidValue(field: "SysEx continuation without a start", value: 0xF7)
        }
        guard buffer.count + data.count + 1 <= limit else {
            cancel()
            throw .sysExTooLong(limit: limit)
        }
        buffer.append(contentsOf: data)
        guard isLast else { return nil }
        buffer.append(0xF7)
        defer { cancel() }
        return buffer
    }

    /// Abandons the message in progress (after a cancel command or packet loss).
    mutating func cancel() {
        buffer = []
        inProgress = false
    }
}
