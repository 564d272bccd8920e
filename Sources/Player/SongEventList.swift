import MIDICore

/// The schedule's events (`PlaybackSchedule`), each held in 12 bytes: its time as 32 bits from the
/// time of the first event of its run of 4096 (a time further off kept out of line), and one word
/// packing the message (its status byte and data bytes, as on the wire; a SysEx's bytes out of
/// line), the port and the track. A dense song's millions of events take 12 bytes each instead of
/// a `SongEvent`'s 40. Reading one back gives the same `SongEvent`. An event that does not pack (a
/// message its wire bytes cannot hold, such as a channel past 15 or a data value past 127, a track
/// index past 2^26, more than 2^21 SysEx messages) turns the list into plain `SongEvent`s.
struct SongEventList: RandomAccessCollection {
    /// Per event, its time minus its run's base time; `UInt32.max`: the time is in `farTimes`.
    private var offsets: [UInt32] = []
    /// Per run of `runLength` events, the time of its first event.
    private var bases: [Int64] = []
    private var farTimes: [Int: Int64] = [:]
    private var words: [UInt64] = []
    private static let runShift = 12
    private var sysEx: [[UInt8]] = []
    /// Set once an event did not pack: every event, unpacked.
    private var unpacked: [SongEvent]?

    var startIndex: Int { 0 }
    var endIndex: Int { unpacked?.count ?? words.count }

    init() {}

    mutating func reserveCapacity(_ count: Int) {
        offsets.reserveCapacity(count)
        words.reserveCapacity(count)
        bases.reserveCapacity(count >> Self.runShift + 1)
    }

    // Word layout: bits 0-7 status byte, 8-28 the data bytes (first, second; a SysEx's index),
    // 29-36 port, 37-63 track (signed).
    private static let trackBits = 27
    private static let sysExIndexBits = 21

    mutating func append(_ event: SongEvent) {
        if unpacked != nil {
            unpacked!.append(event)
            return
        }
        guard let word = pack(event) else {
            unpacked = Array(self) + [event]
            offsets = []
            bases = []
            farTimes = [:]
            words = []
            sysEx = []
            return
        }
        let position = words.count
        if position & (1 << Self.runShift - 1) == 0 { bases.append(event.sampleTime) }
        let offset = event.sampleTime.subtractingReportingOverflow(bases[position >> Self.runShift])
        if !offset.overflow, offset.partialValue >= 0, offset.partialValue < Int64(UInt32.max) {
            offsets.append(UInt32(offset.partialValue))
        } else {
            offsets.append(.max)
            farTimes[position] = event.sampleTime
        }
        words.append(word)
    }

    subscript(position: Int) -> SongEvent {
        if let unpacked { return unpacked[position] }
        let word = words[position]
        let status = UInt8(truncatingIfNeeded: word)
        let data = Int(word >> 8) & (1 << Self.sysExIndexBits - 1)
        let message = status == 0xF0 ? .systemExclusive(sysEx[data])
            : MIDIMessage(status: status, data1: UInt8(truncatingIfNeeded: data), data2: UInt8(truncatingIfNeeded: data >> 8))!
        let port = UInt8(truncatingIfNeeded: word >> 29)
        let track = Int(Int64(bitPattern: word) >> 37)
        let offset = offsets[position]
        let time = offset == .max ? farTimes[position]! : bases[position >> Self.runShift] + Int64(offset)
        return SongEvent(sampleTime: time, track: track, port: port, message: message)
    }

    /// The word for `event`, nil when it does not pack.
    private mutating func pack(_ event: SongEvent) -> UInt64? {
        let limit = 1 << (Self.trackBits - 1)
        guard event.track >= -limit, event.track < limit else { return nil }
        let data: UInt64
        if case .systemExclusive(let bytes) = event.message {
            guard sysEx.count < 1 << Self.sysExIndexBits else { return nil }
            data = UInt64(sysEx.count)
            sysEx.append(bytes)
        } else {
            // A message whose values its wire bytes cannot hold (a channel past 15, a data value past 127) does not pack.
            let (first, second) = event.message.dataBytes
            guard MIDIMessage(status: event.message.statusByte, data1: first, data2: second) == event.message else { return nil }
            data = UInt64(first) | UInt64(second) << 8
        }
        return UInt64(event.message.statusByte) | data << 8 | UInt64(event.port) << 29 | UInt64(bitPattern: Int64(event.track)) << 37
    }
}
