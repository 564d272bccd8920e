import ArgumentParser
import Foundation
import MediaLibrary
import SeqplaySupport

/// `seqplay library add DIR|FILE…`: indexes songs and SoundFonts, folders recursively.
struct LibraryAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Index MIDI files (.mid .midi .kar .rmi .smf) and SoundFonts (.sf2 .sf3) in folders (recursively) or files."
    )

    @OptionGroup var location: LibraryLocation
    @OptionGroup var scanning: LibraryScanning

    @Argument(help: ArgumentHelp("Folders and files to index.", valueName: "path"))
    var paths: [String]

    func run() throws {
        _ = try CommandFailure.mapping { try MediaLibrary.roots(paths) }  // a path that does not exist is refused before the library is opened or made
        let library = try location.open(create: true)
        try scanning.report { progress throws(MediaLibraryError) in try library.add(paths, jobs: scanning.jobs, progress: progress) }
    }
}

/// `seqplay library update`: rereads what changed under everything added, drops what vanished.
struct LibraryUpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Rescan what was added: read only files whose size or time changed, index new ones, drop vanished ones."
    )

    @OptionGroup var location: LibraryLocation
    @OptionGroup var scanning: LibraryScanning

    func run() throws {
        let library = try location.open(create: false)
        try scanning.report { progress throws(MediaLibraryError) in try library.update(jobs: scanning.jobs, progress: progress) }
    }
}

/// How a scan runs and what it prints: a progress bar on a terminal, refused files on standard error, a summary.
struct LibraryScanning: ParsableArguments {
    @Option(help: "Files read at once (default: one per core).")
    var jobs: Int?

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func validate() throws { try FlagRange.check(jobs, "--jobs", atLeast: 1) }

    func report(_ scan: ((Int, Int) -> Void) throws(MediaLibraryError) -> ScanSummary) throws {
        var bar: ProgressBar?
        let summary = try CommandFailure.mapping {
            try scan { done, total in
                if bar == nil { bar = ProgressBar(total: total, unit: "files") }
                bar?.update(frames: Int64(done))
                if done == total { bar?.finish(frames: Int64(done)) }
            }
        }
        for refusal in summary.refused { CommandLineOutput.note("refused \(refusal.reason)") }
        print(json ? LibraryTable.json(summary.jsonObject) : summary.description)
    }
}
