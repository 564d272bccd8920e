import ArgumentParser
import AudioFiles
import MIDIFile
import Player

/// A place in the song given on the command line: seconds (`42`, `12.5`, `12.5s`) or
/// bar:beat[:tick] (`17:1`, `9:3:240`), as `seqplay info` prints them.
struct PositionArgument: ExpressibleByArgument {
    let position: PlaybackPosition

    init?(argument: String) {
        if argument.contains(":") {
            guard let barBeatTick = BarBeatTick(argument) else { return nil }
            position = .barBeatTick(barBeatTick)
        } else {
            let number = argument.hasSuffix("s") ? String(argument.dropLast()) : argument
            // Any number parses, so the command's range check can say what is wrong with it.
            guard let seconds = Double(number) else { return nil }
            position = .seconds(seconds)
        }
    }

    /// The position in seconds, when it was given so (for `FlagRange.seconds`).
    var seconds: Double? {
        if case .seconds(let seconds) = position { return seconds }
        return nil
    }

    static var defaultValueDescription: String { "seconds or bar:beat[:tick]" }
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
