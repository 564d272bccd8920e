import MIDICore

/// Decodes the events of one track chunk from the file's bytes, one at a time, checking every read
/// against a limit.
///
/// `next(until:log:)` yields the track's events in order, then why it stopped; it can be called again
/// with a further limit after it stopped at one (the reader does that when a chunk's declared length
/// falls short of its End of Track). The reader collects the events into tracks; `SequenceReport`'s
/// streaming construction consumes them in place. Either way the same repairs are logged in the same order.
struct TrackDecoder {
    /// How decoding stopped.
    enum Stop: Equatable {
        /// At an End of Track meta event ending at `end`.
        case endOfTrack(end: Int)
        /// At the limit, between two events.
        case limit
        /// At an event starting at `eventStart` that the limit cuts off (the decoder is left before it).
        case truncated(eventStart: Int)

        var isEndOfTrack: Bool {
            if case .endOfTrack = self { return true }
            return false
        }
    }

    /// What one call to `next(until:log:)` gave: the next event, or why decoding stopped.
    enum Decoded {
        case event(TimedEvent)
        case stopped(Stop)
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// The track's index, for issue locations.
    let track: Int
    private(set) var position: Int
    private var tick: Int64 = 0
    /// Where the End of Track event ended, once it was decoded.
    private var endOfTrack: Int?
    /// The status byte running status repeats (0 when none yet).
    private(set) var runningStatus: UInt8
    /// Whether running status is carried over from the previous track, not yet used or replaced.
    private var statusFromPreviousTrack: Bool
    /// Whether a meta or SysEx event came after the last channel message (which cancels running status).
    private var runningStatusCancelled = false
    private var warnedRunningStatusAfterNonChannelEvent = false

    /// A decoder for the track whose events start at `start`; `previousStatus` is the last status
    /// byte of the previous track, used (with a warning) if this one starts with running status.
    init(bytes: UnsafeBufferPointer<UInt8>, track: Int, start: Int, previousStatus: UInt8) {
        self.bytes = bytes
        self.track = track
        self.position = start
        self.runningStatus = previousStatus
        self.statusFromPreviousTrack = previousStatus != 0
    }

    /// The next event before `limit` (at most `bytes.count`), or why decoding stops: after End of
    /// Track (which it yields first), at the limit, or at an event the limit cuts off.
    @inline(__always)
    mutating func next(until limit: Int, log: inout IssueLog) throws(MIDIFileIssue) -> Decoded {
        if let endOfTrack { return .stopped(.endOfTrack(end: endOfTrack)) }
        guard position < limit else { return .stopped(.limit) }
        let eventStart = position
        let tickBefore = tick
        let decoded = try decodeEvent(limit: limit, log: &log)
        if case .stopped(.truncated) = decoded {
            position = eventStart
            tick = tickBefore
        }
        return decoded
    }

    /// Decodes one event: the event, or why to stop.
    private mutating func decodeEvent(limit: Int, log: inout IssueLog) throws(MIDIFileIssue) -> Decoded {
        let eventStart = position
        guard let delta = try readVariableLength(limit: limit, log: log) else {
            return .stopped(.truncated(eventStart: eventStart))
        }
        guard tick <= Int64.max - Int64(delta) else {
            throw log.error(.tickOverflow, track: track, offset: eventStart)
        }
        tick += Int64(delta)
        guard position < limit else { return .stopped(.truncated(eventStart: eventStart)) }

        var status = bytes[position]
        if status < 0x80 {
            status = try statusForRunningStatus(at: position, log: &log)
        } else {
            position += 1
        }

        switch status {
        case 0x80...0xEF:
            return try decodeChannelMessage(status: status, eventStart: eventStart, limit: limit, log: log)
        case 0xFF:
            return try decodeMeta(eventStart: eventStart, limit: limit, log: &log)
        case 0xF0, 0xF7:
            return try decodeSysEx(status: status, eventStart: eventStart, limit: limit, log: log)
        default:
            return try decodeBareSystemMessage(status: status, eventStart: eventStart, limit: limit, log: &log)
        }
    }

    /// The status a data byte at `offset` continues, checking the running-status rules.
    private mutating func statusForRunningStatus(at offset: Int, log: inout IssueLog) throws(MIDIFileIssue) -> UInt8 {
        guard runningStatus != 0 else {
            throw log.error(.runningStatusWithoutStatus, track: track, offset: offset)
        }
        if statusFromPreviousTrack {
            try log.repaired(.runningStatusAtTrackStart, track: track, offset: offset)
            statusFromPreviousTrack = false
        }
        if runningStatusCancelled && !warnedRunningStatusAfterNonChannelEvent {
            try log.repaired(.runningStatusAfterNonChannelEvent, track: track, offset: offset)
            warnedRunningStatusAfterNonChannelEvent = true
        }
        return runningStatus
    }

    private mutating func decodeChannelMessage(status: UInt8, eventStart: Int, limit: Int,
                                               log: IssueLog) throws(MIDIFileIssue) -> Decoded {
        let length = (status & 0xE0) == 0xC0 ? 1 : 2
        guard position + length <= limit else { return .stopped(.truncated(eventStart: eventStart)) }
        let data1 = bytes[position]
        let data2 = length == 2 ? bytes[position + 1] : 0
        if data1 >= 0x80 { throw log.error(.dataByteExpected(data1), track: track, offset: position) }
        if data2 >= 0x80 { throw log.error(.dataByteExpected(data2), track: track, offset: position + 1) }
        position += length
        runningStatus = status
        statusFromPreviousTrack = false
        runningStatusCancelled = false
        // Every status in 0x80...0xEF with data bytes below 0x80 makes a message.
        return .event(TimedEvent(tick: tick, .midi(MIDIMessage(status: status, data1: data1, data2: data2)!)))
    }

    private mutating func decodeMeta(eventStart: Int, limit: Int, log: inout IssueLog) throws(MIDIFileIssue) -> Decoded {
        guard position < limit else { return .stopped(.truncated(eventStart: eventStart)) }
        let type = bytes[position]
        position += 1
        guard let data = try readLengthAndData(limit: limit, log: log) else {
            return .stopped(.truncated(eventStart: eventStart))
        }
        runningStatusCancelled = true
        if type == 0x2F {
            if !data.isEmpty {
                try log.repaired(.endOfTrackWithData(length: data.count), track: track, offset: eventStart)
            }
            endOfTrack = position
            return .event(TimedEvent(tick: tick, .meta(.endOfTrack)))
        }
        let meta: MetaEvent
        if let decoded = MetaEvent(type: type, data: data) {
            meta = decoded
            switch decoded {
            case .tempo(microsecondsPerQuarter: 0):
                try log.repaired(.zeroTempo, track: track, offset: eventStart)
            case .timeSignature(let numerator, let power, _, _) where numerator == 0 || power > 8:
                try log.repaired(.timeSignatureOutOfRange(numerator: numerator, denominatorPower: power),
                                 track: track, offset: eventStart)
            default:
                break
            }
        } else {
            try log.repaired(.metaLengthInvalid(type: type, length: data.count), track: track, offset: eventStart)
            meta = .raw(type: type, data: Array(data))
        }
        return .event(TimedEvent(tick: tick, .meta(meta)))
    }

    /// An F0 event (a SysEx message or its first packet) or an F7 event (a SysEx continuation packet or
    /// an escape). An F7 event holding exactly one system common or real-time message decodes to that
    /// message: its status byte cannot be SysEx data.
    private mutating func decodeSysEx(status: UInt8, eventStart: Int, limit: Int,
                                      log: IssueLog) throws(MIDIFileIssue) -> Decoded {
        guard let data = try readLengthAndData(limit: limit, log: log) else {
            return .stopped(.truncated(eventStart: eventStart))
        }
        runningStatusCancelled = true
        let event: SequenceEvent
        if status == 0xF0 {
            event = .sysEx(Array(data))
        } else if let message = Self.systemMessage(in: data) {
            event = .midi(message)
        } else {
            event = .escape(Array(data))
        }
        return .event(TimedEvent(tick: tick, event))
    }

    /// The system common or real-time message that `data` holds exactly, if it holds one.
    private static func systemMessage(in data: Slice<UnsafeBufferPointer<UInt8>>) -> MIDIMessage? {
        guard let status = data.first, status > 0xF0, status != 0xF7,
              MIDIMessage.dataLength(forStatus: status) == data.count - 1 else { return nil }
        let start = data.startIndex
        return MIDIMessage(status: status,
                           data1: data.count > 1 ? data[start + 1] : 0,
                           data2: data.count > 2 ? data[start + 2] : 0)
    }

    /// A system common or real-time status byte written directly in the track, without an F7 escape.
    private mutating func decodeBareSystemMessage(status: UInt8, eventStart: Int, limit: Int,
                                                  log: inout IssueLog) throws(MIDIFileIssue) -> Decoded {
        guard let length = MIDIMessage.dataLength(forStatus: status) else {
            throw log.error(.undefinedStatus(status), track: track, offset: position - 1)
        }
        guard position + length <= limit else { return .stopped(.truncated(eventStart: eventStart)) }
        let data1 = length > 0 ? bytes[position] : 0
        let data2 = length > 1 ? bytes[position + 1] : 0
        guard let message = MIDIMessage(status: status, data1: data1, data2: data2) else {
            throw log.error(.undefinedStatus(status), track: track, offset: position - 1)
        }
        try log.repaired(.systemMessageWithoutEscape(status), track: track, offset: position - 1)
        position += length
        return .event(TimedEvent(tick: tick, .midi(message)))
    }

    /// Reads a variable-length quantity (at most 4 bytes); `nil` if the limit cuts it off.
    private mutating func readVariableLength(limit: Int, log: IssueLog) throws(MIDIFileIssue) -> Int? {
        var value = 0
        for _ in 0..<4 {
            guard position < limit else { return nil }
            let byte = bytes[position]
            position += 1
            value = value << 7 | Int(byte & 0x7F)
            if byte < 0x80 { return value }
        }
        throw log.error(.variableLengthQuantityTooLong, track: track, offset: position - 4)
    }

    /// Reads a variable-length length and that many bytes; `nil` if the limit cuts them off.
    private mutating func readLengthAndData(limit: Int, log: IssueLog) throws(MIDIFileIssue)
        -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard let length = try readVariableLength(limit: limit, log: log),
              length <= limit - position else { return nil }
        let data = bytes[position..<position + length]
        position += length
        return data
    }
}
