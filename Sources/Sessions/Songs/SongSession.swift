import ALSA
import Atomics
import AudioGraph
import Foundation
import MIDICore
import MIDIFile
import NetworkMIDI
import Player
import Rendering
import SeqplaySupport

/// A song playing to any mix of destinations, in step: the sampler (through a sound card, or a clock),
/// ALSA sequencer ports, a network MIDI session. What `seqplay song.mid [--port …] [--network-connect …]`
/// does, in a few lines:
///
/// ```swift
/// let client = try SequencerClient(name: "my app")
/// let session = try SongSession(sequence: song, song: SongOptions(start: .seconds(10)),
///                               sampler: .init(soundFontPaths: ["piano.sf2"], output: ALSAOutput()),
///                               ports: .init(client: client, ports: [try client.resolve("14:0")]))
/// try session.play()          // to the end; session.stop() from another thread ends it early
/// ```
///
/// Every destination plays the same song, prepared once (`PreparedSong`): one `MusicPlayer` per
/// destination, all built from it and the same `SongOptions` (start, end, loop, rate, transpose, mutes
/// and solos), so each gets the same events at the same times in its own unit (sampler: block-exact
/// samples; ports and network: nanoseconds). A track given its own port (`SongPorts.trackPorts`) plays there only, as
/// AVAudioSequencer's track destinations do; the other tracks play on every destination.
///
/// In step: with ports, song time 0 is `SequencerSongPlayer.leadNanoseconds` after the kernel queue
/// starts; otherwise `startLead` after `play()` begins. The network sends stamp events with that
/// time; the sampler's output starts one output latency (`RealtimeOutput.outputLatency`) before it,
/// so its first sample is heard when the first event goes out.
public final class SongSession: Sendable {
    /// The sampler's part: SoundFonts, the output it plays to, and how it sounds (`options.song` is
    /// replaced by the session's, which every destination plays).
    public struct Sampler {
        public var soundFontPaths: [String]
        public var output: RealtimeOutput
        public var options: RenderOptions

        public init(soundFontPaths: [String], output: RealtimeOutput, options: RenderOptions = RenderOptions()) {
            self.soundFontPaths = soundFontPaths
            self.output = output
            self.options = options
        }
    }

    /// Song time 0 without ports: this long after `play()` begins, so the first events are not late.
    public static let startLead = 0.04
    /// How far ahead of their time events go to the network (see `RealtimeSequencer.lookahead`).
    public static let networkLookahead = 0.02

    /// The sampler's real-time playback, when there is a sampler.
    public let sampler: SongPlayback?
    /// The ports' kernel-queue player, when there are ports.
    public let ports: SequencerSongPlayer?
    /// The network sender, when there is a network session.
    public let network: RealtimeSequencer?
    private let networkSession: NetworkMIDISession?
    /// `stop()`: the waits for a time (the sampler's start, the song's end) end at it.
    private let stopRequest = StopRequest()
    private let samplerStarted = ManagedAtomic(false)
    /// Starts the sampler's output at its time; joined once it has started (or failed to start).
    private let samplerStarter = ServiceThread()
    private let began = ManagedAtomic(false)
    private let notice: @Sendable (String) -> Void

    /// Prepares `sequence`, played as `song` asks, for each destination given (at least one).
    /// `notice` hears what the user should know but does not stop playback (a sound card that failed
    /// to start: the rest plays on).
    public init(sequence: MusicSequence, song: SongOptions = SongOptions(), sampler: Sampler? = nil, ports: SongPorts? = nil,
                network: NetworkMIDISession? = nil, notice: @escaping @Sendable (String) -> Void = { _ in }) throws(SongSessionError) {
        precondition(sampler != nil || ports != nil || network != nil, "a song session needs a destination")
        let ownPortTracks = Set(ports?.trackPorts.keys ?? [:].keys)
        let prepared = PreparedSong(sequence)
        let trackCount = prepared.timeline.tracks.count
        if let track = ownPortTracks.sorted().first(where: { !(0..<trackCount).contains($0) }) {
            throw .song(.noSuchTrack(track, trackCount: trackCount))
        }
        let shared: Set<Int>? = ownPortTracks.isEmpty ? nil : Set(0..<trackCount).subtracting(ownPortTracks)
        func nanosecondPlayer(tracks: Set<Int>?, midiClock: Bool) throws(SongSessionError) -> MusicPlayer {
            var destinationSong = song
            destinationSong.tracks = tracks
            destinationSong.midiClock = midiClock
            do throws(SongOptionsError) {
                return try MusicPlayer(song: prepared, sampleRate: MusicPlayer.nanosecondRate, options: destinationSong)
            } catch {
                throw .song(error)
            }
        }
        if let sampler {
            var samplerOptions = sampler.options
            samplerOptions.song = song
            samplerOptions.song.tracks = shared
            do throws(RenderError) {
                self.sampler = try SongPlayback(song: prepared, soundFontPaths: sampler.soundFontPaths,
                                                options: samplerOptions, output: sampler.output)
            } catch {
                throw .render(error)
            }
        } else {
            self.sampler = nil
        }
        if let ports {
            let player = try nanosecondPlayer(tracks: ports.ports.isEmpty ? ownPortTracks : nil, midiClock: ports.midiClock)
            do throws(SequencerError) {
                self.ports = try ports.makePlayer(player)
            } catch {
                throw .sequencer(error)
            }
        } else {
            self.ports = nil
        }
        if let network {
            let player = try nanosecondPlayer(tracks: shared, midiClock: false)
            self.network = RealtimeSequencer(player: player, destination: NetworkSongDestination(session: network),
                                             lookahead: Self.networkLookahead)
        } else {
            self.network = nil
        }
        networkSession = network
        self.notice = notice
    }

    /// Plays to the end, or until `stop()`; returns whether it played to the end. Then every
    /// destination is silenced if stopped early (ports: Sustain Off and All Notes Off; network: All
    /// Notes Off; sampler: its notes ended) and the sampler's tail drained. Call it once.
    @discardableResult
    public func play() throws(SongSessionError) -> Bool {
        let finished: Bool
        if let ports {
            do throws(SequencerError) {
                finished = try ports.play { begin(songStart: MonotonicClock.now() + SequencerSongPlayer.leadNanoseconds) }
            } catch {
                stop()
                try? finishSampler()
                throw .sequencer(error)
            }
        } else {
            let lead = network != nil || sampler == nil ? Self.startLead : sampler!.output.outputLatency
            begin(songStart: MonotonicClock.now() + UInt64(lead * 1e9))
            finished = waitForNetwork()
        }
        if let network, finished { waitUntil(network.endTime, orStop: true) }
        releaseNetwork()
        try finishSampler()
        return finished && !isStopped
    }

    /// Ends playback early (any thread, e.g. a signal handler's): `play()` then silences every
    /// destination and returns false.
    public func stop() {
        stopRequest.request()
        sampler?.wakeWaiters()
        ports?.stop()
        network?.stop()
    }

    /// Waits `nanoseconds`, or until `stop()`.
    func waitUntilStopped(orFor nanoseconds: UInt64) {
        stopRequest.wait(nanoseconds: nanoseconds)
    }

    /// Whether `stop()` was called.
    public var isStopped: Bool { stopRequest.isRequested }

    /// Starts the network and the sampler so that song time 0 sounds at monotonic time `songStart`.
    private func begin(songStart: UInt64) {
        began.store(true, ordering: .releasing)
        network?.start(at: songStart)
        guard let sampler else { return }
        let latency = UInt64(sampler.output.outputLatency * 1e9)
        let startAt = songStart - min(latency, songStart)
        let notice = self.notice
        samplerStarter.start(name: "seqplay sampler start") { [samplerStarted, stopRequest] in
            stopRequest.wait(until: startAt)  // a stop starts the output at once (`finishSampler` stops it)
            do {
                try sampler.start()
                samplerStarted.store(true, ordering: .releasing)
            } catch {
                notice("audio off (\(error)): playing to the other destinations only")
            }
        }
    }

    /// Waits for the network sender to finish; true when it played to the end (or there is none).
    private func waitForNetwork() -> Bool {
        guard let network else { return true }
        network.waitUntilFinished()
        return !isStopped
    }

    /// Waits until `time` (monotonic ns), or until `stop()` when `orStop`.
    private func waitUntil(_ time: UInt64, orStop: Bool) {
        if orStop {
            stopRequest.wait(until: time)
        } else {
            // Kept: the time itself is awaited (the All Notes Off sent for it must leave before the session goes).
            MonotonicClock.wait(until: time)
        }
    }

    /// All Notes Off to the network peers, after everything already sent, so no queued note starts after it.
    private func releaseNetwork() {
        guard let network, let networkSession else { return }
        network.stop()
        let releaseTime = MonotonicClock.now() + UInt64(Self.networkLookahead * 1e9)
        networkSession.send((0..<16).map { .controlChange(channel: UInt8($0), controller: 123, value: 0) }, at: releaseTime)
        waitUntil(releaseTime, orStop: false)
    }

    /// Lets the sampler play out its tail (or ends its notes when stopped) and stops its output.
    private func finishSampler() throws(SongSessionError) {
        guard let sampler, began.load(ordering: .acquiring) else { return }
        samplerStarter.join()
        guard samplerStarted.load(ordering: .acquiring) else { return }
        sampler.waitUntilFinishedOrEnded(unless: { isStopped })
        if isStopped { sampler.allNotesOff() }
        if case .failed(let error) = sampler.stop(draining: true) { throw .deviceFailed(error) }
    }
}

/// Why a song session could not play.
public enum SongSessionError: Error, CustomStringConvertible {
    /// The song options do not fit the sequence (start/end, loop, rate, a track or channel it lacks).
    case song(SongOptionsError)
    /// The sampler cannot be set up (bad SoundFont, bad settings, …).
    case render(RenderError)
    /// The sequencer failed (no sequencer, a port that does not exist, a write that failed).
    case sequencer(SequencerError)
    /// The sound device could not start.
    case audio(AudioOutputError)
    /// The sound device failed while playing.
    case deviceFailed(AudioDriverError)

    public var description: String {
        switch self {
        case .song(let cause as any Error), .render(let cause as any Error), .sequencer(let cause as any Error):
            return "\(cause)"
        case .audio(let error): return "cannot play: \(error)"
        case .deviceFailed(let error): return "playback ended: \(error)"
        }
    }
}

/// A network session as a song's destination, driven by a `RealtimeSequencer` (events stamped with
/// monotonic time): each group of simultaneous messages goes to every peer in one packet stamped
/// with its time, so the peers' playout reproduces the song's timing.
final class NetworkSongDestination: SongDestination {
    let session: NetworkMIDISession
    private var messages: [MIDIMessage] = []
    private var time: Int64 = 0

    init(session: NetworkMIDISession) { self.session = session }

    func receive(_ event: SongEvent) {
        if event.sampleTime != time { send() }
        time = event.sampleTime
        messages.append(event.message)
    }

    func endOfDelivery(before sampleTime: Int64) {
        send()
    }

    private func send() {
        guard !messages.isEmpty else { return }
        session.send(messages, at: UInt64(max(0, time)))
        messages.removeAll(keepingCapacity: true)
    }
}
