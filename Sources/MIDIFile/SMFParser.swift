/// The chunk level of the SMF reader: RIFF wrapper, header chunk, track chunks (decoded by
/// `TrackDecoder`) and the repairs of chunk lengths that do not match their contents.
///
/// What becomes of each track's events is the caller's: `parse(log:)` collects them into a
/// `MusicSequence`; `SequenceReport`'s streaming construction keeps only what the report shows.
struct SMFParser {
    let bytes: UnsafeBufferPointer<UInt8>

    /// The header chunk's facts.
    struct Header {
        var format: Int
        var division: Division
    }

    /// Where the kept decoding of one track chunk ran: a `TrackDecoder` made with `start` and
    /// `previousStatus` and run until `limit` yields the track's events again, without a repair
    /// that the first reading did not log.
    struct TrackChunk {
        var index: Int
        var start: Int
        var previousStatus: UInt8
        var limit: Int
    }

    /// Reads the file into a `MusicSequence`.
    func parse(log: inout IssueLog) throws(MIDIFileIssue) -> MusicSequence {
        var tracks: [MusicTrack] = []
        let header = try parse(log: &log, newTrack: { _, byteCount in EventCollector(forBytes: byteCount) },
                               endTrack: { collector, _ in tracks.append(MusicTrack(events: collector.events)) })
        return MusicSequence(format: header.format, division: header.division, tracks: tracks)
    }

    /// Reads the file, giving each track chunk's events, in order, to a sink `newTrack` makes for it
    /// (from its index and the bytes of its chunk present in the file), and the sink to `endTrack`
    /// once the chunk is read. Repairs are logged (or thrown, in strict mode) in the order met.
    func parse<Sink: TrackEventSink>(log: inout IssueLog, newTrack: (_ index: Int, _ byteCount: Int) -> Sink,
                                     endTrack: (Sink, TrackChunk) -> Void) throws(MIDIFileIssue) -> Header {
        let (start, end) = try smfRange(log: &log)
        guard end - start >= 8, matches("MThd", at: start) else {
            throw log.error(.notAMIDIFile, track: nil, offset: start)
        }
        let headerLength = Int(readUInt32(at: start + 4))
        guard headerLength >= 6, end - start >= 14 else {
            throw log.error(.headerTooShort(length: min(headerLength, end - start - 8)), track: nil, offset: start + 4)
        }
        let format = readUInt16(at: start + 8)
        let declaredTracks = Int(readUInt16(at: start + 10))
        let divisionOffset = start + 12
        guard format <= 2 else { throw log.error(.unsupportedFormat(format), track: nil, offset: start + 8) }
        guard let division = Self.division(readUInt16(at: divisionOffset)) else {
            throw log.error(.invalidDivision(readUInt16(at: divisionOffset)), track: nil, offset: divisionOffset)
        }

        var trackCount = 0
        var position = start + 8 + headerLength
        var previousStatus: UInt8 = 0
        while end - position >= 8 {
            let bodyStart = position + 8
            let declaredLength = readUInt32(at: position + 4)
            var bodyEnd = bodyStart + Int(declaredLength)
            if bodyEnd > end {
                try log.repaired(.chunkPastEndOfFile(declared: declaredLength, available: end - bodyStart),
                                 track: matches("MTrk", at: position) ? trackCount : nil, offset: position + 4)
                bodyEnd = end
            }
            guard matches("MTrk", at: position) else {
                position = bodyEnd  // Not a track chunk: the SMF specification says to skip it.
                continue
            }
            var decoder = TrackDecoder(bytes: bytes, track: trackCount, start: bodyStart, previousStatus: previousStatus)
            var sink = newTrack(trackCount, bodyEnd - bodyStart)
            let decoded = try decodeTrack(&decoder, into: &sink, chunkStart: position, declaredLength: declaredLength,
                                          bodyEnd: bodyEnd, fileEnd: end, log: &log)
            position = decoded.next
            endTrack(sink, TrackChunk(index: trackCount, start: bodyStart, previousStatus: previousStatus, limit: decoded.limit))
            trackCount += 1
            previousStatus = decoder.runningStatus
        }

        if position < end {
            try log.repaired(.trailingBytes(count: end - position), track: nil, offset: position)
        }
        if trackCount != declaredTracks {
            try log.repaired(.trackCountMismatch(declared: declaredTracks, found: trackCount), track: nil, offset: start + 10)
        }
        if format == 0 && trackCount > 1 {
            try log.repaired(.formatZeroWithTracks(trackCount), track: nil, offset: start + 8)
        }
        return Header(format: Int(format), division: division)
    }

    /// Decodes the track chunk at `chunkStart` into `sink`, repairing its length if it does not match
    /// End of Track; returns where the next chunk starts and the limit the kept decoding ran to.
    private func decodeTrack<Sink: TrackEventSink>(_ decoder: inout TrackDecoder, into sink: inout Sink, chunkStart: Int,
                                                   declaredLength: UInt32, bodyEnd: Int, fileEnd: Int,
                                                   log: inout IssueLog) throws(MIDIFileIssue) -> (next: Int, limit: Int) {
        let track = decoder.track
        let bodyStart = chunkStart + 8
        let stop = try Self.decode(&decoder, into: &sink, until: bodyEnd, log: &log)
        if !stop.isEndOfTrack, bodyEnd < fileEnd, !looksLikeChunkHeader(at: bodyEnd, fileEnd: fileEnd) {
            // The declared length may fall short of the track: read on, up to the next track chunk
            // header (so no byte is read on over twice and the read stays linear), and keep that
            // reading only if it ends at an End of Track.
            var onward = decoder
            var onwardSink = sink
            var onwardLog = IssueLog(file: log.file, strict: log.strict)
            let onwardLimit = nextTrackHeader(from: bodyEnd, fileEnd: fileEnd)
            if case .endOfTrack(let end)? = try? Self.decode(&onward, into: &onwardSink, until: onwardLimit, log: &onwardLog) {
                decoder = onward
                sink = onwardSink
                log.append(onwardLog)
                try log.repaired(.chunkLengthUndershoots(declared: declaredLength, actual: end - bodyStart),
                                 track: track, offset: chunkStart + 4)
                return (end, onwardLimit)
            }
        }
        switch stop {
        case .endOfTrack(let end):
            guard end < bodyEnd else { return (end, bodyEnd) }
            if matches("MTrk", at: end), looksLikeChunkHeader(at: end, fileEnd: fileEnd) {
                try log.repaired(.chunkLengthOvershoots(declared: declaredLength, actual: end - bodyStart),
                                 track: track, offset: chunkStart + 4)
                return (end, bodyEnd)
            }
            try log.repaired(.bytesAfterEndOfTrack(count: bodyEnd - end), track: track, offset: end)
            return (bodyEnd, bodyEnd)
        case .truncated(let eventStart):
            try log.repaired(.truncatedEvent, track: track, offset: eventStart)
            fallthrough
        case .limit:
            try log.repaired(.missingEndOfTrack, track: track, offset: bodyEnd)
            return (bodyEnd, bodyEnd)
        }
    }

    /// Gives `sink` the events `decoder` yields until it stops at `limit` or End of Track.
    private static func decode<Sink: TrackEventSink>(_ decoder: inout TrackDecoder, into sink: inout Sink, until limit: Int,
                                                     log: inout IssueLog) throws(MIDIFileIssue) -> TrackDecoder.Stop {
        while true {
            switch try decoder.next(until: limit, log: &log) {
            case .event(let event): sink.add(event)
            case .stopped(let stop): return stop
            }
        }
    }

    /// Where the Standard MIDI File lies in `bytes`: all of it, or the "data" chunk of a RIFF RMID file.
    private func smfRange(log: inout IssueLog) throws(MIDIFileIssue) -> (start: Int, end: Int) {
        guard bytes.count >= 12, matches("RIFF", at: 0), matches("RMID", at: 8) else { return (0, bytes.count) }
        var position = 12
        while bytes.count - position >= 8 {
            let length = Int(readUInt32LittleEndian(at: position + 4))
            let bodyStart = position + 8
            if matches("data", at: position) {
                guard length <= bytes.count - bodyStart else {
                    try log.repaired(.chunkPastEndOfFile(declared: UInt32(length), available: bytes.count - bodyStart),
                                     track: nil, offset: position + 4)
                    return (bodyStart, bytes.count)
                }
                return (bodyStart, bodyStart + length)
            }
            position = bodyStart + length + (length & 1)  // RIFF chunks are padded to even lengths.
        }
        throw log.error(.notAMIDIFile, track: nil, offset: 12)
    }

    /// The division a header's division word gives, `nil` if it is invalid.
    static func division(_ word: UInt16) -> Division? {
        if word & 0x8000 == 0 {
            return word == 0 ? nil : .ticksPerQuarter(word)
        }
        let framesPerSecond = UInt8(truncatingIfNeeded: -Int(Int8(bitPattern: UInt8(word >> 8))))
        let ticksPerFrame = UInt8(word & 0xFF)
        guard [24, 25, 29, 30].contains(framesPerSecond), ticksPerFrame > 0 else { return nil }
        return .smpte(framesPerSecond: framesPerSecond, ticksPerFrame: ticksPerFrame)
    }

    /// Where the next "MTrk" after `offset` starts, or `fileEnd` if there is none.
    private func nextTrackHeader(from offset: Int, fileEnd: Int) -> Int {
        var position = offset
        while fileEnd - position >= 4 {
            if bytes[position] == 0x4D && matches("MTrk", at: position) { return position }
            position += 1
        }
        return fileEnd
    }

    /// Whether a chunk header (four printable ASCII characters and a length) starts at `offset`.
    private func looksLikeChunkHeader(at offset: Int, fileEnd: Int) -> Bool {
        guard fileEnd - offset >= 8 else { return false }
        return (offset..<offset + 4).allSatisfy { (0x20...0x7E).contains(bytes[$0]) }
    }

    private func matches(_ id: StaticString, at offset: Int) -> Bool {
        guard bytes.count - offset >= 4 else { return false }
        let p = id.utf8Start
        return bytes[offset] == p[0] && bytes[offset + 1] == p[1] && bytes[offset + 2] == p[2] && bytes[offset + 3] == p[3]
    }

    private func readUInt16(at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private func readUInt32(at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    private func readUInt32LittleEndian(at offset: Int) -> UInt32 {
        UInt32(bytes[offset + 3]) << 24 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset])
    }
}

/// What the chunk level gives a track chunk's events to, one at a time, as the decoder yields them.
protocol TrackEventSink {
    mutating func add(_ event: TimedEvent)
}

/// Collects a track's events, as `MIDIFileReader` keeps them.
struct EventCollector: TrackEventSink {
    var events: [TimedEvent] = []

    /// Reserves room for the events `byteCount` bytes of track data usually hold (about 3 bytes an
    /// event), so a large track does not regrow its array; `byteCount` counts bytes present in the
    /// file, never a declared length.
    init(forBytes byteCount: Int) {
        events.reserveCapacity(byteCount / 3)
    }

    mutating func add(_ event: TimedEvent) {
        events.append(event)
    }
}
