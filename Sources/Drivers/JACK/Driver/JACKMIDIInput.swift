import Atomics
import AudioGraph
import LiveInput
import MIDICore

/// A JACK MIDI input port (`midi_in`) of a JACK output's client as a producer of the live-input
/// layer: what other JACK clients (a DAW's MIDI track, a keyboard through the server) send there
/// plays a sampler, each event on the sample it was sent at.
///
/// JACK hands a cycle's events with their frame offsets in that cycle, and the output renders the
/// same cycle's audio in the same process callback, so the port is read there, before the output
/// renders, and each event is pushed stamped `.outputSampleTime(first frame of the cycle + offset)`:
/// the output's own sample clock, no clock fit. The latency is therefore fixed at
/// `latencyFrames` (0): an event sounds in the cycle it arrives in, at its frame, on the sampler's
/// 64-sample grid (within 32 samples), like any JACK instrument. When the last connection to the port
/// goes, the notes and sustain it holds are released.
///
/// ```swift
/// let output = try JACKOutput()
/// var configuration = LiveSamplerConfiguration(soundFonts: ["piano.sf2"], output: .opened(output))
/// configuration.inputs = [try JACKMIDIInput(driver: output.jack)]       // seqplay:midi_in
/// let session = try LiveSamplerSession(configuration)
/// try session.start()
/// ```
///
/// Without a session, `attach(to:destination:output:)` adds it to any `LiveMIDIInput` whose
/// samplers render on that JACK output.
// Why unchecked: `attach` sets the producer and destination before the output starts; then the process thread alone uses them; the stop flag and counters are atomics.
public final class JACKMIDIInput: JACKCycleHandler, @unchecked Sendable {
    /// Frames between an event's own frame and the sample it sounds at (before the 64-sample grid).
    public static let latencyFrames = 0
    /// The one source of the port: JACK merges whatever is connected into one stream.
    static let source: UInt32 = 0

    package let port: JACKMIDIPort
    /// Output ports whose names match this extended regular expression are connected to the port
    /// when the output starts (nil: none; a patchbay or the DAW connects them).
    public let connectPattern: String?
    public var name: String { "JACK MIDI input \(port.name)" }

    /// Set by `attach` before the output starts; read by the process callback only after.
    private var producer: LiveInputProducer?
    private var destination = 0
    private var wasConnected = false
    private let stopped = ManagedAtomic(false)
    private let ignored = ManagedAtomic(0)

    /// Registers input port `portName` on `driver`'s client and takes part in its cycles.
    public init(driver: JACKAudioDriver, portName: String = "midi_in", connecting pattern: String? = nil) throws(JACKError) {
        port = try driver.client.registerMIDIPort(named: portName, direction: .input)
        connectPattern = pattern
        driver.addCycleHandler(self)
    }

    /// Events not taken: System Exclusive and incomplete messages.
    public var ignoredEventCount: Int { ignored.load(ordering: .relaxed) }

    // MARK: Live input (LiveSamplerInput, in LiveSampler)

    /// Adds the port's producer to `input`, feeding `destination`. `output` must be the JACK output
    /// whose driver the port belongs to. Call once, before the output starts.
    public func attach(to input: LiveMIDIInput, destination: Int, output: RealtimeOutput) {
        precondition(producer == nil, "a JACK MIDI input feeds one live input")
        producer = input.addProducer(name: name, delivery: .timestamped(lookAheadFrames: Self.latencyFrames))
        self.destination = destination
    }

    /// Nothing more is pushed after this.
    public func stop() {
        stopped.store(true, ordering: .releasing)
    }

    // MARK: JACK's process callback

    package func connectPorts(_ client: JACKClient) throws(JACKError) {
        guard let connectPattern else { return }
        for source in client.ports(matching: connectPattern, type: .midi, direction: .output) {
            try client.connect(source, to: port.name)
        }
    }

    public func beginCycle(frameCount: Int, sampleTime: Int64) {
        guard let producer, !stopped.load(ordering: .acquiring) else { return }
        let connected = port.isConnected
        if wasConnected && !connected { producer.sourceLeft(Self.source, at: destination) }
        wasConnected = connected
        let events = port.events(frameCount: frameCount)
        // By index: the collection's generic iterator allocates in unoptimized builds.
        for index in events.startIndex..<events.endIndex {
            let event = events[index]
            guard let message = event.message else {
                ignored.wrappingIncrement(ordering: .relaxed)
                continue
            }
            producer.push(message, at: .outputSampleTime(sampleTime + Int64(event.frame)), from: Self.source, to: destination)
        }
    }
}
