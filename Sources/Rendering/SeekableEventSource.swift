import MIDICore
import Player

/// The player as the sampler's event source, shifted by `offset` samples: the engine's sample time
/// runs on through a seek, the player's position jumps, and the offset bridges the two.
final class SeekableEventSource: ScheduledMIDISource {
    let player: MusicPlayer
    /// Player sample time minus engine sample time. Changed only between blocks (see `seek`).
    var offset: Int64 = 0

    init(player: MusicPlayer) { self.player = player }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        player.deliverEvents(before: sampleTime + offset, to: receiver)
    }

    var nextEventSampleTime: Int64? { player.nextEventSampleTime.map { $0 - offset } }
}
