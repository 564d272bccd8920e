import Atomics
import MIDICore

/// A sequencer output port that any MIDI source (the player, a network session) can drive: every
/// message it receives goes out at once to the ports connected to it, or to one fixed port.
///
/// `receive` allocates nothing and does not block; a message the kernel refuses is counted in
/// `failedSendCount` rather than thrown.
public final class SequencerOutputPort: MIDIReceiver {
    public let client: SequencerClient
    public let port: SequencerPort
    public let destination: SequencerDestination
    /// Messages the kernel refused so far (destination gone, pool full); read from any thread.
    public var failedSendCount: Int { failedSends.load(ordering: .relaxed) }
    private let failedSends = ManagedAtomic(0)

    /// Creates an output port named `name` on `client`, readable and subscribable by other clients.
    public init(client: SequencerClient, name: String, destination: SequencerDestination = .subscribers,
                types: PortTypes = [.midiGeneric, .application]) throws(SequencerError) {
        self.client = client
        self.destination = destination
        port = try client.createPort(name: name, capabilities: .output, types: types)
    }

    public func receive(_ message: MIDIMessage) {
        if client.sendImmediately(message, from: port.number, to: destination) < 0 {
            failedSends.wrappingIncrement(ordering: .relaxed)
        }
    }
}
