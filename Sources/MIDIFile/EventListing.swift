import Foundation
import MIDICore

/// One event of a sequence with where it falls (tick, bar:beat:tick, seconds) and what it is, in
/// mido's vocabulary (`note_on`, `control_change`, `set_tempo`, …): what `seqplay info --events` lists.
public struct ListedEvent: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The track (0-based, as `seqplay info` numbers them).
    public var track: Int
    public var tick: Int64
    /// bar:beat:tick, 1-based bar and beat.
    public var position: String
    public var seconds: Double
    /// mido's name for the event: a message's (`MIDIMessage.typeName`: note_on, control_change,
    /// pitchwheel, …), sysex, escape, or the meta's (set_tempo, track_name, end_of_track, …).
    public var type: String
    /// 1-based channel of a channel message.
    public var channel: Int?
    /// The event's numbers by name (note, velocity, control, value, program, pitch, tempo, numerator, …).
    public var values: [String: Int]
    /// The text of a text meta event.
    public var text: String?
    /// The bytes of SysEx, escapes, sequencer-specific and unknown metas, in hex.
    public var data: String?

    /// A line like `1  480  1:2:0  0.500000  note_on channel=1 note=60 velocity=100`.
    public var description: String {
        var parts = [type]
        if let channel { parts.append("channel=\(channel)") }
        parts += Self.fields(values)
        if let text { parts.append("text=\(String(reflecting: text))") }
        if let data { parts.append("data=\(data)") }
        return "\(track)\t\(tick)\t\(position)\t\(String(format: "%.6f", seconds))\t" + parts.joined(separator: " ")
    }

    private static let fieldOrder = MIDIMessage.fieldNames + ["tempo", "bpm", "numerator", "denominator", "clocks_per_click",
                                                              "notated_32nd_notes_per_beat", "sharps", "minor", "frame_rate", "hours", "minutes",
                                                              "seconds", "frames", "sub_frames"]
    /// `values` as a line shows them, `name=value` in mido's order (then other names alphabetically,
    /// never in hash order): `note=60 velocity=100`.
    public static func fields(_ values: [String: Int]) -> [String] {
        func order(_ key: String) -> (Int, String) { (fieldOrder.firstIndex(of: key) ?? fieldOrder.count, key) }
        return values.sorted { order($0.key) < order($1.key) }.map { "\($0.key)=\($0.value)" }
    }
}

extension MusicSequence {
    /// Every event of `track` (all tracks, by tick then track, when nil) with its place and meaning.
    /// Format 2 patterns are timed one after another, as the player plays them.
    public func listedEvents(track: Int? = nil) -> [ListedEvent] {
        let timeline = concatenatingPatterns()
        let map = TempoMap(sequence: timeline)
        var listed: [(index: Int, event: ListedEvent)] = []
        for (trackIndex, events) in timeline.tracks.enumerated() where track == nil || track == trackIndex {
            for (index, timed) in events.events.enumerated() {
                var event = ListedEvent(track: trackIndex, tick: timed.tick, position: map.barBeatTick(atTick: timed.tick).description,
                                        seconds: map.seconds(atTick: timed.tick), type: "", values: [:])
                event.describe(timed.event)
                listed.append((index, event))
            }
        }
        listed.sort { ($0.event.tick, $0.event.track, $0.index) < ($1.event.tick, $1.event.track, $1.index) }
        return listed.map(\.event)
    }
}

extension ListedEvent {
    fileprivate mutating func describe(_ event: SequenceEvent) {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        switch event {
        case .midi(let message): describe(message)
        case .sysEx(let bytes): type = "sysex"; data = hex(bytes)
        case .escape(let bytes): type = "escape"; data = hex(bytes)
        case .meta(let meta): describe(meta, hex: hex)
        }
    }

    private mutating func describe(_ message: MIDIMessage) {
        channel = message.channel.map { Int($0) + 1 }
        type = message.typeName
        values = message.namedValues
        if case .systemExclusive(let bytes) = message { data = bytes.map { String(format: "%02x", $0) }.joined() }
    }

    private mutating func describe(_ meta: MetaEvent, hex: ([UInt8]) -> String) {
        switch meta {
        case .sequenceNumber(let number): type = "sequence_number"; values = number.map { ["number": Int($0)] } ?? [:]
        case .text(let kind, _): type = Self.textTypes[kind.rawValue] ?? "text"; text = meta.text
        case .channelPrefix(let channel): type = "channel_prefix"; values = ["channel": Int(channel) + 1]
        case .port(let port): type = "midi_port"; values = ["port": Int(port)]
        case .endOfTrack: type = "end_of_track"
        case .tempo(let microseconds):
            type = "set_tempo"; values = ["tempo": Int(microseconds)]
            if microseconds > 0 { values["bpm"] = Int((60_000_000 / Double(microseconds)).rounded()) }
        case .smpteOffset(let h, let m, let s, let f, let sf):
            type = "smpte_offset"; values = ["hours": Int(h), "minutes": Int(m), "seconds": Int(s), "frames": Int(f), "sub_frames": Int(sf)]
        case .timeSignature(let numerator, let power, let clocks, let thirtySeconds):
            type = "time_signature"
            values = ["numerator": Int(numerator), "denominator": 1 << min(Int(power), 30), "clocks_per_click": Int(clocks),
                      "notated_32nd_notes_per_beat": Int(thirtySeconds)]
        case .keySignature(let sharps, let minor):
            type = "key_signature"; values = ["sharps": Int(sharps), "minor": minor ? 1 : 0]
            text = KeySignatureChange(tick: 0, sharps: Int(sharps), minor: minor).name
        case .sequencerSpecific(let bytes): type = "sequencer_specific"; data = hex(bytes)
        case .raw(let typeByte, let bytes): type = "unknown_meta"; values = ["type_byte": Int(typeByte)]; data = hex(bytes)
        }
    }

    private static let textTypes: [UInt8: String] = [
        0x01: "text", 0x02: "copyright", 0x03: "track_name", 0x04: "instrument_name", 0x05: "lyrics",
        0x06: "marker", 0x07: "cue_marker", 0x08: "program_name", 0x09: "device_name",
    ]
}
