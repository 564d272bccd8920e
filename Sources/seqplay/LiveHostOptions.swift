import ALSA
import ArgumentParser
import ControlHTTP
import Foundation
import SeqplaySupport
import MediaLibrary
import Sessions

/// The options of every command that hosts the sampler for live MIDI (`live`, `serve`): the sampler
/// (`SamplerArguments`, as songs take it), the sound card, its latency and the rate (`SoundCardArguments`,
/// with the live defaults: 48000 Hz, 128 frames x 2), delivery mode, recording instead of a sound card.
struct LiveHostOptions: ParsableArguments {
    @OptionGroup(title: "Sound") var sampler: SamplerArguments

    @OptionGroup(title: "Sound card") var soundCard: SoundCardArguments

    @OptionGroup(title: "Sound card") var rate: SampleRateArgument

    @Flag(help: "Play each event from ALSA ports at its kernel timestamp plus a fixed look-ahead (jitter ≤ 64 samples) instead of at the next block (lowest latency).")
    var timestamped = false

    @Option(name: .customLong("look-ahead"), parsing: .unconditional, help: "Look-ahead of --timestamped, in ms (default: one period + 2 ms).")
    var lookAhead: Double?

    @Option(name: [.short, .long], help: ArgumentHelp("Record what is played to this file (on the system clock) instead of playing to the sound card.", valueName: "file"))
    var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @OptionGroup(title: "Audio driver")
    var audio: AudioDriverArguments

    @OptionGroup(title: "Audio driver")
    var jackMIDI: JACKMIDIArguments

    @OptionGroup(title: "Control (a sound module you can control: Docs/sound-module.md)")
    var control: ControlArguments

    @OptionGroup(title: "Sound") var instruments: InstrumentArguments

    func validate() throws {
        try FlagRange.check(rate.sampleRate, "--sample-rate", in: 8_000...192_000, unit: " Hz")
        try FlagRange.check(lookAhead, "--look-ahead", atLeast: 0, atMost: 1000, unit: " ms")
        try FlagRange.seconds(duration, "--duration", above: 0)
        try jackMIDI.validate(audio: audio, songs: false)
    }

    /// The session these options describe, with sequencer client `clientName` and input ports `portNames`.
    func configuration(clientName: String, portNames: [String]) throws -> LiveSamplerConfiguration {
        let fontPaths = try CommandFailure.mapping { try sampler.fontPaths() }
        let jack = output == nil && audio.usesJACK ? try audio.openJACKOutput() : nil
        // A recording to standard output keeps it for the WAV alone: what plugins print goes to stderr.
        if output == "-" { StandardOutput.reserveForData() }
        let sampleRate = rate.sampleRate(for: .live)
        let device = PCMPlaybackSettings(sampleRate: sampleRate, periodFrames: soundCard.periodFrames(for: .live),
                                         periodCount: soundCard.periodCount(for: .live))
        var configuration = LiveSamplerConfiguration(
            soundFonts: fontPaths,
            output: output.map { .recording(path: $0, sampleRate: sampleRate) }
                ?? jack.map { .opened($0) }
                ?? .soundCard(device: soundCard.device, settings: device))
        if let jack { configuration.inputs.append(try jackMIDI.midiInput(on: jack)) }
        configuration.sampler = try sampler.settings()
        configuration.clientName = clientName
        configuration.portNames = portNames
        configuration.timestampedPorts = timestamped
        configuration.portLookAheadSeconds = lookAhead.map { $0 / 1000 }
        configuration.instruments = try instruments.assignments()
        return configuration
    }
}

/// Runs a `LiveSamplerSession` for a command: says what it plays, serves q/Ctrl-C/SIGTERM and
/// `--duration`, and reports the end; errors become a message and an exit status.
enum LiveSessionRunner {
    /// Plays `configuration` until the user or `duration` ends it. `command` is how the user
    /// repeats this with -o (for the advice when there is no sound card).
    static func run(_ configuration: LiveSamplerConfiguration, duration: Double?, command: String,
                    control: ControlArguments = ControlArguments()) throws {
        // Network peers as the control model's inputs (the model is made once the session exists).
        var configuration = configuration
        let peers = control.isActive ? SoundModuleHost.NetworkPeers(reportingIn: &configuration) : nil
        // With a control model, SIGHUP reloads the fonts (SoundModuleHost) instead of ending. The signals are
        // caught before the session opens its output (JACK ports appear then: a SIGTERM right after they do
        // ends cleanly, not with the default action's 143), before a recording starts (it is then completed or
        // abandoned, never left half-written) and before the faces answer.
        let interruption = control.isActive ? Interruption(signals: [SIGINT, SIGTERM]) : Interruption()
        let (session, host) = try CommandFailure.mapping(command: command) { () throws -> (LiveSamplerSession, SoundModuleHost?) in
            let session = try LiveSamplerSession(configuration)
            let host = control.isActive ? try soundModuleHost(session, control) : nil
            if let host { peers?.report(to: host) }
            session.reportConnections(to: host?.control, status: status)
            session.onBridgePortChange = { CommandLineOutput.note("\($0)") }
            return (session, host)
        }
        try CommandFailure.mapping(command: command) { try session.start() }
        status(session.servingDescription)
        if session.network?.bridgeError != nil {
            CommandLineOutput.note("\(session.network!.bridgeError!); ALSA programs cannot send to network peers")
        }
        host?.start()
        let keys = TerminalKeys()
        status("Playing. q: quit.")
        let summary = session.run(until: interruption, duration: duration, keys: keys, host: host)
        if let recording = summary.recording, let path = session.recorder?.path {
            CommandLineOutput.note("wrote \(recording.framesWritten) frames to \(path)"
                + (recording.droppedFrames > 0 ? " (\(recording.droppedFrames) dropped: the disk fell behind)" : ""))
        }
        try SequencerCommandSupport.printLine(LiveSamplerSession.describe(summary))
        if summary.droppedMessages > 0 {
            CommandLineOutput.note("\(summary.droppedMessages) MIDI events were dropped (the input queue was full)")
        }
        if let failure = summary.failure { throw CommandFailure(mapping: failure, command: command) }
    }

    /// The sound module over `session` (not started yet) with the faces `arguments` ask for.
    private static func soundModuleHost(_ session: LiveSamplerSession, _ arguments: ControlArguments) throws -> SoundModuleHost {
        let host = try CommandFailure.describing(.networkUnavailable) { try SoundModuleHost(session: session, configuration: arguments.hostConfiguration, log: { CommandLineOutput.note($0) }) }
        if let address = arguments.httpAddress {
            host.add(try ControlHTTPFace(control: host.control, engine: session.engine, samplers: session.samplers, address: address,
                                         stateDirectory: arguments.stateDirectory, libraryPath: MediaLibrary.defaultPath))
        }
        return host
    }

    /// A line of the session's own on standard error (as the VM checks read them: "Playing", "Connected").
    private static func status(_ line: String) {
        CommandLineOutput.writeStandardError(Data((line + "\n").utf8))
    }
}
