import ALSA
import ArgumentParser
import Foundation
import SeqplaySupport
import Sessions

/// `seqplay record take.mid [--from PORT]`: records MIDI from sequencer ports into a file with
/// kernel timestamps; a key pauses and resumes (the pause is cut out); autosaves every second.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record MIDI from ALSA sequencer ports into a MIDI file.",
        discussion: """
            Space (or p) pauses and resumes: the pause is cut out, so the parts join seamlessly. \
            q, Enter, Ctrl+C or SIGTERM end the take. The file is saved atomically every second \
            while recording, so a killed recording loses at most the last second.
            """
    )

    @Argument(help: "The MIDI file to write.")
    var file: String

    @Option(name: .customLong("from"), help: "Port to record from (14:0, a client name); repeat for several. None: wait for connections.")
    var sources: [String] = []

    @Option(parsing: .unconditional, help: "Tempo written to the file, in beats per minute.")
    var tempo: Double = 120

    @Option(name: .customLong("time-signature"), help: "Time signature written to the file, e.g. 3/4.")
    var timeSignature: String = "4/4"

    @Option(parsing: .unconditional, help: "Ticks per quarter note.")
    var ppq: UInt16 = 480

    @Option(parsing: .unconditional, help: "Stop after this many seconds of recording (pauses not counted).")
    var duration: Double?

    @Option(name: .customLong("autosave-interval"), parsing: .unconditional, help: "Seconds between autosaves.")
    var autosaveInterval: Double = 1

    func validate() throws {
        guard TimeSignature(timeSignature) != nil else {
            throw ValidationError("--time-signature must look like 3/4 (denominator a power of two up to 64)")
        }
        try FlagRange.check(tempo, "--tempo", atLeast: 10, atMost: 1000, unit: " BPM")
        try FlagRange.check(ppq, "--ppq", in: 1...32767)
        try FlagRange.seconds(duration, "--duration", above: 0)
        try FlagRange.seconds(autosaveInterval, "--autosave-interval", above: 0)
    }

    func run() throws {
        _ = try CommandFailure.describing(.inputOutput) { try OutputTarget.resolve(file) }  // refused before any port is opened
        let client = try SequencerCommandSupport.openClient(name: "seqplay record")
        let take = TakeRecorder(ticksPerQuarter: ppq, beatsPerMinute: tempo, timeSignature: TimeSignature(timeSignature)!)
        let recording = try { () throws(SequencerError) in
            let addresses = try sources.map { (source) throws(SequencerError) in try client.resolve(source) }
            return try SequencerTakeRecording(client: client, sources: addresses, path: file, take: take)
        }()
        recording.autosaveInterval = autosaveInterval
        recording.duration = duration
        do {
            try recording.autosave()  // the file exists from the start
            let interruption = Interruption()
            let keys = TerminalKeys()
            defer { keys.restore() }
            status("Recording at \(recording.port.address) into \(file). Space: pause/resume, q: stop.")
            try recording.run(until: interruption, keys: keys) { status($0) }
        } catch {
            switch error {
            case .sequencer(let error): throw CommandFailure(mapping: error)
            case .cannotSave(let error): throw CommandFailure("\(error)", .inputOutput)
            }
        }
        try SequencerCommandSupport.printLine(String(format: "%@: %d events, %.1f s paused time cut", file,
                                                 recording.take.eventCount, recording.take.pausedSeconds))
    }

    private func status(_ line: String) {
        CommandLineOutput.writeStandardError(Data((line + "\n").utf8))
    }
}
