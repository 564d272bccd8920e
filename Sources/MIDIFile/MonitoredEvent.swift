import Foundation
import MIDICore

/// A MIDI message as it arrived from a port or a network peer, described in the same vocabulary as
/// `ListedEvent` (mido's names): what `seqplay monitor` prints, as a line or one JSON object.
public struct MonitoredEvent: Encodable, Sendable {
    /// Seconds since monitoring started, from the sender's or the kernel's timestamp (nil: none given).
    public var time: Double?
    /// Who sent it: an ALSA address such as `14:0`, or a network peer's name.
    public var source: String
    /// mido's name for the message (`MIDIMessage.typeName`).
    public var type: String
    /// 1-16, as every seqplay command numbers channels.
    public var channel: Int?
    /// The message's numbers under mido's field names (`MIDIMessage.namedValues`).
    public var values: [String: Int]
    /// The note's name (C4 is key 60) when the message has a note.
    public var noteName: String?
    /// The message's bytes in hex, separated by spaces: `90 3C 64`.
    public var bytes: String

    private enum CodingKeys: String, CodingKey {
        case time, source, type, channel, values, noteName = "note_name", bytes
    }

    /// `message` from `source`, at `time` seconds since monitoring started.
    public init(_ message: MIDIMessage, time: Double?, source: String) {
        self.time = time
        self.source = source
        type = message.typeName
        channel = message.channel.map { Int($0) + 1 }
        values = message.namedValues
        noteName = values["note"].map { NoteName.of(UInt8($0)) }
        bytes = message.bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
    }

    /// The header of `line`'s columns.
    public static let header = "    Time  Source  Event           Ch  Data"

    /// `  0.500000  14:0    note_on          1  note=60 (C4) velocity=100`, in columns as aseqdump prints.
    public var line: String {
        let timeText = time.map { String(format: "%10.6f", $0) } ?? "         -"
        let channelText = channel.map { String(format: "%2d", $0) } ?? "  "
        var fields = ListedEvent.fields(values)
        if let noteName, let index = fields.firstIndex(where: { $0.hasPrefix("note=") }) { fields[index] += " (\(noteName))" }
        if type == "sysex" { fields.append("data=" + bytes.replacingOccurrences(of: " ", with: "").lowercased()) }
        // Padded, never cut: a network peer's name is longer than a port's `14:0`.
        let columns = "\(timeText)  \(Self.padded(source, to: 6))  "
            + "\(Self.padded(type, to: 15)) \(channelText)  \(fields.joined(separator: " "))"
        return String(columns.reversed().drop(while: { $0 == " " }).reversed())
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
