/// A problem found in a Standard MIDI File, with where it is: the file, the track and the byte.
///
/// The reader throws one as its error when a file cannot be read, and returns the problems it
/// repaired (lenient mode) as warnings of the same type. Its description reads like
/// `song.mid: track 2, byte 0x1F3A: running status with no previous status byte`.
public struct MIDIFileIssue: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name the file was read under (its path, or the name given with the bytes).
    public var file: String
    /// The 0-based index of the track chunk (the index into `MusicSequence.tracks`), `nil` outside tracks.
    public var track: Int?
    /// The byte offset in the file where the problem is.
    public var offset: Int
    /// What is wrong.
    public var reason: Reason

    public init(file: String, track: Int?, offset: Int, reason: Reason) {
        self.file = file
        self.track = track
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        if case .unreadable = reason { return "\(file): \(reason)" }
        let place = track.map { "track \($0), " } ?? ""
        return "\(file): \(place)byte 0x\(String(offset, radix: 16, uppercase: true)): \(reason)"
    }
}

extension MIDIFileIssue {
    /// What is wrong with a file. Cases under "Repairable" are warnings in lenient mode.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        // Fatal.
        /// The file could not be opened or read.
        case unreadable(String)
        /// No MThd header chunk where one must be (at the start, or in a RIFF RMID "data" chunk).
        case notAMIDIFile
        /// The header chunk is shorter than its 6 bytes.
        case headerTooShort(length: Int)
        /// Header format other than 0, 1 or 2.
        case unsupportedFormat(UInt16)
        /// Division 0 ticks per quarter note, or an SMPTE frame rate other than 24, 25, 29 or 30.
        case invalidDivision(UInt16)
        /// A variable-length quantity longer than the 4 bytes the SMF specification allows.
        case variableLengthQuantityTooLong
        /// A data byte where a status byte is needed, and no status to repeat.
        case runningStatusWithoutStatus
        /// A status byte that MIDI leaves undefined (0xF4, 0xF5, 0xF9, 0xFD).
        case undefinedStatus(UInt8)
        /// A byte with the high bit set inside a channel message's data.
        case dataByteExpected(UInt8)
        /// Ticks summed past what `Int64` holds.
        case tickOverflow

        // Repairable.
        /// A track that ends without an End of Track meta event.
        case missingEndOfTrack
        /// An event cut off by the end of its track; it is dropped.
        case truncatedEvent
        /// A chunk length reaching past the end of the file; the chunk is read to the end of the file.
        case chunkPastEndOfFile(declared: UInt32, available: Int)
        /// A track chunk whose End of Track comes after its declared length; read on to End of Track.
        case chunkLengthUndershoots(declared: UInt32, actual: Int)
        /// A track chunk whose declared length runs into the next track chunk; the next track is read
        /// from just after End of Track.
        case chunkLengthOvershoots(declared: UInt32, actual: Int)
        /// Bytes between End of Track and the end of its chunk; they are ignored.
        case bytesAfterEndOfTrack(count: Int)
        /// Bytes after the last chunk too few to be a chunk; they are ignored.
        case trailingBytes(count: Int)
        /// A header track count different from the number of track chunks found.
        case trackCountMismatch(declared: Int, found: Int)
        /// Format 0 with more than one track chunk.
        case formatZeroWithTracks(Int)
        /// A track that starts with running status; the previous track's last status is used.
        case runningStatusAtTrackStart
        /// Running status used after a meta or SysEx event, which cancel it; the status is kept.
        case runningStatusAfterNonChannelEvent
        /// A system common or real-time message (0xF1...0xFE) written without an F7 escape.
        case systemMessageWithoutEscape(UInt8)
        /// A meta event of a defined type whose data length does not fit the type; kept as `.raw`.
        case metaLengthInvalid(type: UInt8, length: Int)
        /// An End of Track meta event carrying data, which is ignored.
        case endOfTrackWithData(length: Int)
        /// A tempo of 0 µs per quarter note: kept, and the ticks it covers take no time.
        case zeroTempo
        /// A time signature of 0 beats or a note value beyond 1/256 (denominator 2^power); kept, and
        /// counted in bars as `TempoMap` clamps it (at least 1 beat, at most 1/256 notes).
        case timeSignatureOutOfRange(numerator: UInt8, denominatorPower: UInt8)

        public var description: String {
            switch self {
            case .unreadable(let why): return "cannot read file: \(why)"
            case .notAMIDIFile: return "not a Standard MIDI File (no MThd header chunk)"
            case .headerTooShort(let n): return "header chunk is \(n) bytes, needs 6"
            case .unsupportedFormat(let f): return "unsupported format \(f) (0, 1 or 2 expected)"
            case .invalidDivision(let d): return "invalid time division 0x\(String(d, radix: 16))"
            case .variableLengthQuantityTooLong: return "variable-length quantity longer than 4 bytes"
            case .runningStatusWithoutStatus: return "running status with no previous status byte"
            case .undefinedStatus(let s): return "undefined status byte 0x\(hex(s))"
            case .dataByteExpected(let b): return "data byte expected, found 0x\(hex(b))"
            case .tickOverflow: return "tick position overflows"
            case .missingEndOfTrack: return "track has no End of Track event"
            case .truncatedEvent: return "event cut off by the end of the track; dropped"
            case .chunkPastEndOfFile(let d, let a):
                return "chunk length \(d) runs past the end of the file (\(a) bytes left); read to the end"
            case .chunkLengthUndershoots(let d, let a):
                return "track chunk length \(d) is short of its End of Track (\(a) bytes); read to End of Track"
            case .chunkLengthOvershoots(let d, let a):
                return "track chunk length \(d) runs into the next track (\(a) bytes used)"
            case .bytesAfterEndOfTrack(let n): return "\(n) bytes after End of Track ignored"
            case .trailingBytes(let n): return "\(n) bytes after the last chunk ignored"
            case .trackCountMismatch(let d, let f): return "header declares \(d) tracks, file has \(f)"
            case .formatZeroWithTracks(let n): return "format 0 file with \(n) tracks"
            case .runningStatusAtTrackStart: return "track starts with running status; previous track's status used"
            case .runningStatusAfterNonChannelEvent: return "running status after a meta or SysEx event; kept"
            case .systemMessageWithoutEscape(let s): return "system message 0x\(hex(s)) without F7 escape"
            case .metaLengthInvalid(let t, let n): return "meta event 0x\(hex(t)) with \(n) data bytes; kept raw"
            case .endOfTrackWithData(let n): return "End of Track with \(n) data bytes; data ignored"
            case .zeroTempo: return "tempo of 0 µs per quarter note; kept, so the ticks after it take no time"
            case .timeSignatureOutOfRange(let n, let p):
                return "time signature \(n)/2^\(p) is out of range (1-255 beats of 1/1 to 1/256 notes); bars counted as \(max(1, n))/\(1 << min(Int(p), 8))"
            }
        }

        private func hex(_ byte: UInt8) -> String {
            let s = String(byte, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
    }
}
