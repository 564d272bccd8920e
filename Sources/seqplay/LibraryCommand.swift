import ArgumentParser
import Foundation
import MediaLibrary
import SeqplaySupport

/// `seqplay library`: an index of MIDI files and SoundFonts, searched by what is in them.
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Index folders of MIDI files and SoundFonts and find songs and presets by what is in them.",
        discussion: """
            The index is an SQLite database at $XDG_DATA_HOME/seqplay/library.sqlite (~/.local/share/seqplay/library.sqlite)
            unless --db FILE is given. A database file that is not a seqplay library is refused and left untouched.

            Examples:
              seqplay library add ~/midi ~/soundfonts
              seqplay library update
              seqplay library query --where 'duration < 180 and time_signature = 3/4 and instrument = "Fretless Bass"'
              seqplay library query --where 'drums and duration < 60' --paths
              seqplay library query --group-by family
              seqplay library presets --where 'name contains "piano"'

            The query language: conditions FIELD OP VALUE with = != < <= > >= (numbers) or = != contains (text,
            ignoring case), a yes/no field alone (drums, lyrics), joined with and, or, not and parentheses. Text in
            double or single quotes; 3/4 is a time signature. Fields with many values per song (instrument, family,
            program, channel, time_signature, key, marker) match when any value does; != means none does.

            Song fields (query):
            \(LibraryField.helpList(LibraryField.songFields))

            Preset fields (presets):
            \(LibraryField.helpList(LibraryField.presetFields))
            """,
        subcommands: [LibraryAddCommand.self, LibraryUpdateCommand.self, LibraryQueryCommand.self, LibraryPresetsCommand.self]
    )
}

/// The options every `library` subcommand shares: where the database is.
struct LibraryLocation: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp("The library database (default: $XDG_DATA_HOME/seqplay/library.sqlite).", valueName: "file"))
    var database: String?

    /// Opens the library, or throws a failure with status 5 when the file cannot be used (not a
    /// library, damaged, absent, read-only when the command `writes`). A new `--db` file is made
    /// only in a folder that exists (the default one is made when missing).
    func open(create: Bool, writes: Bool = true) throws(CommandFailure) -> MediaLibrary {
        if create, let database, !FileManager.default.fileExists(atPath: database) {
            let folder = (database as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
                throw CommandFailure("\(OutputFileError(path: database, problem: .noDirectory(folder)))", .inputOutput)
            }
        }
        return try CommandFailure.describing(.inputOutput) { try MediaLibrary(path: database ?? MediaLibrary.defaultPath, create: create, writes: writes) }
    }
}
