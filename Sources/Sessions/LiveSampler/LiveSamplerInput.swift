import AudioGraph
import LiveInput

/// A source of live MIDI a `LiveSamplerSession` plays beside its ALSA ports and network session
/// (`LiveSamplerConfiguration.inputs`), such as a JACK MIDI input port of the session's JACK output:
/// it adds its producer to the session's one `LiveMIDIInput`, feeding a sampler of its own.
public protocol LiveSamplerInput: AnyObject, Sendable {
    /// For messages ("JACK MIDI input seqplay:midi_in").
    var name: String { get }
    /// Called once by the session before `output` starts: add a producer to `input` whose messages
    /// go to destination `destination`.
    func attach(to input: LiveMIDIInput, destination: Int, output: RealtimeOutput) throws
    /// The session stops (after this nothing more is pushed).
    func stop()
}
