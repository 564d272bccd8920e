import ArgumentParser
import AudioFiles
import AudioGraph
import AudioGraphFiles
import ALSAAudio
import AudioOutput
import FluidSynth
import Foundation
import NetworkBridge
import NetworkMIDI
import Player
import Sampler

/// `seqplay serve`: a sampler host. With `--network`, live MIDI inputs (a network MIDI session) fill a
/// lock-free queue that a SamplerNode drains on the real-time render thread, which plays to the sound
/// card, or with `-o FILE` runs on a clock and records what it plays to the file. With `--ports N`, N
/// ALSA sequencer input ports that other programs connect to, each playing a sampler of its own
/// (`LiveHostSession`).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Play MIDI arriving live (from network MIDI peers or at ALSA ports) through a SoundFont.",
        discussion: """
        Examples:
          seqplay serve --network                       (listen on 127.0.0.1:5004, play to the sound card)
          seqplay serve --network -o heard.wav --duration 30
          seqplay serve --network --listen 0.0.0.0:5004 --network-allow anyone
          seqplay serve --ports 2 --sf2 font.sf2        (ALSA ports in-1, in-2)
          seqplay serve --ports 1 --timestamped --look-ahead 10 --device hw:1

        Runs until Ctrl-C, SIGTERM or --duration; the recording is then completed.
        A peer that leaves (BY or no clock sync) has its notes released.

        --ports N opens input ports 'in-1'...'in-N' of the client 'seqplay serve'
        that any program can connect to (aconnect, seqplay connect); it connects
        to nothing by itself. Each port plays a sampler of its own: 16 channels
        per port. It plays to the sound card, at once or --timestamped. --device,
        --period, --periods, --timestamped, --look-ahead, --no-reverb and
        --no-chorus apply to --ports only; -o and the network options to
        --network only. A source disconnected or gone has its notes released.

        Where there is an ALSA sequencer, each connected peer is also a port of the
        'seqplay serve' client (see aconnect -l), named after the peer: what the peer
        sends comes out of it, and what ALSA programs send to it goes to the network
        session, that is to every connected peer. --no-alsa-ports turns this off.

        Exit status: 0 done, 4 bad SoundFont, 5 no sound card (use -o) or a
        file cannot be written, 8 the network address cannot be used, 64 bad command line.
        """
    )

    @Flag(help: "Play what network MIDI peers (RTP-MIDI/AppleMIDI) send.")
    var network = false

    @Option(help: ArgumentHelp("Open this many ALSA sequencer input ports (in-1...in-N), 16 channels each.", valueName: "N"))
    var ports: Int?

    @OptionGroup var networkOptions: NetworkArguments

    @OptionGroup var samplerOptions: LiveHostOptions

    @Option(name: [.short, .long], help: ArgumentHelp("Record what is played to this file instead of the sound card.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @Flag(name: .customLong("no-alsa-ports"), help: "Do not show network peers as ALSA sequencer ports.")
    var noALSAPorts = false

    func validate() throws {
        if network == (ports != nil) { throw ValidationError("serve needs one input: --network or --ports N (not both).") }
        if let ports, !(1...16).contains(ports) { throw ValidationError("--ports must be 1...16.") }
        if ports != nil, output != nil {
            throw ValidationError("--ports plays to the sound card (--device); -o records with --network only.")
        }
        if let duration, !(duration > 0) { throw ValidationError("--duration needs a positive number of seconds.") }
        if !(samplerOptions.gain >= 0 && samplerOptions.gain <= 10) { throw ValidationError("--gain must be between 0 and 10.") }
    }

    func run() throws {
        if let ports {
            let session = try LiveHostSession(options: samplerOptions, clientName: "seqplay serve",
                                              portNames: (1...ports).map { "in-\($0)" })
            try session.run(duration: duration) { _ in }
        } else {
            try serveNetwork()
        }
    }

    /// `--network`: the network session plays to the sound card or, with -o, to a file.
    private func serveNetwork() throws {
        let sampleRate = samplerOptions.sampleRate, gain = samplerOptions.gain
        let fontPaths = SoundFontLocator.paths(given: samplerOptions.soundFonts)
        let interruption = Interruption()
        let realtimeOutput: RealtimeOutput
        if output != nil {
            realtimeOutput = NullOutput(sampleRate: sampleRate)
        } else {
            do {
                realtimeOutput = try ALSAOutput()
            } catch {
                CommandLineOutput.fail("\(error); record to a file instead with -o FILE", .inputOutput)
            }
        }
        let host = try SamplerHost(soundFontPaths: fontPaths, sampleRate: realtimeOutput.sampleRate, gain: gain,
                                   delay: 2 * Double(realtimeOutput.periodFrames) / Double(realtimeOutput.sampleRate))
        let recorder = output.map { RecorderTap(path: $0) }
        if let recorder { host.engine.mainMixerNode.installTap(recorder, at: .output(bus: 0)) }
        do {
            try realtimeOutput.start(engine: host.engine)
            try recorder?.start()
        } catch {
            realtimeOutput.stop()
            CommandLineOutput.fail("\(error)", .inputOutput)
        }
        let input: LiveMIDIInput
        do {
            input = try NetworkLiveInput(configuration: networkOptions.configuration(name: "seqplay serve"), feeding: host.queue,
                                         alsaBridge: noALSAPorts ? nil : Self.alsaBridge())
        } catch {
            realtimeOutput.stop()
            _ = try? recorder?.stop()
            CommandLineOutput.fail("\(error)", .networkUnavailable)
        }
        CommandLineOutput.note("serving on \(input.location)\(output.map { ", recording to \($0)" } ?? ""). Press Ctrl+C to end.")
        interruption.wait(timeout: duration, every: 0.25) { FluidSynthLog.forwardPendingMessages() }
        input.stop()
        realtimeOutput.stop()
        if let recorder {
            do {
                let summary = try recorder.stop()
                CommandLineOutput.note("wrote \(summary.framesWritten) frames to \(recorder.path)"
                    + (summary.droppedFrames > 0 ? " (\(summary.droppedFrames) dropped: the disk fell behind)" : ""))
            } catch {
                CommandLineOutput.fail("\(error)", .inputOutput)
            }
        }
        if host.queue.droppedCount > 0 {
            CommandLineOutput.note("\(host.queue.droppedCount) MIDI events were dropped (the input queue was full)")
        }
    }
}

extension ServeCommand {
    /// A bridge showing network peers as ALSA ports; `nil`, without a word, where there is no sequencer.
    static func alsaBridge() -> NetworkALSABridge? {
        do {
            return try NetworkALSABridge(clientName: "seqplay serve")
        } catch .notAvailable {
            return nil
        } catch {
            CommandLineOutput.note("\(error); network peers get no ALSA ports")
            return nil
        }
    }
}

/// The sound-making part of `serve`: the live MIDI queue, a SamplerNode that drains it at the
/// matching sample times, and the engine it plays in.
final class SamplerHost {
    let queue = LiveMIDIQueue()
    let sampler: SamplerNode
    let engine = AudioEngine()

    /// `delay`: seconds from an event's time to its sound (see `LiveMIDISchedule`).
    init(soundFontPaths: [String], sampleRate: Int, gain: Float, delay: Double) throws {
        do {
            sampler = try SamplerNode(settings: SynthesizerSettings(sampleRate: Double(sampleRate), gain: gain))
            for path in soundFontPaths { try sampler.loadSoundFont(at: path) }
        } catch let error as SoundFontError {
            CommandLineOutput.fail("\(error)", .badSoundFont)
        }
        sampler.eventSource = LiveMIDISchedule(queue: queue, sampleRate: sampleRate, delay: delay)
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode)
    }
}
