import Foundation
import MediaLibrary
import MIDIFile
import Player
import Synchronization

/// Songs on request for a live host's control model (`ControlCommand.playSong`/`stopSong`): a MIDI
/// file the media library lists, or one inside a directory `--song-dir` names, played in real time
/// through the host's first sampler by a `MusicPlayer` handed to its `SongFeedSource` (the render
/// thread pulls it beside the live input). Any other path is refused with one line. The state's
/// `song` shows the song while it plays and `playing: false` once it ends or is stopped. What `live` and
/// `serve` answer `play` with (`SoundModuleHost` makes it); another host sets it as its control's `songPlayer`.
public final class LiveSongPlayer: SoundModuleSongPlayer, Sendable {
    private let feed: SongFeedSource
    private let sampleRate: Int
    private let directories: [String]
    private let libraryPath: String?
    private weak let control: SoundModuleControl?
    /// The song playing and the timer that watches for its end; held while the feed's player changes.
    private let playing = Mutex<(path: String?, watcher: (any DispatchSourceTimer)?)>((nil, nil))
    /// Where "playing PATH" goes when a song starts (a host's log).
    public var log: @Sendable (String) -> Void {
        get { logSink.withLock { $0 } }
        set { logSink.withLock { $0 = newValue } }
    }
    private let logSink = Mutex<@Sendable (String) -> Void>({ _ in })

    /// Plays into `feed` at `sampleRate`, songs from the library at `libraryPath` or under `directories`.
    public init(feed: SongFeedSource, sampleRate: Int, directories: [String], libraryPath: String?, control: SoundModuleControl) {
        self.feed = feed
        self.sampleRate = sampleRate
        self.directories = directories.compactMap { Self.resolved($0) }
        self.libraryPath = libraryPath
        self.control = control
    }

    /// `path` with symbolic links, `.` and `..` resolved (nil when it does not exist).
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// Whether `path` may be played: the library lists it, or it lies (resolved) inside a song directory.
    private func allowed(_ path: String) -> String? {
        guard path.utf8.count <= 4096, !path.contains("\0"), let real = Self.resolved(path) else { return nil }
        if directories.contains(where: { real.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) { return real }
        return MediaLibrary.listedSongs(at: libraryPath).contains { $0.path == path || Self.resolved($0.path) == real } ? real : nil
    }

    public func play(path: String) throws {
        guard let real = allowed(path) else {
            throw ControlError.failed("song \(path.prefix(200)) is not in the media library or a --song-dir directory")
        }
        if let problem = RegularFile.problem(at: real) { throw ControlError.failed("cannot play \(path.prefix(200)): \(problem)") }
        let player: MusicPlayer
        var channels: UInt16 = 0
        do {
            let sequence = try MIDIFileReader.read(contentsOf: real).sequence
            for track in sequence.tracks {
                for timed in track.events {
                    if case .midi(let message) = timed.event, let channel = message.channel { channels |= 1 << UInt16(channel & 15) }
                }
            }
            player = try MusicPlayer(sequence: sequence, sampleRate: sampleRate)
        } catch {
            throw ControlError.failed("cannot play \(path.prefix(200)): \(error)")
        }
        try playing.withLock { playing throws(ControlError) in
            guard feed.play(player, channels: channels) else { throw ControlError.failed("cannot play \(path.prefix(200)): the sampler is not rendering") }
            playing.path = path
            if playing.watcher == nil { playing.watcher = watcher() }
        }
        control?.songChanged(SongState(path: path, playing: true))
        log("playing \(path)")
    }

    public func stop() { stop(only: nil) }

    /// Stops the song (with `only`: if that player is still the one playing).
    private func stop(only player: MusicPlayer?) {
        let stopped: String? = playing.withLock { playing in
            if let player, feed.player !== player { return nil }
            feed.stop()
            playing.watcher?.cancel()
            playing.watcher = nil
            return playing.path.take()
        }
        if let stopped { control?.songChanged(SongState(path: stopped, playing: false)) }
    }

    /// A timer that stops the song once its player has played it all (checked 10 times a second).
    private func watcher() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "seqplay.song"))
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self, let player = self.playing.withLock({ _ in self.feed.player }), player.isFinished else { return }
            self.stop(only: player)
        }
        timer.resume()
        return timer
    }
}
