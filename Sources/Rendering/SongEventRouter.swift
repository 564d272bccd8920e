import Atomics
import MIDICore
import SeqplaySupport

/// The one path of a render's song events: pulls the renderer's one `MusicPlayer` (through `source`,
/// which a wrapper may stand in front of: `SongRenderer.interceptEvents`) on the thread driving the
/// render, and queues each event, with the engine sample it is due at, for the consumer its channel
/// belongs to: the sampler's channel groups (or the one sampler), then the LV2 instruments, each
/// playing channels of its own (messages of no channel go to every consumer). The player hands each
/// message over with its time (`MIDIReceiver.receive(_:at:)`), so nothing is worked out again here.
///
/// A channel group's sampler takes its queue (`queues[g]`) when its time comes, on whatever thread
/// renders it, so groups may render on other threads and ahead of the mix (`pull(before:)` is then
/// called by `GroupRenderAhead`). The one sampler and the LV2 instruments render on the driving
/// thread and take their events through `pullingSource(of:)`, which pulls the player as far as they
/// ask first. No allocation or lock after init.
final class SongEventRouter: MIDIReceiver {
    var source: any ScheduledMIDISource
    /// Player sample time minus engine sample time: the engine's time runs on through a seek, the
    /// player's jumps, and the offset bridges the two. Changed only between blocks (see `clear`).
    var offset: Int64 = 0
    /// One queue per consumer, in the order of the channels given at init.
    let queues: [GroupEventQueue]
    /// Queues `0..<groupCount` belong to the sampler's channel groups (the voice budget counts their notes).
    let groupCount: Int
    private let consumerOfChannel: [Int]
    /// Every event due before this engine time has been pulled from the source.
    private var pulledBefore: Int64 = .min
    /// The end of the pull in progress: what a source that cannot say when (live input) hands over is due just before it.
    private var pullingBefore: Int64 = 0
    /// Called when group `g`'s queue is full: returns true once its renderer may have made room
    /// (the event is queued again), false when it will not (the event is dropped). Unset, a full
    /// queue drops at once.
    var waitForRoom: ((Int) -> Bool)?

    /// Routes `source`'s events to consumers playing `channels[c]` (0-based) each; the first
    /// `groupCount` are the sampler's channel groups.
    init(source: any ScheduledMIDISource, channels: [[Int]], groupCount: Int) {
        self.source = source
        self.groupCount = groupCount
        queues = channels.map { _ in GroupEventQueue() }
        var map = [Int](repeating: -1, count: 16)
        for (index, played) in channels.enumerated() { for channel in played where (0..<16).contains(channel) { map[channel] = index } }
        consumerOfChannel = map
    }

    /// Queues every event of the source due before engine time `sampleTime` (nothing when that much
    /// is queued already).
    func pull(before sampleTime: Int64) {
        guard sampleTime > pulledBefore else { return }
        pullingBefore = sampleTime
        source.deliverEvents(before: sampleTime + offset, to: self)
        pulledBefore = sampleTime
        for queue in queues.indices { queues[queue].markQueued(before: sampleTime) }
    }

    /// The engine time of the source's next event not pulled yet (`Int64.min`: a source that cannot say).
    var nextUnpulledTime: Int64? {
        guard let next = source.nextEventSampleTime else { return nil }
        return next == .min ? .min : next - offset
    }

    /// Whether the pulling consumers' queues (the LV2 instruments') have room to pull further ahead than
    /// they need: channel groups rendering ahead stop there (half a queue), so the instruments, which
    /// take their events only as the mix reaches them, never lose one to a full queue.
    var hasRoomToPullAhead: Bool {
        for consumer in groupCount..<queues.count where queues[consumer].count >= GroupEventQueue.capacity / 2 { return false }
        return true
    }

    /// Marks where each group's note-on will be taken, for the voice budget; set before rendering.
    var ledger: VoiceLedger?

    /// Each consumer's receiver (the samplers, the instruments), which `clear()` hands the queued note-offs.
    var receivers: [any MIDIReceiver] = []

    /// Drops every queued event (after a seek), but hands each queued note-off to its consumer: its
    /// note may have started in what was rendered, and the player, which sent it, no longer holds it.
    /// Only while no consumer renders.
    func clear() {
        for consumer in queues.indices { queues[consumer].clear(releasing: receivers[consumer]) }
        pulledBefore = .min
    }

    /// A source for consumer `consumer` rendering on the driving thread: it pulls the player as far as it asks.
    func pullingSource(of consumer: Int) -> any ScheduledMIDISource {
        RoutedEventSource(router: self, queue: queues[consumer])
    }

    func receive(_ message: MIDIMessage) {
        receive(message, at: pullingBefore - 1)
    }

    func receive(_ message: MIDIMessage, at playerTime: Int64) {
        let time = playerTime - offset
        if let channel = message.channel {
            let consumer = consumerOfChannel[Int(channel)]
            guard consumer >= 0 else { return }
            queue(message, at: time, for: consumer)
            if consumer < groupCount, case .noteOn(_, _, let velocity) = message, velocity > 0 { ledger?.markNoteOn(dueAt: time) }
        } else {
            for consumer in queues.indices { queue(message, at: time, for: consumer) }
        }
    }

    private func queue(_ message: MIDIMessage, at time: Int64, for consumer: Int) {
        while !queues[consumer].append(message, at: time) {
            // A burst beyond the queue's capacity that its consumer cannot drain first: dropped.
            guard consumer < groupCount, let waitForRoom, waitForRoom(consumer) else { return }
        }
    }
}

/// A consumer's queue that pulls the router first: the source of the one sampler or of an LV2
/// instrument, which render on the thread driving the render.
private final class RoutedEventSource: ScheduledMIDISource {
    unowned let router: SongEventRouter
    let queue: GroupEventQueue

    init(router: SongEventRouter, queue: GroupEventQueue) {
        self.router = router
        self.queue = queue
    }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        router.pull(before: sampleTime)
        queue.deliverEvents(before: sampleTime, to: receiver)
    }

    /// The next event queued for this consumer, else the source's next not pulled (which may be another consumer's).
    var nextEventSampleTime: Int64? { queue.firstTime ?? router.nextUnpulledTime }
}

/// One consumer's events, due time first. The router adds (one thread), the consumer takes (one
/// thread, maybe another): no lock, no allocation.
final class GroupEventQueue: ScheduledMIDISource, Sendable {
    static let capacity = 16_384
    private struct TimedMessage {
        var time: Int64
        var message: MIDIMessage
    }
    private let events = SingleProducerQueue(capacity: capacity, filler: TimedMessage(time: 0, message: .tuneRequest))
    /// Every event due before this time is queued: when the queue is empty, the next event is no sooner.
    private let queuedBefore = ManagedAtomic<Int64>(0)

    /// Adds `message`, due at `time`; false when the queue is full.
    fileprivate func append(_ message: MIDIMessage, at time: Int64) -> Bool {
        events.append(TimedMessage(time: time, message: message))
    }

    fileprivate func markQueued(before time: Int64) { queuedBefore.store(time, ordering: .releasing) }

    fileprivate func clear(releasing receiver: any MIDIReceiver) {
        while let event = events.removeFirst() {
            if event.message.isNoteOff { receiver.receive(event.message) }
        }
    }

    /// Events queued and not taken yet.
    fileprivate var count: Int { events.count }

    /// The time of the first event queued, nil when none is.
    fileprivate var firstTime: Int64? { events.first?.time }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        while let event = events.first, event.time < sampleTime {
            events.removeFirst()
            receiver.receive(event.message, at: event.time)
        }
    }

    var nextEventSampleTime: Int64? { events.first?.time ?? queuedBefore.load(ordering: .acquiring) }
}
