import ALSA
import ALSAAudio
import ArgumentParser
import AudioGraph
import AudioOutput
import FluidSynth
import Foundation
import LiveSampler
import Sampler

/// The options of every command that hosts the sampler for live MIDI (`live`, `serve --ports`):
/// fonts, sound card and its latency, delivery mode.
struct LiveHostOptions: ParsableArguments {
    @Option(name: .customLong("sf2"), help: ArgumentHelp("A SoundFont (.sf2/.sf3); repeat to layer fonts (later ones win).", valueName: "file"))
    var soundFonts: [String] = []

    @Option(help: "ALSA playback device.")
    var device = "default"

    @Option(name: [.customShort("r"), .customLong("sample-rate")], help: "Sample rate, Hz.")
    var sampleRate = 48_000

    @Option(help: "Frames per period: the render thread's block (latency = period × periods).")
    var period = 128

    @Option(help: "Periods in the device buffer.")
    var periods = 2

    @Flag(help: "Play each event at its kernel timestamp plus a fixed look-ahead (jitter ≤ 64 samples) instead of at the next block (lowest latency).")
    var timestamped = false

    @Option(name: .customLong("look-ahead"), help: "Look-ahead of --timestamped, in ms (default: one period + 2 ms).")
    var lookAhead: Double?

    @Option(name: [.short, .long], help: "Master volume of the synthesizer.")
    var gain: Float = 0.3

    @Flag(help: "Turn the SoundFont's reverb off.")
    var noReverb = false

    @Flag(help: "Turn the SoundFont's chorus off.")
    var noChorus = false

    func validate() throws {
        guard (8_000...192_000).contains(sampleRate) else { throw ValidationError("--sample-rate must be 8000...192000") }
        guard (16...8192).contains(period), (2...16).contains(periods) else {
            throw ValidationError("--period must be 16...8192 frames and --periods 2...16")
        }
        if let lookAhead, !(0...1000).contains(lookAhead) { throw ValidationError("--look-ahead must be 0...1000 ms") }
    }
}

/// A running live sampler host: sampler, audio output and `LiveSamplerHost`, and the control loop
/// that serves keys, hot-plug and clock calibration until the user stops it.
final class LiveHostSession {
    let host: LiveSamplerHost
    private let output: ALSAOutput
    private let engine = AudioEngine()

    /// Opens one input port per name in `portNames` on a client named `clientName`, each playing a
    /// sampler of its own (mixed into the main mixer), and the sound card.
    init(options: LiveHostOptions, clientName: String, portNames: [String]) throws {
        var inputs: [(name: String, sampler: SamplerNode)] = []
        for name in portNames {
            let sampler = try Self.makeSampler(options)
            engine.attach(sampler)
            engine.connect(sampler, to: engine.mainMixerNode)
            inputs.append((name, sampler))
        }
        let output: ALSAOutput
        do {
            output = try ALSAOutput(deviceName: options.device, settings: PCMPlaybackSettings(
                sampleRate: options.sampleRate, periodFrames: options.period, periodCount: options.periods))
        } catch {
            FileHandle.standardError.write(Data("seqplay: \(error)\n".utf8))
            throw ExitCode.inputOutput
        }
        let periodFrames = output.periodFrames
        let lookAhead = options.lookAhead.map { Int($0 / 1000 * Double(output.sampleRate)) }
            ?? periodFrames + output.sampleRate / 500
        self.output = output
        let client = try SequencerCommandSupport.openClient(name: clientName)
        let host = try SequencerCommandSupport.run { () throws(SequencerError) in
            try LiveSamplerHost(client: client, inputs: inputs,
                                delivery: options.timestamped ? .timestamped(lookAheadFrames: lookAhead) : .immediate,
                                sampleRate: output.sampleRate, periodFrames: periodFrames)
        }
        self.host = host
        let rate = Double(output.sampleRate)
        let latency = Double(output.device.bufferFrames) / rate * 1000
        let delivery = options.timestamped ? String(format: "timestamped, look-ahead %.1f ms", Double(lookAhead) / rate * 1000)
                                           : "immediate"
        status(String(format: "%@: ports %@; %@ at %d Hz, period %d, buffer %.1f ms; %@",
                      clientName, host.ports.map { "\($0.address)" }.joined(separator: " "), options.device,
                      output.sampleRate, periodFrames, latency, delivery))
    }

    private static func makeSampler(_ options: LiveHostOptions) throws -> SamplerNode {
        let settings = SynthesizerSettings(sampleRate: Double(options.sampleRate), gain: options.gain,
                                           reverbEnabled: !options.noReverb, chorusEnabled: !options.noChorus)
        let fonts = SoundFontLocator.paths(given: options.soundFonts)
        do {
            let sampler = try SamplerNode(settings: settings)
            for font in fonts { try sampler.loadSoundFont(at: font) }
            return sampler
        } catch {
            FileHandle.standardError.write(Data("seqplay: \(error)\n".utf8))
            throw ExitCode.badSoundFont
        }
    }

    /// Connects `source` to the first input port and says so; a failure is reported, not fatal.
    func connect(_ source: PortAddress) {
        do {
            try host.connect(from: source)
            let name = host.client.portInfo(source).map { " (\($0.clientName): \($0.name))" } ?? ""
            status("Connected \(source)\(name)")
        } catch {
            status("Cannot connect \(source): \(error)")
        }
    }

    /// Plays until q, SIGINT/SIGTERM or `duration` seconds; hands ports that appear to `onAppeared`.
    func run(duration: Double?, onAppeared: ([PortAddress]) -> Void) throws {
        do {
            try output.start(engine: engine)
        } catch {
            FileHandle.standardError.write(Data("seqplay: \(error)\n".utf8))
            throw ExitCode.inputOutput
        }
        try SequencerCommandSupport.run { () throws(SequencerError) in try host.start() }
        let interruption = Interruption()
        let keys = TerminalKeys()
        defer { keys.restore() }
        status("Playing. q: quit.")
        let started = Date()
        var lastCalibration = started
        while interruption.signalReceived == nil, keys.nextKey() != "q" {
            if let duration, Date().timeIntervalSince(started) >= duration { break }
            usleep(20_000)
            FluidSynthLog.forwardPendingMessages()
            onAppeared(host.portsAppeared())
            if Date().timeIntervalSince(lastCalibration) >= 1 {
                try? host.calibrate()
                lastCalibration = Date()
            }
        }
        host.stop()
        let end = output.stop()
        SequencerCommandSupport.printLine("late events: \(host.lateEventCount), underruns: \(output.xrunCount)")
        if case .failed(let error) = end {
            FileHandle.standardError.write(Data("seqplay: \(error)\n".utf8))
            throw ExitCode.inputOutput
        }
    }

    private func status(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
