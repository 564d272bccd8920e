import SeqplaySupport
import ALSA
import ArgumentParser
import AudioGraph
import Foundation
import MIDIFile
import NetworkMIDI
import Sessions

/// `seqplay SONG.mid --port 14:0 [--port-for-track 2=20:0] [--clock] [--network-connect HOST:PORT]`:
/// the song to ALSA ports and/or a network session and, unless `--no-audio` or audio cannot be
/// opened (said once), through the sampler, all in step (`SongSession`; `PlaybackMode.destinations`).
extension RealtimeSong {
    func playToDestinations(_ sequence: MusicSequence, destinations: DestinationArguments, networkOptions: NetworkArguments) throws {
        let interruption = Interruption()
        let ports = try destinations.hasPorts ? destinations.songPorts() : nil
        let network = try destinations.networkConnect.map { try networkOptions.connect(to: $0, interruption: interruption) }
        let only = ports == nil ? "the network" : network == nil ? "the ports" : "the ports and the network"
        let options = try device.mapped(sound.renderOptions(for: sequence))
        var sampler: SongSession.Sampler?
        if !destinations.noAudio {
            let fontPaths = try sound.fontPaths()
            do {
                sampler = SongSession.Sampler(soundFontPaths: fontPaths, output: try device.openOutput(options: options), options: options)
            } catch {
                CommandLineOutput.note("audio off (\(Self.reason(error))): playing to \(only) only")
            }
        }
        let session = try SongSession(sequence: sequence, song: options.song, sampler: sampler, ports: ports, network: network) {
            CommandLineOutput.note($0)
        }
        let finished = try interruption.run(stopping: session.stop, session.play)
        network?.stop()
        if !finished { throw CommandFailure(nil, .interrupted) }
    }

    /// Why the sound card cannot play, in a few words.
    private static func reason(_ error: AudioOutputError) -> String {
        if let reason = error.noSoundCardReason { return "no sound card: \(reason)" }
        return "\(error)"
    }
}

private extension DestinationArguments {
    /// The sequencer client and the ports the flags name.
    func songPorts() throws -> SongPorts {
        let client = try SequencerCommandSupport.openClient()
        var trackPorts: [Int: PortAddress] = [:]
        for assignment in self.trackPorts {
            trackPorts[assignment.track] = try SequencerCommandSupport.resolve([assignment.port], on: client)[0]
        }
        return SongPorts(client: client, ports: try SequencerCommandSupport.resolve(ports, on: client),
                         trackPorts: trackPorts, midiClock: clock)
    }
}

private extension NetworkArguments {
    /// A network session connected to the peer at `target`, its clock synchronised.
    func connect(to target: String, interruption: Interruption) throws -> NetworkMIDISession {
        let address = try NetworkMIDIAddress.resolve(target)
        let configuration = try self.configuration(name: "seqplay", defaultListen: SongSession.defaultListenAddress(connectingTo: address))
        return try SongSession.connectNetwork(to: address, configuration: configuration,
                                              connecting: { CommandLineOutput.note("connecting to \(address) from \($0)…") },
                                              isCancelled: { interruption.isRequested })
    }
}
