import Atomics
import MIDICore
import SeqplaySupport

/// The live-input layer between MIDI endpoints and samplers: producers (ALSA input ports, network
/// sessions, JACK MIDI…) push timestamped MIDI into lock-free queues of their own; one clock model
/// (`LiveClock`) maps their timestamps to the sample time of the audio being rendered, following the
/// sound card's drift; one held-note table per producer releases a source's notes when it leaves;
/// each destination (`LiveInputDestination`) is the `ScheduledMIDISource` a sampler pulls on the
/// render thread, merging every producer's messages in time order.
///
/// Make it with the output's sample rate and period, make the samplers' event sources its
/// `destinations`, add producers (`addProducer`, at any time, each with its `LiveDelivery`), start
/// the output, and call `update()` about once a second from a control thread. Outside seqplay's own
/// modules it is an opaque handle, the one a `LiveSamplerInput` is attached to.
// Why unchecked: producers reach it only through their own lock-free queues, the render thread through its destinations; the clock line crosses in a seqlock (PublishedClockLine); set-up before the output starts.
public final class LiveMIDIInput: @unchecked Sendable {
    /// Producers a layer can have.
    package static let maximumProducers = 8
    /// The sampler renders, and asks for events before the middle of, blocks of this many frames.
    package static let blockFrames = 64

    package let clock: LiveClock
    /// What each sampler plays: one per sampler (an ALSA port's own, the network's).
    package private(set) var destinations: [LiveInputDestination] = []

    /// The producers, filled in order; `producerCount` says how many are ready.
    private let producerSlots = UnsafeMutablePointer<Unmanaged<LiveInputProducer>>.allocate(capacity: maximumProducers)
    private let producerCount = ManagedAtomic(0)
    /// Keeps the producers alive.
    private var producers: [LiveInputProducer] = []
    let lateEvents = ManagedAtomic(0)
    /// The most samples a late event came after its time (see `latestLateness`).
    let latestLateFrames = ManagedAtomic(0)
    /// Per channel, the destination every producer sends that channel's messages to instead of its own
    /// (-1: its own). See `route(channels:to:)`.
    private var channelRoutes = [Int](repeating: -1, count: 16)

    /// A layer with `destinationCount` destinations for audio at `sampleRate`, rendered in periods of
    /// `periodFrames`.
    package init(destinationCount: Int, sampleRate: Int, periodFrames: Int) {
        precondition(destinationCount > 0, "live input needs a destination")
        clock = LiveClock(sampleRate: Double(sampleRate), periodFrames: periodFrames)
        destinations = (0..<destinationCount).map { LiveInputDestination(index: $0, input: self) }
    }

    deinit {
        producerSlots.deallocate()
    }

    /// A new producer whose messages play as `delivery` says, with a queue of `capacity` messages to
    /// each destination. `nanosecondsPerTick`: the nominal length of a tick of its clock
    /// (`.producerClock` timestamps), e.g. 1 for a kernel queue's nanoseconds, 1e9 / rate for JACK
    /// frames. Call from one control thread.
    package func addProducer(name: String, delivery: LiveDelivery, capacity: Int = 4096,
                            nanosecondsPerTick: Double = 1) -> LiveInputProducer {
        let count = producerCount.load(ordering: .relaxed)
        precondition(count < Self.maximumProducers, "live input takes at most \(Self.maximumProducers) producers")
        let producer = LiveInputProducer(name: name, delivery: delivery, destinationCount: destinations.count, capacity: capacity,
                                         nanosecondsPerTick: nanosecondsPerTick)
        producer.channelRoutes = channelRoutes
        producers.append(producer)
        (producerSlots + count).initialize(to: .passUnretained(producer))
        producerCount.store(count + 1, ordering: .releasing)
        return producer
    }

    /// Sends the messages on `channels` (0-based) from every producer to destination `destination`, whichever
    /// destination the producer pushes them to (an LV2 instrument playing those channels of every source).
    /// Call before adding producers.
    package func route(channels: [Int], to destination: Int) {
        precondition(destinations.indices.contains(destination), "no destination \(destination)")
        for channel in channels where (0..<16).contains(channel) { channelRoutes[channel] = destination }
    }

    /// Follows the sound card's clock: fits and publishes the monotonic → sample time line from the
    /// periods rendered since the last call. Call about once a second from a control thread.
    package func update() {
        clock.update()
    }

    /// The sample time by which every message received until now is due: now through the clock
    /// (`outputSampleTime`, the output's position, before the first fit), plus the longest look-ahead
    /// of a producer and a block. Call from the control thread.
    package func dueSampleTimeOfReceivedMessages(outputSampleTime: Int64) -> Int64 {
        let now = clock.fittedSampleTime(atMonotonic: MonotonicClock.now()).map { max($0, outputSampleTime) } ?? outputSampleTime
        return now + (producers.compactMap(\.lookAheadFrames).max() ?? 0) + Int64(Self.blockFrames)
    }

    /// Timestamped events that arrived too late for their block and were played at the next one.
    package var lateEventCount: Int { lateEvents.load(ordering: .relaxed) }

    /// How late the latest of those events was, in seconds after its time (0 when none was late).
    package var latestLateness: Double { Double(latestLateFrames.load(ordering: .relaxed)) / clock.sampleRate }

    /// Messages dropped because a producer's queue was full (control thread).
    package var droppedCount: Int { producers.reduce(0) { $0 + $1.droppedCount } }

    // MARK: Render thread

    /// The producers ready now (render thread).
    func withProducers(_ body: (UnsafeBufferPointer<Unmanaged<LiveInputProducer>>) -> Void) {
        body(UnsafeBufferPointer(start: producerSlots, count: producerCount.load(ordering: .acquiring)))
    }
}

/// What one sampler plays from a `LiveMIDIInput`: every producer's messages for it, in the block they
/// belong to (see `LiveDelivery`). Set it as the sampler's `eventSource`. Real-time safe.
package final class LiveInputDestination: ScheduledMIDISource {
    package let index: Int
    private unowned let input: LiveMIDIInput
    /// Whether `nextEventSampleTime` says when the earliest queued message is due (an LV2 instrument places
    /// each message on its frame), rather than `Int64.min` ("ask at every block", as the sampler does).
    /// Use only on a destination other than 0 (destination 0 observes the output's periods as it is asked).
    package var reportsDueTimes = false

    init(index: Int, input: LiveMIDIInput) {
        self.index = index
        self.input = input
    }

    package func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        let halfBlock = Int64(LiveMIDIInput.blockFrames / 2)
        let clock = input.clock
        let blockStart = sampleTime - halfBlock
        let period = Int64(clock.periodFrames)
        if index == 0, blockStart % period < Int64(LiveMIDIInput.blockFrames) {
            clock.observePeriod(startingAt: blockStart - blockStart % period)
        }
        input.withProducers { producers in
            while true {
                // The earliest message at the head of a producer's queue.
                var earliest: (queue: Int, due: Int64)?
                for (position, unmanaged) in producers.enumerated() {
                    let producer = unmanaged.takeUnretainedValue()
                    guard let head = producer.queues[index].first else { continue }
                    let due = dueSample(head, clock: clock, lookAhead: producer.lookAheadFrames)
                    if earliest.map({ due < $0.due }) ?? true { earliest = (position, due) }
                }
                guard let (position, due) = earliest, due < sampleTime else { return }
                if due != QueuedMessage.immediately, due < blockStart - halfBlock {
                    input.lateEvents.wrappingIncrement(ordering: .relaxed)
                    let late = Int(blockStart - due)
                    var latest = input.latestLateFrames.load(ordering: .relaxed)
                    while late > latest {
                        (_, latest) = input.latestLateFrames.compareExchange(expected: latest, desired: late, ordering: .relaxed)
                    }
                }
                let queue = producers[position].takeUnretainedValue().queues[index]
                // With its due time when it has one: a receiver that places messages on their frame (an LV2
                // instrument) puts it there; the sampler takes it at once, as an untimed one.
                if due == QueuedMessage.immediately {
                    receiver.receive(queue.first!.message)
                } else {
                    receiver.receive(queue.first!.message, at: due)
                }
                queue.removeFirst()
            }
        }
    }

    /// With `reportsDueTimes`: the sample time the earliest queued message is due at (`Int64.min`: at once), or
    /// nil when none is queued. Without: `Int64.min`. Render thread.
    package var nextEventSampleTime: Int64? {
        guard reportsDueTimes else { return .min }
        let clock = input.clock
        var earliest: Int64?
        input.withProducers { producers in
            for unmanaged in producers {
                let producer = unmanaged.takeUnretainedValue()
                guard let head = producer.queues[index].first else { continue }
                let due = dueSample(head, clock: clock, lookAhead: producer.lookAheadFrames)
                if earliest.map({ due < $0 }) ?? true { earliest = due }
            }
        }
        return earliest
    }

    /// The sample time `message` plays at (`lookAhead` nil: immediate delivery): an output sample
    /// time as it is, a monotonic time through the clock model; plus the look-ahead.
    private func dueSample(_ message: QueuedMessage, clock: LiveClock, lookAhead: Int64?) -> Int64 {
        guard message.time != QueuedMessage.immediately, let lookAhead else { return QueuedMessage.immediately }
        if message.isOutputSampleTime { return message.time + lookAhead }
        guard let sample = clock.sampleTime(atMonotonic: UInt64(bitPattern: message.time)) else { return QueuedMessage.immediately }
        return sample + lookAhead
    }
}
