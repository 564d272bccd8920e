import Atomics
import MIDICore
import SeqplaySupport

/// One producer of live MIDI (the ALSA input thread of a sampler host, a network session, a JACK
/// MIDI port…) feeding a `LiveMIDIInput`: its own lock-free single-producer queue to each destination,
/// the notes each of its sources holds there (released when the source leaves), and its own clock.
///
/// Call `push` and `sourceLeft` from one thread at a time (the producer's thread); `calibrate` from
/// the control thread. Nothing here locks; `push` and `sourceLeft` do not allocate.
package final class LiveInputProducer {
    /// For messages and errors ("ALSA ports", "network session").
    package let name: String
    package let delivery: LiveDelivery
    /// `delivery`'s look-ahead; nil for immediate delivery.
    let lookAheadFrames: Int64?
    /// One queue per destination of the `LiveMIDIInput`, read by its render thread.
    let queues: [SingleProducerQueue<QueuedMessage>]
    /// Used on the producer thread only: per destination, the notes each source holds there.
    private var held: [HeldNotes]
    /// The producer clock → monotonic clock line, written by the control thread.
    private let clock = PublishedClockLine()
    /// Used on the control thread only.
    private var clockFit: ClockFit
    private let dropped = ManagedAtomic(0)
    /// Per channel, the destination its messages go to instead of the one pushed to (-1: that one); set by
    /// `LiveMIDIInput` when the producer is added.
    var channelRoutes = [Int](repeating: -1, count: 16)

    init(name: String, delivery: LiveDelivery, destinationCount: Int, capacity: Int, nanosecondsPerTick: Double) {
        self.name = name
        self.delivery = delivery
        if case .timestamped(let frames) = delivery { lookAheadFrames = Int64(frames) } else { lookAheadFrames = nil }
        queues = (0..<destinationCount).map { _ in SingleProducerQueue(capacity: capacity, filler: QueuedMessage()) }
        held = (0..<destinationCount).map { _ in HeldNotes() }  // each its own storage, written without copying
        clockFit = ClockFit(nominalSlope: nanosecondsPerTick, noise: .symmetric)
    }

    // MARK: Producer thread

    /// Queues `message` from `source` (an ALSA client, a network peer's SSRC) for destination
    /// `destination`, to sound at `time`. Returns false, counting a drop, when that queue is full.
    @discardableResult
    package func push(_ message: MIDIMessage, at time: LiveTimestamp, from source: UInt32, to destination: Int = 0) -> Bool {
        var target = destination
        if let channel = message.channel, channelRoutes[Int(channel)] >= 0 { target = channelRoutes[Int(channel)] }
        guard enqueue(queued(message, at: time), to: target) else { return false }
        held[target].update(message, from: source)
        return true
    }

    /// Releases, after everything `source` sent before, each note and sustain pedal it holds at
    /// `destination` (all destinations when nil), and at the destinations its channels are routed to
    /// (`LiveMIDIInput.route`): the source was disconnected or left, at `time` (a network peer's leave is
    /// scheduled after its last message; `.immediate`: at the next block after what is queued before).
    package func sourceLeft(_ source: UInt32, at destination: Int? = nil, time: LiveTimestamp = .immediate) {
        for index in queues.indices where destination == nil || index == destination || channelRoutes.contains(index) {
            held[index].releaseAll(from: source) { enqueue(queued($0, at: time), to: index) }
        }
    }

    /// Messages dropped because a queue was full.
    package var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// `message` with the time it sounds at: monotonic nanoseconds (a producer-clock reading
    /// through its calibrated line), or the output's sample time as it is.
    private func queued(_ message: MIDIMessage, at time: LiveTimestamp) -> QueuedMessage {
        switch time {
        case .immediate:
            return QueuedMessage(message: message)
        case .monotonic(let nanoseconds):
            return QueuedMessage(message: message, time: Int64(clamping: nanoseconds))
        case .producerClock(let ticks):
            guard let line = clock.load() else { return QueuedMessage(message: message) }
            return QueuedMessage(message: message, time: Int64(line.map(ticks).rounded()))
        case .outputSampleTime(let sample):
            return QueuedMessage(message: message, time: sample, isOutputSampleTime: true)
        }
    }

    @discardableResult
    private func enqueue(_ message: QueuedMessage, to destination: Int) -> Bool {
        guard queues[destination].append(message) else {
            dropped.wrappingIncrement(ordering: .relaxed)
            return false
        }
        return true
    }

    // MARK: Control thread

    /// Records that the producer's clock read `producerTime` at monotonic time `monotonic` (read
    /// back to back); about once a second keeps `.producerClock` timestamps following its drift.
    package func calibrate(producerTime: Int64, monotonic: UInt64) {
        clockFit.add(x: producerTime, y: Double(monotonic))
        if let line = clockFit.commit() { clock.publish(line) }
    }
}

/// A message on its way to the render thread, with the time it should sound at: monotonic
/// nanoseconds, or (`isOutputSampleTime`) a sample of the output's clock.
struct QueuedMessage {
    /// Sound at the next block (immediate timestamps, releases).
    static let immediately = Int64.min

    var message: MIDIMessage = .activeSensing
    var time: Int64 = immediately
    var isOutputSampleTime = false
}
