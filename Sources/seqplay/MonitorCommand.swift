import ALSA
import ArgumentParser
import Foundation
import MIDICore

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
        if network { return monitorNetwork() }
        let client = try SequencerCommandSupport.openClient(name: "seqplay monitor")
        let input = try SequencerCommandSupport.run { () throws(SequencerError) in
            let clock = try SequencerQueue(client: client, name: "seqplay monitor clock")
            let port = try client.createPort(name: "monitor", capabilities: .input, timestampQueue: clock)
            try clock.start()
            for source in ports {
                try client.connect(from: try client.resolve(source), to: port.address)
            }
            return (clock, port)
        }
        CommandLineOutput.writeStandardError(Data("Waiting for data at \(input.1.address). Press Ctrl+C to end.\n".utf8))
        if !json {
            SequencerCommandSupport.printLine("    Time  Source  Event                  Ch  Data")
        }
        let deadline = duration.map { Date().addingTimeInterval($0) }
        var received = 0
        while count.map({ received < $0 }) ?? true {
            // Milliseconds left, clamped so that any --duration (even infinite) converts without trapping.
            let timeout = deadline.map { Int(min(max($0.timeIntervalSinceNow * 1000, 0), Double(Int32.max))) }
            if timeout == 0 { break }
            guard let event = try SequencerCommandSupport.run({ () throws(SequencerError) in
                try client.nextEvent(timeoutMilliseconds: timeout)
            }) else { continue }
            received += 1
            let description = EventDescription(event)
            SequencerCommandSupport.printLine(json ? try SequencerCommandSupport.json(description, pretty: false)
                                                   : description.line)
        }
        withExtendedLifetime(input.0) {}
    }
}

/// One received event as `seqplay monitor` prints it: an aseqdump-style line, or a JSON object.
struct EventDescription: Encodable {
    /// Seconds since the monitor started, from the kernel's timestamp.
    let time: Double?
    let source: String
    let event: String
    /// 1-16, as every seqplay command numbers channels.
    let channel: Int?
    let note: Int?
    let noteName: String?
    let velocity: Int?
    let controller: Int?
    let value: Int?
    let bytes: String

    /// The aseqdump name of the event and its data column.
    private let label: String
    private let data: String

    private enum CodingKeys: String, CodingKey {
        case time, source, event, channel, note, noteName, velocity, controller, value, bytes
    }

    init(_ received: SequencerEvent) {
        var time: Double?
        if case .realTime(let nanoseconds) = received.timestamp {
            time = Double(nanoseconds) / 1e9
        }
        self.init(received.message, time: time, source: "\(received.source)")
    }

    /// `message` from `source`, at `time` seconds since the monitor started.
    init(_ message: MIDIMessage, time: Double?, source: String) {
        self.time = time
        self.source = source
        bytes = message.bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
        channel = message.channel.map { Int($0) + 1 }
        var note: UInt8?, velocity: UInt8?, controller: UInt8?, value: Int?
        switch message {
        case .noteOn(_, let n, let v): (event, label, note, velocity) = ("noteOn", "Note on", n, v)
        case .noteOff(_, let n, let v): (event, label, note, velocity) = ("noteOff", "Note off", n, v)
        case .polyPressure(_, let n, let p): (event, label, note, value) = ("polyPressure", "Polyphonic aftertouch", n, Int(p))
        case .controlChange(_, let c, let v): (event, label, controller, value) = ("controlChange", "Control change", c, Int(v))
        case .programChange(_, let p): (event, label, value) = ("programChange", "Program change", Int(p))
        case .channelPressure(_, let p): (event, label, value) = ("channelPressure", "Channel aftertouch", Int(p))
        case .pitchBend(_, let v): (event, label, value) = ("pitchBend", "Pitch bend", Int(v) - 8192)
        case .systemExclusive(let d): (event, label, value) = ("systemExclusive", "System exclusive", d.count)
        case .timeCodeQuarterFrame(let v): (event, label, value) = ("timeCodeQuarterFrame", "MTC quarter frame", Int(v))
        case .songPosition(let p): (event, label, value) = ("songPosition", "Song position pointer", Int(p))
        case .songSelect(let s): (event, label, value) = ("songSelect", "Song select", Int(s))
        case .tuneRequest: (event, label) = ("tuneRequest", "Tune request")
        case .timingClock: (event, label) = ("timingClock", "Clock")
        case .start: (event, label) = ("start", "Start")
        case .continue: (event, label) = ("continue", "Continue")
        case .stop: (event, label) = ("stop", "Stop")
        case .activeSensing: (event, label) = ("activeSensing", "Active Sensing")
        case .systemReset: (event, label) = ("systemReset", "System reset")
        }
        self.note = note.map(Int.init)
        noteName = note.map(NoteName.of)
        self.velocity = velocity.map(Int.init)
        self.controller = controller.map(Int.init)
        self.value = value
        switch message {
        case .noteOn, .noteOff:
            data = "note \(note!) (\(NoteName.of(note!))), velocity \(velocity!)"
        case .polyPressure:
            data = "note \(note!) (\(NoteName.of(note!))), value \(value!)"
        case .controlChange:
            data = "controller \(controller!), value \(value!)"
        case .programChange, .channelPressure, .pitchBend, .timeCodeQuarterFrame, .songPosition, .songSelect:
            data = "value \(value!)"
        case .systemExclusive:
            data = bytes
        default:
            data = ""
        }
    }

    /// `    0.500000  14:0   Note on                 0  note 60 (C4), velocity 100`
    var line: String {
        let timeText = time.map { String(format: "%10.6f", $0) } ?? "         -"
        let channelText = channel.map { String(format: "%2d", $0) } ?? "  "
        let columns = "\(timeText)  \(source.padding(toLength: 6, withPad: " ", startingAt: 0))  "
            + "\(label.padding(toLength: 22, withPad: " ", startingAt: 0)) \(channelText)  \(data)"
        return String(columns.reversed().drop(while: { $0 == " " }).reversed())
    }
}
