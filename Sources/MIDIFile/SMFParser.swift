/// The chunk level of the SMF reader: RIFF wrapper, header chunk, track chunks (decoded by
/// `TrackDecoder`) and the repairs of chunk lengths that do not match their contents.
struct SMFParser {
    let bytes: UnsafeBufferPointer<UInt8>

    func parse(log: inout IssueLog) throws(MIDIFileIssue) -> MusicSequence {
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

        var tracks: [MusicTrack] = []
        var position = start + 8 + headerLength
        var previousStatus: UInt8 = 0
        while end - position >= 8 {
            let bodyStart = position + 8
            let declaredLength = readUInt32(at: position + 4)
            var bodyEnd = bodyStart + Int(declaredLength)
            if bodyEnd > end {
                try log.repaired(.chunkPastEndOfFile(declared: declaredLength, available: end - bodyStart),
                                 track: matches("MTrk", at: position) ? tracks.count : nil, offset: position + 4)
                bodyEnd = end
            }
            guard matches("MTrk", at: position) else {
                position = bodyEnd  // Not a track chunk: the SMF specification says to skip it.
                continue
            }
            var decoder = TrackDecoder(bytes: bytes, track: tracks.count, start: bodyStart, previousStatus: previousStatus)
            decoder.reserveCapacity(forBytes: bodyEnd - bodyStart)
            position = try decodeTrack(&decoder, chunkStart: position, declaredLength: declaredLength, bodyEnd: bodyEnd,
                                       fileEnd: end, log: &log)
            tracks.append(MusicTrack(events: decoder.events))
            previousStatus = decoder.runningStatus
        }

        if position < end {
            try log.repaired(.trailingBytes(count: end - position), track: nil, offset: position)
        }
        if tracks.count != declaredTracks {
            try log.repaired(.trackCountMismatch(declared: declaredTracks, found: tracks.count), track: nil, offset: start + 10)
        }
        if format == 0 && tracks.count > 1 {
            try log.repaired(.formatZeroWithTracks(tracks.count), track: nil, offset: start + 8)
        }
        return MusicSequence(format: Int(format), division: division, tracks: tracks)
    }

    /// Decodes the track chunk at `chunkStart`, repairing its length if it does not match End of Track;
    /// returns where the next chunk starts.
    private func decodeTrack(_ decoder: inout TrackDecoder, chunkStart: Int, declaredLength: UInt32, bodyEnd: Int,
                             fileEnd: Int, log: inout IssueLog) throws(MIDIFileIssue) -> Int {
        let track = decoder.track
        let bodyStart = chunkStart + 8
        let stop = try decoder.decode(until: bodyEnd, log: &log)
        if !stop.isEndOfTrack, bodyEnd < fileEnd, !looksLikeChunkHeader(at: bodyEnd, fileEnd: fileEnd) {
            // The declared length may fall short of the track: read on, up to the next track chunk
            // header (so no byte is read on over twice and the read stays linear), and keep that
            // reading only if it ends at an End of Track.
            var onward = decoder
            var onwardLog = IssueLog(file: log.file, strict: log.strict)
            let onwardLimit = nextTrackHeader(from: bodyEnd, fileEnd: fileEnd)
            if case .endOfTrack(let end)? = try? onward.decode(until: onwardLimit, log: &onwardLog) {
                decoder = onward
                log.append(onwardLog)
                try log.repaired(.chunkLengthUndershoots(declared: declaredLength, actual: end - bodyStart),
                                 track: track, offset: chunkStart + 4)
                return end
            }
        }
        switch stop {
        case .endOfTrack(let end):
            guard end < bodyEnd else { return end }
            if matches("MTrk", at: end), looksLikeChunkHeader(at: end, fileEnd: fileEnd) {
                try log.repaired(.chunkLengthOvershoots(declared: declaredLength, actual: end - bodyStart),
                                 track: track, offset: chunkStart + 4)
                return end
            }
            try log.repaired(.bytesAfterEndOfTrack(count: bodyEnd - end), track: track, offset: end)
            return bodyEnd
        case .truncated(let eventStart):
            try log.repaired(.truncatedEvent, track: track, offset: eventStart)
            fallthrough
        case .limit:
            try log.repaired(.missingEndOfTrack, track: track, offset: bodyEnd)
            return bodyEnd
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
