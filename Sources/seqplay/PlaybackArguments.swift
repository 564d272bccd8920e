import ArgumentParser
import AudioFiles
import MIDIFile
import Player

/// The song and how it plays (`seqplay SONG` and the commands that play songs): the file, and the
/// playback settings every destination follows alike.
struct SongArguments: ParsableArguments {
    @Argument(help: "The MIDI file (.mid) to play; with --output-dir, any number of files and directories ('-': a list on standard input).")
    var songs: [String] = []
    /// The song of the single-song modes (`RenderCommand` checks there is exactly one without --output-dir).
    var song: String { songs.first ?? "" }

    @Flag(help: "Refuse a MIDI file that needs repair instead of repairing it.")
    var strict = false

    @OptionGroup var options: SongOptionArguments

    @Option(parsing: .unconditional, help: ArgumentHelp("Play the song (or the --loop-from/--loop-to region) this many times in all.", valueName: "count"))
    var loop: Int?

    @Option(parsing: .unconditional, help: .position("Start of the region --loop repeats (default: --start)."))
    var loopFrom: PositionArgument?

    @Option(parsing: .unconditional, help: .position("End of the region --loop repeats (default: --end)."))
    var loopTo: PositionArgument?

    func validate() throws {
        if let loop, loop < 1 { throw ValidationError("--loop needs a count of 1 or more (1 plays once).") }
        if (loopFrom != nil || loopTo != nil) && loop == nil { throw ValidationError("--loop-from/--loop-to need --loop COUNT.") }
        for (position, flag) in [(loopFrom, "--loop-from"), (loopTo, "--loop-to")] {
            try FlagRange.seconds(position?.seconds, flag)
        }
    }

    /// Reads the song, saying once on stderr when it needed repair; throws (3 or 5) when it cannot be read.
    func read() throws(CommandFailure) -> MusicSequence {
        let sequence = try CommandLineOutput.readSong(song, strict: strict)
        CommandLineOutput.noteNotesTransposedAway(options.transpose, dropped: sequence.noteCountDropped(transposingBy: options.transpose), "played")
        return sequence
    }

    /// How `sequence` plays: the flags of `options`, and the loop.
    func songOptions(for sequence: MusicSequence) -> SongOptions {
        guard let loop else { return options.songOptions }
        return options.songOptions.looping(loop, from: loopFrom?.position, to: loopTo?.position, in: sequence)
    }
}

/// Where a song starts and ends (`--start`, `--end`): for every command that plays, cuts or draws
/// a part of a song.
struct SongRegionArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: .position("Start here (controllers and instruments set before it still apply)."))
    var start: PositionArgument?

    @Option(parsing: .unconditional, help: .position("End here."))
    var end: PositionArgument?

    func validate() throws {
        for (position, flag) in [(start, "--start"), (end, "--end")] {
            try FlagRange.seconds(position?.seconds, flag)
        }
    }
}

/// How a song plays, as `SongOptions` has it: transpose, rate, start and end, mute and solo. The one
/// set of these flags, for every command that plays or rewrites a song (`seqplay SONG`, `convert`).
struct SongOptionArguments: ParsableArguments {
    @Option(name: [.short, .long], parsing: .unconditional, help: ArgumentHelp("Shift every note by this many semitones (drums on channel 10 stay put).", valueName: "semitones"))
    var transpose = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Tempo factor: 2 plays twice as fast, 0.5 at half speed (pitch unchanged).", valueName: "factor"))
    var rate = 1.0

    @OptionGroup var region: SongRegionArguments

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Silence a track (its notes); repeat for more.", valueName: "track"))
    var mute: [Int] = []

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Play only this track (and any other soloed ones); repeat for more.", valueName: "track"))
    var solo: [Int] = []

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Silence a MIDI channel (1-16); repeat for more.", valueName: "channel"))
    var muteChannel: [Int] = []

    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Play only this MIDI channel (1-16); repeat for more.", valueName: "channel"))
    var soloChannel: [Int] = []

    func validate() throws {
        try FlagRange.check(transpose, "--transpose", in: -127...127, unit: " semitones")
        try FlagRange.check(rate, "--rate", above: 0, atLeast: 0.01, atMost: 100)
        try FlagRange.check(mute + solo, "--mute/--solo", in: 0...Int.max)
        try FlagRange.check(muteChannel, "--mute-channel", in: 1...16)
        try FlagRange.check(soloChannel, "--solo-channel", in: 1...16)
    }

    /// The song options these flags give (channels 0-based, as `SongOptions` counts them).
    var songOptions: SongOptions {
        SongOptions(transpose: transpose, rate: rate, start: region.start?.position, end: region.end?.position,
                    mutedTracks: Set(mute), soloedTracks: Set(solo),
                    mutedChannels: Set(muteChannel.map { $0 - 1 }), soloedChannels: Set(soloChannel.map { $0 - 1 }))
    }
}

/// A place in the song given on the command line (`PlaybackPosition.init(_:)`).
struct PositionArgument: ExpressibleByArgument {
    let position: PlaybackPosition

    init?(argument: String) {
        guard let position = PlaybackPosition(argument) else { return nil }
        self.position = position
    }

    /// The position in seconds, when it was given so (for `FlagRange.seconds`).
    var seconds: Double? {
        if case .seconds(let seconds) = position { return seconds }
        return nil
    }

    static var defaultValueDescription: String { "seconds or bar:beat[:tick]" }
}

extension ArgumentHelp {
    /// The help of a flag that takes a `PositionArgument`: what the place is, its value shown as `<position>`.
    static func position(_ abstract: String) -> ArgumentHelp { ArgumentHelp(abstract, valueName: "position") }
}

/// The sample format of the output file, as musicians name it: 16, 24 or 32 (integer) or float.
enum BitDepthArgument: String, ExpressibleByArgument, CaseIterable {
    case sixteen = "16", twentyFour = "24", thirtyTwo = "32", float

    var sampleFormat: AudioSampleFormat {
        switch self {
        case .sixteen: return .int16
        case .twentyFour: return .int24
        case .thirtyTwo: return .int32
        case .float: return .float32
        }
    }
}

extension AudioFileFormat: ExpressibleByArgument {}
