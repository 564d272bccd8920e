import AudioGraph
import JACK
import Rendering

/// How a song meets the JACK transport.
public enum JACKTransportMode: String, Sendable, CaseIterable {
    /// The transport starts, stops and locates the song: a DAW's play button plays it, its playhead seeks it.
    case follow
    /// As `follow`, and the song is the timebase master (bar, beat, tick, signature and tempo from its
    /// tempo map) and starts the transport when it plays.
    case lead
}

/// A song playback on a JACK output, driven by the JACK transport (`JACKTransportMode`).
///
/// ```swift
/// let output = try JACKOutput()
/// let playback = try SongPlayback(sequence: song, soundFontPaths: fonts, options: RenderOptions(), output: output)
/// let transport = try JACKSongTransport(playback: playback, client: output.jack.client, mode: .follow)
/// try transport.start()            // plays while the transport rolls, from its frame
/// …
/// transport.stop()
/// ```
///
/// Threads: JACK's process callback reads the transport each cycle and renders only while it rolls
/// from where the song stands (`TransportFollower`, no allocation or lock); the follower's seek
/// thread moves the song when the transport located, started elsewhere or stopped (the player's seek:
/// notes end, voices are silenced, controllers and programs are chased), holding the render thread
/// off meanwhile; as a slow-sync client the song tells JACK it is ready to roll once that seek is
/// done. Control (`start`, `stop`, `togglePlay`, `locate`) comes from one thread.
// Why unchecked: control comes from one thread (above); the follower and the process thread share atomics and a semaphore.
public final class JACKSongTransport: @unchecked Sendable {
    public let playback: SongPlayback
    package let client: JACKClient
    public let mode: JACKTransportMode
    private let follower: TransportFollower
    private let timebase: SongTimebase?

    /// Registers the song as a slow-sync client (and, for `.lead`, as the timebase master) of
    /// `client`, the client of `playback`'s JACK output, before it is started.
    package init(playback: SongPlayback, client: JACKClient, mode: JACKTransportMode) throws(JACKError) {
        self.playback = playback
        self.client = client
        self.mode = mode
        follower = TransportFollower(playback: playback, client: client)
        try client.setSyncHandler(follower)
        if mode == .lead {
            let timebase = SongTimebase(player: playback.renderer.player)
            try client.becomeTimebaseMaster(timebase)
            self.timebase = timebase
        } else {
            timebase = nil
        }
    }

    /// Starts the output; the song plays whenever the transport rolls. `.lead` locates the transport
    /// to the song's start and starts it.
    public func start() throws(AudioOutputError) {
        follower.startSeekThread()
        do {
            try playback.start(through: follower)
        } catch {
            follower.stopSeekThread()
            throw error
        }
        if mode == .lead {
            try? client.transportLocate(frame: 0)
            client.transportStart()
        }
    }

    /// Stops the output (`.lead` stops the transport and gives up the timebase first) and returns
    /// how playback ended.
    @discardableResult
    public func stop() -> PlaybackEnd {
        if mode == .lead && !playback.hasEnded {
            client.transportStop()
            client.releaseTimebase()
        }
        let end = playback.stop(draining: false)
        follower.stopSeekThread()
        return end
    }

    /// Whether the transport rolls (as of the last cycle).
    public var isRolling: Bool { follower.isRolling.load(ordering: .relaxed) }

    /// Where the song stands, in seconds of player time (the transport's frame while it rolls).
    public var positionSeconds: Double {
        Double(follower.preparedFrame.load(ordering: .relaxed)) / Double(playback.renderer.player.sampleRate)
    }

    /// How many times the song was moved to follow the transport (locates, stops, starts elsewhere).
    public var seekCount: Int { follower.seekCount.load(ordering: .relaxed) }

    /// Starts the transport when it stands, stops it when it rolls (for every JACK client).
    public func togglePlay() {
        isRolling ? client.transportStop() : client.transportStart()
    }

    /// Locates the transport (for every JACK client) `seconds` from where the song stands.
    public func locate(bySeconds seconds: Double) {
        let frame = follower.preparedFrame.load(ordering: .relaxed) + Int((seconds * Double(client.sampleRate)).rounded())
        try? client.transportLocate(frame: max(0, frame))
    }
}
