import MIDICore

/// The schedule's events (`PlaybackSchedule`), each held in 12 bytes: its time as 32 bits from the
/// time of the first event of its run of 4096 (a time further off kept out of line), and one word
/// packing the message (what kind, its channel and data bytes; a SysEx's bytes out of line), the
/// port and the track. A dense song's millions of events take 12 bytes each instead of a
/// `SongEvent`'s 40. Reading one back gives the same `SongEvent`. An event that does not pack (a
/// track index past 2^26, more than 2^24 SysEx messages) turns the list into plain `SongEvent`s.
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

    // Word layout: bits 0-4 kind, 5-12 first byte (channel, or a system message's value), 13-28 the
    // rest (two data bytes, or a 16-bit value; a SysEx's index), 29-36 port, 37-63 track (signed).
    private static let trackBits = 27

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
        let first = UInt8(truncatingIfNeeded: word >> 5)
        let rest = UInt16(truncatingIfNeeded: word >> 13)
        let low = UInt8(truncatingIfNeeded: rest), high = UInt8(truncatingIfNeeded: rest >> 8)
        let message: MIDIMessage
        switch word & 0x1F {
        case 0: message = .noteOff(channel: first, note: low, velocity: high)
        case 1: message = .noteOn(channel: first, note: low, velocity: high)
        case 2: message = .polyPressure(channel: first, note: low, pressure: high)
        case 3: message = .controlChange(channel: first, controller: low, value: high)
        case 4: message = .programChange(channel: first, program: low)
        case 5: message = .channelPressure(channel: first, pressure: low)
        case 6: message = .pitchBend(channel: first, value: rest)
        case 7: message = .systemExclusive(sysEx[Int(word >> 5) & 0xFF_FFFF])
        case 8: message = .timeCodeQuarterFrame(first)
        case 9: message = .songPosition(rest)
        case 10: message = .songSelect(first)
        case 11: message = .tuneRequest
        case 12: message = .timingClock
        case 13: message = .start
        case 14: message = .continue
        case 15: message = .stop
        case 16: message = .activeSensing
        default: message = .systemReset
        }
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
        func word(_ kind: UInt64, _ first: UInt8 = 0, _ rest: UInt16 = 0) -> UInt64 {
            kind | UInt64(first) << 5 | UInt64(rest) << 13 | UInt64(event.port) << 29 | UInt64(bitPattern: Int64(event.track)) << 37
        }
        func pair(_ low: UInt8, _ high: UInt8) -> UInt16 { UInt16(low) | UInt16(high) << 8 }
        switch event.message {
        case .noteOff(let c, let n, let v): return word(0, c, pair(n, v))
        case .noteOn(let c, let n, let v): return word(1, c, pair(n, v))
        case .polyPressure(let c, let n, let p): return word(2, c, pair(n, p))
        case .controlChange(let c, let cc, let v): return word(3, c, pair(cc, v))
        case .programChange(let c, let p): return word(4, c, UInt16(p))
        case .channelPressure(let c, let p): return word(5, c, UInt16(p))
        case .pitchBend(let c, let v): return word(6, c, v)
        case .systemExclusive(let bytes):
            guard sysEx.count < 1 << 24 else { return nil }
            sysEx.append(bytes)
            let index = UInt64(sysEx.count - 1)
            return 7 | index << 5 | UInt64(event.port) << 29 | UInt64(bitPattern: Int64(event.track)) << 37
        case .timeCodeQuarterFrame(let v): return word(8, v)
        case .songPosition(let v): return word(9, 0, v)
        case .songSelect(let v): return word(10, v)
        case .tuneRequest: return word(11)
        case .timingClock: return word(12)
        case .start: return word(13)
        case .continue: return word(14)
        case .stop: return word(15)
        case .activeSensing: return word(16)
        case .systemReset: return word(17)
        }
    }
}
