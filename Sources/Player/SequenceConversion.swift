import MIDIFile

/// A rewrite of a MIDI file that bakes in what the player would do with the same settings, so the new
/// file played plainly sounds as the old one played with them (what `seqplay convert` does).
///
/// In order: the first file's tracks and channels are muted or soloed (their notes removed); the
/// `merging` files' tracks are added, re-timed to the first file's tempo map; notes are quantized;
/// the song is cut to `song.start`...`song.end` (state from before the start kept, as the
/// player's chase does); notes are transposed; the tempo map is scaled by `song.rate`; and the
/// result is written as format 0 (one track) or 1 (a format 0 file split into one track per channel).
public struct SequenceConversion: Sendable {
    /// Transpose, rate, start and end, and which notes of the first file sound (mute and solo), as
    /// the player takes them. A loop cannot be written into a file; track selection and MIDI clock
    /// are not used.
    public var song = SongOptions()
    /// Songs whose tracks are added after the first file's.
    public var merging: [MusicSequence] = []
    /// Moves note starts to the nearest 1/N note (16: sixteenths), keeping note lengths.
    public var quantizeNoteValue: Int?
    /// The output's format: 0 or 1; nil keeps the input's (format 1 when files are merged).
    public var format: Int?

    public init() {}

    /// `sequence` converted.
    public func apply(to sequence: MusicSequence) throws(SequenceConversionError) -> MusicSequence {
        try convert(sequence).sequence
    }

    /// `sequence` converted, and how many of its notes the transpose dropped (moved outside 0...127).
    public func convert(_ sequence: MusicSequence) throws(SequenceConversionError) -> (sequence: MusicSequence, notesTransposedAway: Int) {
        guard song.loop == nil else { throw .loopCannotBeWritten }
        if let format, !(0...1).contains(format) { throw .unsupportedFormat(format) }
        var result = sequence.concatenatingPatterns()
        if let track = song.mutedTracks.union(song.soloedTracks).sorted().first(where: { !result.tracks.indices.contains($0) }) {
            throw .noSuchTrack(track, trackCount: result.tracks.count)
        }
        if song.hasMutesOrSolos {
            result = result.removingNotes { song.isAudible(track: $0, channel: Int($1)) == false }
        }
        for other in merging { result = result.merging(other) }
        if let quantizeNoteValue { result = try Self.edit { () throws(SequenceEditError) in try result.quantizingNotes(to: quantizeNoteValue) } }
        if song.start != nil || song.end != nil {
            let map = TempoMap(sequence: result)
            let start = song.start?.tick(in: map) ?? 0, end = song.end?.tick(in: map) ?? map.endTick
            guard start <= end else { throw .playback(.startAfterEnd(startTick: start, endTick: end)) }
            result = result.excerpt(fromTick: start, toTick: end)
        }
        let transposedAway = result.noteCountDropped(transposingBy: song.transpose)
        result = result.transposed(by: song.transpose)
        if song.rate != 1 { result = try Self.edit { () throws(SequenceEditError) in try result.scalingTempo(by: song.rate) } }
        switch format {
        case 0: return (result.mergedToFormat0(), transposedAway)
        case 1: return (result.tracks.count == 1 ? result.splitByChannel() : result.withFormat(1), transposedAway)
        default: return (result, transposedAway)
        }
    }
}

extension SequenceConversion {
    private static func edit(_ body: () throws(SequenceEditError) -> MusicSequence) throws(SequenceConversionError) -> MusicSequence {
        do { return try body() } catch { throw .edit(error) }
    }
}

extension MusicSequence {
    fileprivate func withFormat(_ format: Int) -> MusicSequence {
        var result = self
        result.format = format
        return result
    }
}

/// Why a `SequenceConversion` cannot be applied.
public enum SequenceConversionError: Error, Hashable, Sendable, CustomStringConvertible {
    case playback(SongOptionsError)
    case edit(SequenceEditError)
    case loopCannotBeWritten
    case unsupportedFormat(Int)
    case noSuchTrack(Int, trackCount: Int)

    public var description: String {
        switch self {
        case .playback(let error): return error.description
        case .edit(let error): return error.description
        case .loopCannotBeWritten: return "a loop cannot be written into a MIDI file"
        case .unsupportedFormat(let format): return "cannot convert to format \(format) (0 or 1)"
        case .noSuchTrack(let track, let count): return "no track \(track): the file has tracks 0 to \(count - 1)"
        }
    }
}
