import Foundation
import GRDB
import MIDIFile
import SoundFontFile

/// Writes what scanning learned about a file into the library's tables.
enum LibraryRecords {
    /// Runs `sql` through the connection's statement cache (each statement is compiled once per scan).
    private static func run(_ db: Database, _ sql: String, arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    static func store(_ file: IndexedFile, existing: Int64?, in db: Database) throws {
        if case .unchanged = file.facts, let existing {
            try run(db, "UPDATE files SET size = ?, mtime = ? WHERE id = ?", arguments: [file.size, file.modified, existing])
            return
        }
        if let existing { try run(db, "DELETE FROM files WHERE id = ?", arguments: [existing]) }
        let (status, problem): (String, String?)
        switch file.facts {
        case .refused(let reason): (status, problem) = ("refused", reason)
        case .song(let report): (status, problem) = report.warnings.isEmpty ? ("ok", nil) : ("repaired", report.warnings[0])
        case .soundFont(let contents): (status, problem) = ("ok", contents.problems.first)
        case .unchanged: (status, problem) = ("ok", nil)
        }
        try run(db, "INSERT INTO files (path, name, kind, size, mtime, hash, status, problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       arguments: [file.path, (file.path as NSString).lastPathComponent, file.kind.rawValue, file.size, file.modified,
                                   file.hash, status, problem])
        let id = db.lastInsertedRowID
        switch file.facts {
        case .song(let report): try storeSong(report, id: id, in: db)
        case .soundFont(let contents): try storeSoundFont(contents, id: id, in: db)
        default: break
        }
    }

    private static func storeSong(_ report: SequenceReport, id: Int64, in db: Database) throws {
        let programs = report.tracks.flatMap(\.programs)
        let channels = Set(report.tracks.flatMap(\.channels))
        let columns: [String: (any DatabaseValueConvertible)?] = [
            "file_id": id, "title": report.title, "copyright": report.texts.first { $0.kind == "copyright" }?.value,
            "lyrics": !report.lyrics.isEmpty, "texts": report.texts.contains { $0.kind == "text" },
            "format": report.format, "tracks": report.tracks.count,
            "ppq": report.division.ticksPerQuarter, "fps": report.division.framesPerSecond, "ticks_per_frame": report.division.ticksPerFrame,
            "duration": report.duration.seconds, "bars": report.duration.bars, "ticks": report.duration.ticks,
            "tempo": report.tempo?.initialBPM, "tempo_min": report.tempo?.minimumBPM, "tempo_max": report.tempo?.maximumBPM,
            "tempo_changes": report.tempo?.changes, "channels": channels.count, "drums": report.notes.drums,
            "notes": report.notes.count, "lowest": report.notes.lowest, "highest": report.notes.highest,
            "polyphony": report.notes.polyphonyPeak, "markers": report.markers.count, "repairs": report.warnings.count,
        ]
        let names = columns.keys.sorted()
        try run(db, "INSERT INTO songs (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
                       arguments: StatementArguments(names.map { columns[$0]! }))

        var values: [(String, String, Double?)] = []
        values += programs.map { ("program", String($0.program), Double($0.program)) }
        values += programs.map { ("instrument", $0.instrument, nil) } + programs.map { ("family", $0.family, nil) }
        values += channels.map { ("channel", String($0), Double($0)) }
        values += report.timeSignatures.map { ("time_signature", $0.value, nil) }
        values += report.keySignatures.map { ("key", $0.value, nil) }
        values += report.markers.map { ("marker", $0.value, nil) }
        for (field, value, number) in values {
            try run(db, "INSERT OR IGNORE INTO song_values (file_id, field, value, number) VALUES (?, ?, ?, ?)",
                           arguments: [id, field, value, number])
        }
    }

    private static func storeSoundFont(_ font: SoundFontContents, id: Int64, in db: Database) throws {
        try run(db, """
            INSERT INTO soundfonts (file_id, name, version, format, author, copyright, comment, presets, instruments, zones,
                                    samples, sample_bytes, problems) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [id, font.name, font.version, font.format, font.author, font.copyright, font.comment, font.presets.count,
                             font.instruments, font.zones, font.samples, font.sampleDataBytes,
                             font.problems.isEmpty ? nil : font.problems.joined(separator: "\n")])
        for preset in font.presets {
            try run(db, "INSERT INTO presets (file_id, bank, program, name, zones) VALUES (?, ?, ?, ?, ?)",
                           arguments: [id, preset.bank, preset.program, preset.name, preset.zones])
        }
    }
}
