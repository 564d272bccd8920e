import ALSA
import ArgumentParser
import Foundation
import MIDIFile

/// `seqplay monitor [PORT…]`: prints every MIDI event arriving from the given ports (or from whoever
/// connects to seqplay's port) with the kernel's timestamp, as `aseqdump` does, plus note names.
/// `seqplay monitor --network` does the same for network MIDI peers (see NetworkMonitor.swift).
struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Print MIDI events arriving from ALSA sequencer ports or network MIDI peers, with timestamps and note names.",
        discussion: """
            Channels are numbered 1-16, as every other seqplay command numbers them (aseqdump \
            says 0-15), in the Ch column and in the JSON "channel" field.
            """
    )

    @Flag(help: "Listen for network MIDI peers (RTP-MIDI/AppleMIDI) instead of ALSA ports.")
    var network = false

    @OptionGroup(title: "Network MIDI (with --network)")
    var networkOptions: NetworkArguments

    @Argument(help: "Ports to listen to (14:0, 'Midi Through:0', a client name). None: wait for connections.")
    var ports: [String] = []

    @Flag(help: "Print one JSON object per event (JSON Lines).")
    var json = false

    @Option(parsing: .unconditional, help: "Stop after this many events.")
    var count: Int?

    @Option(parsing: .unconditional, help: "Stop after this many seconds.")
    var duration: Double?

    func validate() throws {
        if network && !ports.isEmpty { throw ValidationError("--network listens for peers; it takes no ALSA ports.") }
        try FlagRange.seconds(duration, "--duration")
        try FlagRange.check(count, "--count", in: 1...Int.max, unit: " events")
    }

    func run() throws {
        if network { return try monitorNetwork() }
        let client = try SequencerCommandSupport.openClient(name: "seqplay monitor")
        let input = try { () throws(SequencerError) in
            let clock = try SequencerQueue(client: client, name: "seqplay monitor clock")
            let port = try client.createPort(name: "monitor", capabilities: .input, timestampQueue: clock)
            try clock.start()
            for source in ports {
                try client.connect(from: try client.resolve(source), to: port.address)
            }
            return (clock, port)
        }()
        CommandLineOutput.writeStandardError(Data("Waiting for data at \(input.1.address). Press Ctrl+C to end.\n".utf8))
        if !json {
            try SequencerCommandSupport.printLine(MonitoredEvent.header)
        }
        let deadline = duration.map { Date().addingTimeInterval($0) }
        var received = 0
        while count.map({ received < $0 }) ?? true {
            // Milliseconds left, clamped so that any --duration (even infinite) converts without trapping.
            let timeout = deadline.map { Int(min(max($0.timeIntervalSinceNow * 1000, 0), Double(Int32.max))) }
            if timeout == 0 { break }
            guard let event = try { () throws(SequencerError) in
                try client.nextEvent(timeoutMilliseconds: timeout)
            }() else { continue }
            received += 1
            var time: Double?
            if case .realTime(let nanoseconds) = event.timestamp { time = Double(nanoseconds) / 1e9 }
            let description = MonitoredEvent(event.message, time: time, source: "\(event.source)")
            try SequencerCommandSupport.printLine(json ? try CommandLineOutput.json(description, pretty: false)
                                                   : description.line)
        }
        withExtendedLifetime(input.0) {}
    }
}
