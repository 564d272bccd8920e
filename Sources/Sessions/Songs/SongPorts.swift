import ALSA
import Player

/// The ALSA sequencer ports a `SongSession` plays to, and how tracks map to them.
public struct SongPorts {
    /// The client the song is sent from.
    public var client: SequencerClient
    /// Ports every track plays to; SMF port meta events (0x21) choose among them, as in aplaymidi.
    public var ports: [PortAddress]
    /// Tracks with a port of their own: they play there only (not on `ports`, the sampler or the network).
    public var trackPorts: [Int: PortAddress]
    /// Also send MIDI clock (24 per quarter note) with Song Position, Start/Continue and Stop.
    public var midiClock: Bool
    /// Send to whoever subscribes to the song's port, not to each port directly (needs exactly one
    /// destination; others may then tap the stream, and `listeners` are subscribed too).
    public var tapped: Bool
    /// Ports subscribed to a tapped song's port besides its destination.
    public var listeners: [PortAddress]

    public init(client: SequencerClient, ports: [PortAddress], trackPorts: [Int: PortAddress] = [:], midiClock: Bool = false,
                tapped: Bool = false, listeners: [PortAddress] = []) {
        self.client = client
        self.ports = ports
        self.trackPorts = trackPorts
        self.midiClock = midiClock
        self.tapped = tapped
        self.listeners = listeners
    }

    /// The kernel-queue player of `player` to these ports.
    func makePlayer(_ player: MusicPlayer) throws(SequencerError) -> SequencerSongPlayer {
        let songPlayer = try SequencerSongPlayer(player: player, ports: ports, trackPorts: trackPorts, client: client,
                                                 sendsToSubscribers: tapped)
        for listener in listeners { try client.connect(from: songPlayer.sourceAddress, to: listener) }
        return songPlayer
    }
}
