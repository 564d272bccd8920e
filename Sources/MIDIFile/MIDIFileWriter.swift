#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MIDICore
import SeqplaySupport

/// Writes a `MusicSequence` as a Standard MIDI File (format 0, 1 or 2), optionally with running status.
///
/// Each track gets exactly one End of Track, last, at the later of its own tick and the track's last
/// event. A sequence is written as it is, even one the reader repaired (a format 0 file with several
/// tracks stays so). System common and real-time messages are written in F7 escapes; `.sysEx` as F0 events and
/// `.escape` as F7 events, byte for byte.
public enum MIDIFileWriter {
    /// The file's bytes. `runningStatus` omits a channel message's status byte when it repeats the
    /// previous one (never across meta or SysEx events, as the SMF specification says).
    public static func write(_ sequence: MusicSequence, runningStatus: Bool = true) throws(MIDIFileWriteError) -> [UInt8] {
        guard (0...2).contains(sequence.format) else { throw .unsupportedFormat(sequence.format) }
        guard sequence.tracks.count <= Int(UInt16.max) else { throw .tooManyTracks(sequence.tracks.count) }
        guard let division = divisionWord(sequence.division) else { throw .invalidDivision(sequence.division) }

        var out: [UInt8] = Array("MThd".utf8)
        appendUInt32(6, to: &out)
        appendUInt16(UInt16(sequence.format), to: &out)
        appendUInt16(UInt16(sequence.tracks.count), to: &out)
        appendUInt16(division, to: &out)
        for (index, track) in sequence.tracks.enumerated() {
            try appendTrack(track, index: index, runningStatus: runningStatus, to: &out)
        }
        return out
    }

    /// Writes the file to `path` through `OutputFile`: `-` is standard output, a device or FIFO is
    /// written through, a file is replaced atomically (a temporary file renamed over it); a directory,
    /// a read-only file, a missing directory and any of `inputs` are refused.
    public static func write(_ sequence: MusicSequence, to path: String, runningStatus: Bool = true,
                             protecting inputs: [String] = []) throws(MIDIFileWriteError) {
        let bytes = try write(sequence, runningStatus: runningStatus)
        do {
            try OutputFile.write(bytes, to: path, protecting: inputs)
        } catch {
            throw .output(error)
        }
    }

    private static func appendTrack(_ track: MusicTrack, index: Int, runningStatus: Bool,
                                    to out: inout [UInt8]) throws(MIDIFileWriteError) {
        out.append(contentsOf: "MTrk".utf8)
        let lengthOffset = out.count
        appendUInt32(0, to: &out)
        var previousTick: Int64 = 0
        var endTick: Int64 = 0
        var lastStatus: UInt8 = 0
        for (eventIndex, timed) in track.events.enumerated() {
            guard timed.tick >= previousTick else { throw .eventsOutOfOrder(track: index, event: eventIndex) }
            endTick = timed.tick
            if case .meta(.endOfTrack) = timed.event { continue }
            let delta = timed.tick - previousTick
            guard delta <= maxVariableLength else { throw .valueTooLarge(track: index, event: eventIndex) }
            appendVariableLength(Int(delta), to: &out)
            previousTick = timed.tick
            guard appendEvent(timed.event, runningStatus: runningStatus, lastStatus: &lastStatus, to: &out) else {
                throw .valueTooLarge(track: index, event: eventIndex)
            }
        }
        guard endTick - previousTick <= maxVariableLength else { throw .valueTooLarge(track: index, event: track.events.count) }
        appendVariableLength(Int(endTick - previousTick), to: &out)
        out.append(contentsOf: [0xFF, 0x2F, 0x00])
        let length = out.count - lengthOffset - 4
        guard length <= Int(UInt32.max) else { throw .trackTooLong(track: index) }
        for i in 0..<4 { out[lengthOffset + i] = UInt8(truncatingIfNeeded: length >> (24 - 8 * i)) }
    }

    /// Appends one event after its delta time; `false` if its data is too long for a length field.
    private static func appendEvent(_ event: SequenceEvent, runningStatus: Bool, lastStatus: inout UInt8,
                                    to out: inout [UInt8]) -> Bool {
        switch event {
        case .midi(let message) where message.statusByte < 0xF0:
            let status = message.statusByte
            if !runningStatus || status != lastStatus { out.append(status) }
            lastStatus = status
            message.appendDataBytes(to: &out)
            return true
        case .midi(.systemExclusive(let bytes)):
            lastStatus = 0
            return appendPacket(0xF0, bytes.first == 0xF0 ? bytes.dropFirst() : bytes[...], to: &out)
        case .midi(let message):
            lastStatus = 0
            return appendPacket(0xF7, message.bytes[...], to: &out)
        case .sysEx(let bytes):
            lastStatus = 0
            return appendPacket(0xF0, bytes[...], to: &out)
        case .escape(let bytes):
            lastStatus = 0
            return appendPacket(0xF7, bytes[...], to: &out)
        case .meta(let meta):
            lastStatus = 0
            out.append(0xFF)
            return appendPacket(meta.typeByte, meta.data[...], to: &out)
        }
    }

    /// Appends `lead`, the length of `data` as a variable-length quantity, and `data`.
    private static func appendPacket(_ lead: UInt8, _ data: ArraySlice<UInt8>, to out: inout [UInt8]) -> Bool {
        guard data.count <= maxVariableLength else { return false }
        out.append(lead)
        appendVariableLength(data.count, to: &out)
        out.append(contentsOf: data)
        return true
    }

    /// The largest value a 4-byte variable-length quantity holds.
    private static let maxVariableLength: Int64 = 0x0FFF_FFFF

    private static func appendVariableLength(_ value: Int, to out: inout [UInt8]) {
        var shift = 21
        while shift > 0 && value >> shift == 0 { shift -= 7 }
        while shift > 0 {
            out.append(UInt8(truncatingIfNeeded: value >> shift) | 0x80)
            shift -= 7
        }
        out.append(UInt8(value & 0x7F))
    }

    private static func divisionWord(_ division: Division) -> UInt16? {
        switch division {
        case .ticksPerQuarter(let ticks):
            return (1...0x7FFF).contains(ticks) ? ticks : nil
        case .smpte(let framesPerSecond, let ticksPerFrame):
            guard [24, 25, 29, 30].contains(framesPerSecond), ticksPerFrame > 0 else { return nil }
            return UInt16(UInt8(bitPattern: -Int8(framesPerSecond))) << 8 | UInt16(ticksPerFrame)
        }
    }

    private static func appendUInt16(_ value: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(value >> 8)); out.append(UInt8(value & 0xFF))
    }

    private static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        for shift in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

/// Why `MIDIFileWriter` cannot write a sequence.
public enum MIDIFileWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    case unsupportedFormat(Int)
    case tooManyTracks(Int)
    case invalidDivision(Division)
    /// An event whose tick is before the previous event's, or negative.
    case eventsOutOfOrder(track: Int, event: Int)
    /// A delta time or event data longer than a variable-length quantity holds (0x0FFFFFFF).
    case valueTooLarge(track: Int, event: Int)
    case trackTooLong(track: Int)
    /// The file was refused or could not be written.
    case output(OutputFileError)

    public var description: String {
        switch self {
        case .unsupportedFormat(let f): return "cannot write format \(f) (0, 1 or 2)"
        case .tooManyTracks(let n): return "\(n) tracks, at most 65535 fit a file"
        case .invalidDivision(let d): return "division \(d) cannot be written"
        case .eventsOutOfOrder(let t, let e): return "track \(t), event \(e): tick before the previous event's"
        case .valueTooLarge(let t, let e): return "track \(t), event \(e): delta time or data length over 0x0FFFFFFF"
        case .trackTooLong(let t): return "track \(t) is longer than a chunk length holds"
        case .output(let error): return error.description
        }
    }
}
