import AudioFiles
import MIDIFile

extension AudioEncoding {
    /// The tags of a render of `sequence`: its title (the first track's name, as sequencers show the
    /// song's name) and its first copyright notice, with seqplay as the software.
    public init(song sequence: MusicSequence) {
        self.init()
        let first = sequence.tracks.first?.events ?? []
        title = first.lazy.compactMap { timed -> String? in
            if case .meta(let meta) = timed.event, case .text(.trackName, _) = meta { return meta.text } else { return nil }
        }.first
        copyright = sequence.tracks.lazy.flatMap(\.events).compactMap { timed -> String? in
            if case .meta(let meta) = timed.event, case .text(.copyright, _) = meta { return meta.text } else { return nil }
        }.first
    }
}
