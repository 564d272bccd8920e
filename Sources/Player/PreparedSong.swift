import MIDIFile

/// A song made ready to play, once, for every part of a render or a playback that needs it: the
/// sequence as it plays (format 2 patterns one after another), its tempo map, and the channels it
/// sends on. `MusicPlayer`, `SongRenderer`, channel groups and their note costs, and a `--loop` region
/// all read this one copy instead of each putting the patterns in order and working out the tempo map
/// again.
///
/// ```swift
/// let song = PreparedSong(sequence)
/// let player = try MusicPlayer(song: song, sampleRate: 48_000)
/// let renderer = try SongRenderer(song: song, soundFontPaths: ["piano.sf2"], options: RenderOptions())
/// ```
public struct PreparedSong: Sendable {
    /// The sequence as given.
    public let sequence: MusicSequence
    /// The sequence as it plays: format 2 patterns one after another (`concatenatingPatterns()`),
    /// other formats unchanged.
    public let timeline: MusicSequence
    /// The tempo map of `timeline`.
    public let tempoMap: TempoMap
    /// The channels (0-based, ascending) the song sends channel messages on.
    public let channelsUsed: [Int]

    /// Prepares `sequence`: puts its patterns in order, works out its tempo map, finds its channels.
    public init(_ sequence: MusicSequence) {
        self.sequence = sequence
        timeline = sequence.concatenatingPatterns()
        tempoMap = TempoMap(sequence: timeline)
        var used = [Bool](repeating: false, count: 16)
        for track in timeline.tracks {
            for timed in track.events {
                if case .midi(let message) = timed.event, let channel = message.channel, channel < 16 { used[Int(channel)] = true }
            }
        }
        channelsUsed = used.indices.filter { used[$0] }
    }

    /// Whether the song has no length (only set-up events at tick 0, or none).
    public var isEmpty: Bool { tempoMap.endTick == 0 }
}
