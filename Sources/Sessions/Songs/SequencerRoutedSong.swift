import ALSA
import AudioGraph
import Foundation
import MIDIFile
import Player
import Rendering
import SeqplaySupport

/// A song played to its own sampler through the ALSA sequencer, so other programs can watch or tap
/// the stream: the song goes on a kernel queue from the song client's port to a `LiveSamplerHost`
/// input port (on `samplerClient`), as its only destination, through the port's subscribers, so
/// `listeners` and any program subscribing (aseqdump -p) get the same stream. The host plays each
/// event at its kernel timestamp plus `lookAhead`, through the same sampler graph as a direct
/// `SongSession`; its timestamp clock is recalibrated every second while the song plays.
///
/// ```swift
/// let song = try SequencerRoutedSong(sequence: song, song: SongOptions(),
///                                    sampler: .init(soundFontPaths: ["piano.sf2"], output: ALSAOutput()),
///                                    songClient: SequencerClient(name: "app"), samplerClient: SequencerClient(name: "app sampler"))
/// try song.play()
/// ```
public final class SequencerRoutedSong: Sendable {
    /// How far behind its kernel timestamp the sampler plays an event by default: more than a period
    /// of the default device plus the input thread's wake-up, also under load.
    public static let defaultLookAhead = 0.05

    public let playback: SongPlayback
    public let host: LiveSamplerHost
    /// The song on its way to the host's port (ports only).
    public let session: SongSession
    public let lookAhead: Double

    /// Prepares `sequence`, played as `song` asks (the sampler's `options.song` is replaced by it).
    public init(sequence: MusicSequence, song: SongOptions = SongOptions(), sampler: SongSession.Sampler, songClient: SequencerClient,
                samplerClient: SequencerClient, listeners: [PortAddress] = [], midiClock: Bool = false,
                lookAhead: Double = defaultLookAhead) throws(SongSessionError) {
        var options = sampler.options
        options.song = song
        do throws(RenderError) {
            playback = try SongPlayback(sequence: sequence, soundFontPaths: sampler.soundFontPaths, options: options, output: sampler.output)
        } catch {
            throw .render(error)
        }
        let output = sampler.output
        do throws(SequencerError) {
            host = try LiveSamplerHost(client: samplerClient, sampler: playback.renderer.sampler,
                                       delivery: .timestamped(lookAheadFrames: Int(lookAhead * Double(output.sampleRate))),
                                       sampleRate: output.sampleRate, periodFrames: output.periodFrames)
        } catch {
            throw .sequencer(error)
        }
        session = try SongSession(sequence: sequence, song: song, ports: SongPorts(
            client: songClient, ports: [host.ports[0].address], midiClock: midiClock, tapped: true, listeners: listeners))
        self.lookAhead = lookAhead
    }

    /// Events that reached the sampler after their time.
    public var lateEventCount: Int { host.lateEventCount }

    /// How late the latest of those events was, in seconds after its time (0 when none was late).
    public var latestLateness: Double { host.latestLateness }

    /// Plays to the end (the sampler's tail included) or until `stop()`; returns whether it played to the end.
    @discardableResult
    public func play() throws(SongSessionError) -> Bool {
        do throws(AudioOutputError) {
            try playback.start()
        } catch {
            throw .audio(error)
        }
        do throws(SequencerError) {
            try host.start()
        } catch {
            _ = playback.stop(draining: false)
            throw .sequencer(error)
        }
        let calibrating = ServiceThread()
        calibrating.start(name: "seqplay calibration") { [host, calibrating] in
            while !calibrating.waitForStop(nanoseconds: 1_000_000_000) { try? host.calibrate() }
        }
        defer { host.stop() }
        let finished: Bool
        do throws(SongSessionError) {
            finished = try session.play()
        } catch {
            calibrating.stop()
            _ = playback.stop(draining: false)
            throw error
        }
        calibrating.stop()
        if finished {
            // The last events reach the sampler a look-ahead after their timestamps; then the tail plays out.
            session.waitUntilStopped(orFor: UInt64(nanoseconds: lookAhead))
            playback.waitUntilFinishedOrEnded(unless: { session.isStopped })
        }
        if !finished || session.isStopped { playback.allNotesOff() }
        if case .failed(let error) = playback.stop(draining: true) { throw .deviceFailed(error) }
        return finished && !session.isStopped
    }

    /// Ends playback early (any thread): all notes off on the sampler and the listeners.
    public func stop() {
        session.stop()
        playback.wakeWaiters()
    }
}
