import Atomics
import MIDICore
import Sampler
import RealtimeSupport

/// What one input port of a `LiveSamplerHost` hands its own `SamplerNode`: the lock-free queue from the
/// MIDI input thread to the render thread, the notes each source client holds at this port (released
/// when that source leaves), and the render-side delivery of each message in the block it belongs to.
final class PortFeed: ScheduledMIDISource, @unchecked Sendable {
    private let events = SingleProducerQueue<ScheduledMessage>(capacity: 4096, filler: ScheduledMessage())
    /// Used on the input thread only.
    private var held = HeldNotes()
    private let delivery: LiveDelivery
    private let periodFrames: Int
    /// The mapping of timestamps to sample times, shared by the host's feeds.
    private let clock: QueueToSampleClock
    /// Whether this feed tells `clock` when a period starts (one feed per host does).
    private let observesPeriods: Bool
    private let lateEvents: ManagedAtomic<Int>

    init(delivery: LiveDelivery, periodFrames: Int, clock: QueueToSampleClock, observesPeriods: Bool,
         lateEvents: ManagedAtomic<Int>) {
        self.delivery = delivery
        self.periodFrames = periodFrames
        self.clock = clock
        self.observesPeriods = observesPeriods
        self.lateEvents = lateEvents
    }

    // MARK: Input thread

    /// Queues `message`, sent by `client`, to play at `sampleTime`.
    func add(_ message: MIDIMessage, from client: UInt8, sampleTime: Int64) {
        held.update(message, from: client)
        events.append(ScheduledMessage(message: message, sampleTime: sampleTime))
    }

    /// Queues, to play at once, the release of every note and pedal `client` holds at this port.
    func releaseNotes(of client: UInt8) {
        held.releaseAll(from: client) { events.append(ScheduledMessage(message: $0, sampleTime: ScheduledMessage.now)) }
    }

    // MARK: Render thread

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        // The sampler asks for the events before the middle of its block.
        let blockStart = sampleTime - Int64(SamplerNode.blockFrames / 2)
        if observesPeriods, case .timestamped = delivery, blockStart % Int64(periodFrames) < Int64(SamplerNode.blockFrames) {
            clock.observePeriodStart(sampleTime: blockStart - blockStart % Int64(periodFrames), periodFrames: periodFrames)
        }
        while let next = events.first, next.sampleTime < sampleTime {
            if next.sampleTime != ScheduledMessage.now, next.sampleTime < blockStart - Int64(SamplerNode.blockFrames / 2) {
                lateEvents.wrappingIncrement(ordering: .relaxed)
            }
            receiver.receive(next.message)
            _ = events.removeFirst()
        }
    }
}

/// A channel message on its way to the render thread, with the sample time to play it at.
struct ScheduledMessage {
    /// Play at the next block (immediate delivery, releases).
    static let now = Int64.min

    var message: MIDIMessage = .activeSensing
    var sampleTime: Int64 = now
}
