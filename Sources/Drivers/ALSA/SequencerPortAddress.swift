/// The address of one ALSA sequencer port: client number and port number, written `14:0`.
///
/// `PortAddress("14:0")` reads the numeric form only; `SequencerClient.resolve(_:)` also reads client
/// names (`"Midi Through:0"`, `"Midi Through"`) against the running sequencer, as aconnect does.
public struct PortAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var client: UInt8
    public var port: UInt8

    public init(client: UInt8, port: UInt8) {
        self.client = client; self.port = port
    }

    /// Reads `"14:0"`, `"14.0"` or `"14"` (port 0). Returns `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let dotted = parts.count == 1 ? text.split(separator: ".", omittingEmptySubsequences: false) : parts
        guard (1...2).contains(dotted.count),
              let client = UInt8(dotted[0]),
              let port = dotted.count == 2 ? UInt8(dotted[1]) : 0
        else { return nil }
        self.init(client: client, port: port)
    }

    public var description: String { "\(client):\(port)" }

    public static func < (a: PortAddress, b: PortAddress) -> Bool {
        (a.client, a.port) < (b.client, b.port)
    }
}
