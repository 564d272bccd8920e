import Foundation

/// A field the query language can name: what kind of value it holds, where the index keeps it, and
/// what it means (the text `seqplay help library` shows).
public struct LibraryField: Sendable, Equatable {
    /// What a field's values are compared as.
    public enum Kind: Sendable, Equatable {
        /// Numbers: `=`, `!=`, `<`, `<=`, `>`, `>=`.
        case number
        /// Text: `=`, `!=` (ignoring case) and `contains`.
        case text
        /// Yes or no: the field alone is a condition (`drums`, `not lyrics`).
        case flag
    }

    /// Where the index keeps a field's values.
    enum Storage: Sendable, Equatable {
        /// One value per row, an SQL expression over the query's tables.
        case column(String)
        /// Any number of values per song in `song_values` under this name; a condition holds when
        /// one of them satisfies it.
        case values(String)
    }

    public let name: String
    public let kind: Kind
    let storage: Storage
    /// What the field is, for the help text.
    public let summary: String

    /// Whether the field can be sorted and grouped on as one value per row.
    var isSingleValued: Bool {
        if case .column = storage { return true }
        return false
    }
}

extension LibraryField {
    private static func column(_ name: String, _ kind: Kind, _ sql: String, _ summary: String) -> LibraryField {
        LibraryField(name: name, kind: kind, storage: .column(sql), summary: summary)
    }

    private static func values(_ name: String, _ kind: Kind, _ summary: String) -> LibraryField {
        LibraryField(name: name, kind: kind, storage: .values(name), summary: summary)
    }

    /// The fields of songs (MIDI files), in the order the help lists them.
    public static let songFields: [LibraryField] = [
        column("path", .text, "f.path", "the file's path"),
        column("file", .text, "f.name", "the file's name without its folder"),
        column("status", .text, "f.status", "\"ok\", \"repaired\" (the reader fixed something) or \"refused\"; refused files are listed only when asked for"),
        column("problem", .text, "f.problem", "why a file was refused, or its first repair"),
        column("size", .number, "f.size", "file size in bytes"),
        column("title", .text, "s.title", "the first track's name"),
        column("copyright", .text, "s.copyright", "the copyright notice"),
        column("lyrics", .flag, "s.lyrics", "the song has lyric events"),
        column("text", .flag, "s.texts", "the song has text events"),
        column("format", .number, "s.format", "SMF format: 0, 1 or 2"),
        column("tracks", .number, "s.tracks", "number of tracks"),
        column("ppq", .number, "s.ppq", "ticks per quarter note (none for SMPTE files)"),
        column("smpte", .flag, "(s.fps IS NOT NULL)", "timed in SMPTE frames rather than ticks per quarter"),
        column("duration", .number, "s.duration", "length in seconds"),
        column("bars", .number, "s.bars", "length in bars"),
        column("ticks", .number, "s.ticks", "length in ticks"),
        column("tempo", .number, "s.tempo", "initial tempo in BPM"),
        column("tempo_min", .number, "s.tempo_min", "slowest tempo in BPM"),
        column("tempo_max", .number, "s.tempo_max", "fastest tempo in BPM"),
        column("tempo_changes", .number, "s.tempo_changes", "tempo changes after the first tempo"),
        values("time_signature", .text, "any time signature of the song, e.g. time_signature = 3/4"),
        values("key", .text, "any key signature, e.g. key = \"D minor\""),
        column("channels", .number, "s.channels", "how many MIDI channels play"),
        values("channel", .number, "any channel used (1-16)"),
        values("program", .number, "any GM program selected (0-127)"),
        values("instrument", .text, "any GM instrument selected, e.g. instrument = \"Fretless Bass\""),
        values("family", .text, "any GM family selected, e.g. family = \"Strings\" (\"Drums\" for channel 10)"),
        column("drums", .flag, "s.drums", "channel 10 plays notes"),
        column("notes", .number, "s.notes", "number of notes"),
        column("lowest", .number, "s.lowest", "lowest pitch outside the drums (MIDI note number, 60 = middle C)"),
        column("highest", .number, "s.highest", "highest pitch outside the drums"),
        column("polyphony", .number, "s.polyphony", "most notes sounding at once"),
        column("markers", .number, "s.markers", "number of markers"),
        values("marker", .text, "any marker's text"),
        column("repairs", .number, "s.repairs", "how many things the reader repaired"),
    ]

    /// The fields of SoundFont presets (`library presets`).
    public static let presetFields: [LibraryField] = [
        column("name", .text, "p.name", "the preset's name"),
        column("bank", .number, "p.bank", "MIDI bank (128: percussion in GM fonts)"),
        column("program", .number, "p.program", "MIDI program (0-127)"),
        column("zones", .number, "p.zones", "the preset's zones"),
        column("font", .text, "sf.name", "the SoundFont's name"),
        column("path", .text, "f.path", "the SoundFont's path"),
        column("format", .text, "sf.format", "\"SF2\" or \"SF3\""),
    ]
}

extension LibraryField {
    /// `fields` as a help text lists them: a line each, the name, its kind (number, text, yes/no) and what it is.
    public static func helpList(_ fields: [LibraryField]) -> String {
        fields.map { field in
            let kind = switch field.kind { case .number: "number"; case .text: "text"; case .flag: "yes/no" }
            return "  \(field.name.padding(toLength: 15, withPad: " ", startingAt: 0)) \(kind.padding(toLength: 7, withPad: " ", startingAt: 0)) \(field.summary)"
        }.joined(separator: "\n")
    }
}
