import ALSA
import LiveInput
import MIDICore
import Sampler

/// Plays MIDI arriving at ALSA sequencer input ports through `SamplerNode`s, each port its own
/// sampler (16 channels per port): a `LiveMIDIInput` with one destination per sampler, fed by a
/// `SequencerLiveProducer`. The host behind `--route alsa`; `LiveSamplerSession` builds on the same
/// parts.
///
/// Make it, `connect` sources, then start the audio output, then `start()`. Call `calibrate()`
/// every second or so from a control thread.
public final class LiveSamplerHost: Sendable {
    package let input: LiveMIDIInput
    public let producer: SequencerLiveProducer

    /// Opens one input port on `client` per entry of `inputs`, named `name`, that plays `sampler`
    /// (made its event source). `sampleRate` and `periodFrames` are the audio output's.
    package init(client: SequencerClient, inputs: [(name: String, sampler: SamplerNode)],
                delivery: LiveDelivery, sampleRate: Int, periodFrames: Int) throws(SequencerError) {
        input = LiveMIDIInput(destinationCount: inputs.count, sampleRate: sampleRate, periodFrames: periodFrames)
        for (index, entry) in inputs.enumerated() { entry.sampler.eventSource = input.destinations[index] }
        producer = try SequencerLiveProducer(client: client, portNames: inputs.map(\.name), feeding: input, delivery: delivery)
    }

    /// One input port named `portName` that plays `sampler`.
    package convenience init(client: SequencerClient, sampler: SamplerNode, portName: String = "in",
                            delivery: LiveDelivery, sampleRate: Int, periodFrames: Int) throws(SequencerError) {
        try self.init(client: client, inputs: [(portName, sampler)], delivery: delivery,
                      sampleRate: sampleRate, periodFrames: periodFrames)
    }

    /// The input ports, in the order of the samplers they play.
    public var ports: [SequencerPort] { producer.ports }
    public var client: SequencerClient { producer.client }
    package var delivery: LiveDelivery { producer.producer.delivery }

    /// Connects `source` to the first input port.
    public func connect(from source: PortAddress) throws(SequencerError) {
        try producer.connect(from: source)
    }

    /// Starts reading the ports.
    public func start() throws(SequencerError) {
        try producer.start()
    }

    /// Stops reading the ports.
    public func stop() {
        producer.stop()
    }

    /// Follows the clocks again: the kernel queue's against the monotonic clock, the sound card's
    /// against both.
    public func calibrate() throws(SequencerError) {
        try producer.calibrate()
        input.update()
    }

    /// Ports that started since the last call, for hot-plug.
    public func portsAppeared() -> [PortAddress] {
        producer.portsAppeared()
    }

    /// Timestamped events that arrived too late for their block and were played at the next one.
    public var lateEventCount: Int { input.lateEventCount }

    /// How late the latest of those events was, in seconds after its time (0 when none was late).
    public var latestLateness: Double { input.latestLateness }
}
