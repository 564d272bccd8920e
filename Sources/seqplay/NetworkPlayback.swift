import ALSA
import ALSAAudio
import ArgumentParser
import AudioOutput
import Foundation
import MIDICore
import MIDIFile
import NetworkMIDI
import Player
import Rendering
import RealtimeSupport

/// `seqplay SONG.mid --network-connect HOST:PORT`: plays the song in real time to a network MIDI
/// session (and to the sound card when there is one and `--no-audio` is not given).
extension RenderCommand {
    /// How long the peer has to answer the invitation and complete a clock-sync exchange.
    static let networkConnectTimeout = 15.0
    /// How far ahead of their time events are sent, so the peer receives them before they are due.
    static let networkLookahead = 0.02

    func playToNetwork(_ sequence: MusicSequence, at target: String) -> Never {
        let interruption = Interruption()
        let session = openSession(connectingTo: target)
        guard waitForPeer(session, interruption: interruption) else {
            session.stop()
            if interruption.signalReceived != nil { Seqplay.exit(withError: ExitCode.interrupted) }
            CommandLineOutput.fail("no answer from \(target) within \(Int(Self.networkConnectTimeout)) s "
                + "(is `seqplay serve --network` or another RTP-MIDI session listening there?)", .networkPeerNotConnected)
        }
        let options: RenderOptions
        do { options = try renderOptions(for: sequence) } catch { CommandLineOutput.fail("\(error)", .validationFailure) }
        let player: MusicPlayer
        do { player = try SongRenderer.makePlayer(for: sequence, options: options) } catch { fail(error) }
        let audio = noAudio ? nil : openSoundCard(sequence, options: options)

        let sequencer = RealtimeSequencer(player: player, destination: NetworkSongDestination(session: session),
                                          lookahead: Self.networkLookahead)
        let startTime = MonotonicClock.now() + UInt64(Self.networkLookahead * 2e9)
        sequencer.start(at: startTime)
        if let audio {
            waitUntil(startTime)
            do { try audio.output.start(engine: audio.renderer.engine, frameCount: audio.renderer.maximumFrames) } catch {
                CommandLineOutput.note("\(error); playing to the network only")
            }
        }
        let endTime = sequencer.monotonicTime(ofSample: player.durationInSamples)
        Thread.detachNewThread {
            sequencer.waitUntilFinished()
            waitUntil(endTime)
            interruption.finish()
        }
        let signal = interruption.wait()
        sequencer.stop()
        // After everything already sent, so no queued note starts after the release.
        let releaseTime = MonotonicClock.now() + UInt64(Self.networkLookahead * 1e9)
        session.send((0..<16).map { MIDIMessage.controlChange(channel: UInt8($0), controller: 123, value: 0) }, at: releaseTime)
        waitUntil(releaseTime)
        session.stop()
        if let audio { audio.output.stop(draining: signal == nil) }
        Seqplay.exit(withError: signal == nil ? ExitCode.success : ExitCode.interrupted)
    }

    private func openSession(connectingTo target: String) -> NetworkMIDISession {
        do {
            let address = try NetworkMIDIAddress.resolve(target)
            let defaultListen = address.isLoopback ? "127.0.0.1:0" : "0.0.0.0:0"
            let session = try NetworkMIDISession(configuration: networkOptions.configuration(name: "seqplay", defaultListen: defaultListen),
                                                 deliveringTo: nil)
            CommandLineOutput.note("connecting to \(address) from \(session.controlAddress)…")
            session.connect(to: address)
            return session
        } catch {
            CommandLineOutput.fail("\(error)", .networkUnavailable)
        }
    }

    /// Waits for the peer to connect and complete a clock sync; false on timeout or Ctrl-C.
    private func waitForPeer(_ session: NetworkMIDISession, interruption: Interruption) -> Bool {
        let deadline = MonotonicClock.now() + UInt64(Self.networkConnectTimeout * 1e9)
        while MonotonicClock.now() < deadline && interruption.signalReceived == nil {
            if session.waitForConnectedPeers(1, clockSyncExchanges: 1, timeout: 0.1) { return true }
        }
        return false
    }

    /// The sound card and a renderer for it, or nil (saying so once) when there is no sound card.
    private func openSoundCard(_ sequence: MusicSequence, options: RenderOptions) -> (output: ALSAOutput, renderer: SongRenderer)? {
        let output: ALSAOutput
        do {
            output = try ALSAOutput(settings: PCMPlaybackSettings(sampleRate: options.sampleRate))
        } catch {
            CommandLineOutput.note("no sound card (\(error)): playing to the network only")
            return nil
        }
        var cardOptions = options
        cardOptions.sampleRate = output.sampleRate
        cardOptions.blockFrames = max(options.blockFrames, output.periodFrames)
        do {
            return (output, try SongRenderer(sequence: sequence, soundFontPaths: SoundFontLocator.paths(given: soundFonts),
                                             options: cardOptions))
        } catch {
            fail(error)
        }
    }
}

/// Sleeps until monotonic time `time` (nanoseconds).
func waitUntil(_ time: UInt64) {
    let now = MonotonicClock.now()
    if time > now { usleep(UInt32(min((time - now) / 1000, UInt64(UInt32.max)))) }
}

/// A network session as the destination of a `RealtimeSequencer`: each group of messages is sent to
/// every peer stamped with its time, so the peers' playout reproduces the song's timing.
final class NetworkSongDestination: TimedMIDIDestination {
    let session: NetworkMIDISession

    init(session: NetworkMIDISession) { self.session = session }

    func send(_ messages: [MIDIMessage], at time: UInt64) {
        session.send(messages, at: time)
    }
}
