import ArgumentParser
import Foundation
import MediaLibrary

/// `seqplay library query`: songs found by what is in them, listed, grouped, or as paths.
struct LibraryQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Find songs: --where in the query language (see 'seqplay help library' for the fields).",
        discussion: """
            seqplay library query --where 'tempo >= 120 and family = "Strings"' --sort duration:desc --limit 10
            seqplay library query --where 'drums and duration < 60' --paths | seqplay render - --output-dir out/
            """
    )

    @OptionGroup var location: LibraryLocation
    @OptionGroup var selection: LibrarySelection

    @Option(help: ArgumentHelp("Count songs and total their duration per value of a field.", valueName: "field"))
    var groupBy: String?

    @Flag(help: "Print one path a line.")
    var paths = false

    @Flag(help: "Print to stderr how long opening the library and the query itself took (for benchmarks).")
    var timing = false

    func validate() throws {
        if paths && (selection.json || groupBy != nil) { throw ValidationError("--paths cannot be combined with --json or --group-by") }
    }

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let library = try location.open(create: false, writes: false)
        let opened = clock.now
        func reportTiming() {
            guard timing else { return }
            let milliseconds = { (duration: Duration) in String(format: "%.2f", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3) }
            FileHandle.standardError.write(Data("timing: open \(milliseconds(opened - started)) ms, query \(milliseconds(clock.now - opened)) ms\n".utf8))
        }
        try CommandFailure.mapping {
            if let groupBy {
                let groups = try library.songGroups(selection.query, by: groupBy)
                reportTiming()
                if selection.json {
                    print(LibraryTable.json(groups.map { ["value": $0.value as Any, "songs": $0.count, "duration": $0.totalDuration ?? 0] }))
                } else {
                    print(LibraryTable.groups(groups, field: groupBy))
                }
                return
            }
            let rows = try library.songs(selection.query, pathsOnly: paths)
            reportTiming()
            if paths {
                for row in rows { print(row.path) }
            } else {
                selection.list(rows, table: LibraryTable.songs, noun: "song")
            }
        }
    }
}

/// `seqplay library presets`: SoundFont presets found by name, bank, program or font.
struct LibraryPresetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presets",
        abstract: "Find SoundFont presets: --where on name, bank, program, zones, font, path, format."
    )

    @OptionGroup var location: LibraryLocation
    @OptionGroup var selection: LibrarySelection

    func run() throws {
        let library = try location.open(create: false, writes: false)
        try CommandFailure.mapping { selection.list(try library.presets(selection.query), table: LibraryTable.presets, noun: "preset") }
    }
}

/// `--where`, `--sort`, `--limit` and `--json`, shared by `query` and `presets`.
struct LibrarySelection: ParsableArguments {
    @Option(name: .customLong("where"), help: ArgumentHelp("Which rows, in the query language.", valueName: "expression"))
    var condition: String?

    @Option(help: ArgumentHelp("Order by a field, FIELD or FIELD:desc.", valueName: "field[:desc]"))
    var sort: String?

    @Option(help: "At most this many rows (groups).")
    var limit: Int?

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws { try FlagRange.check(limit, "--limit", atLeast: 0) }

    var query: LibraryQuery { LibraryQuery(where: condition, sort: sort, limit: limit) }

    /// Prints `rows`: as JSON with `--json`, else as `table` lays them out, then how many `noun`s on stderr.
    func list(_ rows: [LibraryRow], table: ([LibraryRow]) -> String, noun: String) {
        guard !json else { return print(LibraryTable.json(rows.map(\.values))) }
        print(table(rows))
        CommandLineOutput.writeStandardError(Data("\(rows.count) \(noun)\(rows.count == 1 ? "" : "s")\n".utf8))
    }
}
