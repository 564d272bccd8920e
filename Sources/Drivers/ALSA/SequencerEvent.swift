import MIDICore

/// A MIDI message that arrived at one of this client's ports.
public struct SequencerEvent: Hashable, Sendable {
    public let message: MIDIMessage
    /// The port that sent it.
    public let source: PortAddress
    /// The number of this client's port it arrived at.
    public let port: UInt8
    /// When the kernel delivered it, on the clock of the port's timestamp queue; `nil` when the port
    /// does not timestamp (see `SequencerClient.createPort(timestampQueue:)`).
    public let timestamp: EventTime?

    public init(message: MIDIMessage, source: PortAddress, port: UInt8, timestamp: EventTime?) {
        self.message = message
        self.source = source
        self.port = port
        self.timestamp = timestamp
    }
}
