import MIDICore

/// A note sounding: its key on a channel, and the track and port it came from (0 where they do not
/// matter). Counted in a `[NoteKey: Int]` by `count(_:track:port:in:)`, it says what a cut, a loop or
/// a seek leaves held, so those notes can be ended.
package struct NoteKey: Hashable, Comparable, Sendable {
    package var track: Int
    package var port: UInt8
    package var channel: UInt8
    package var note: UInt8

    package init(track: Int = 0, port: UInt8 = 0, channel: UInt8, note: UInt8) {
        self.track = track
        self.port = port
        self.channel = channel
        self.note = note
    }

    package static func < (a: NoteKey, b: NoteKey) -> Bool {
        (a.track, a.port, a.channel, a.note) < (b.track, b.port, b.channel, b.note)
    }

    /// Counts a note-on in and a note-off (or a note-on of velocity 0) out; other messages change nothing.
    package static func count(_ message: MIDIMessage, track: Int = 0, port: UInt8 = 0, in held: inout [NoteKey: Int]) {
        switch message {
        case .noteOn(let channel, let note, let velocity) where velocity > 0:
            held[NoteKey(track: track, port: port, channel: channel, note: note), default: 0] += 1
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            let key = NoteKey(track: track, port: port, channel: channel, note: note)
            if let count = held[key] { held[key] = count > 1 ? count - 1 : nil }
        default:
            break
        }
    }
}
