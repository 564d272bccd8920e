/// Anything that MIDI can be sent to now: a sampler, an ALSA sequencer port, a network session.
/// (A song's scheduler plays to `SongDestination`s, in module Player: the same endpoints, given each
/// event's time, track and port.)
///
/// `receive` may be called on a real-time thread (the audio render thread): implementations must not
/// block, allocate or do I/O there.
public protocol MIDIReceiver: AnyObject {
    /// Acts on one message immediately.
    func receive(_ message: MIDIMessage)
}

/// A source of MIDI events placed in audio sample time, pulled by whoever renders audio.
///
/// A renderer that works in blocks calls `deliverEvents(before:to:)` before rendering each block, so
/// events land on the sample grid of the audio they affect. Called on the render thread: it must not
/// block, allocate or do I/O.
public protocol ScheduledMIDISource: AnyObject {
    /// Sends to `receiver`, in order, every pending event whose sample time is less than `sampleTime`,
    /// and marks them delivered.
    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver)

    /// The sample time of the earliest event not delivered yet, or nil when none is left, so a
    /// renderer may render up to it without asking again. Sources whose events arrive while audio
    /// renders (live input) answer `Int64.min`, the default: ask before every block.
    var nextEventSampleTime: Int64? { get }
}

extension ScheduledMIDISource {
    public var nextEventSampleTime: Int64? { .min }
}

/// Note names as musicians write them: 60 is "C4", 69 is "A4".
public enum NoteName {
    private static let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]

    /// The name of MIDI note `note`, e.g. "C4" for 60.
    public static func of(_ note: UInt8) -> String {
        names[Int(note) % 12] + String(Int(note) / 12 - 1)
    }
}
