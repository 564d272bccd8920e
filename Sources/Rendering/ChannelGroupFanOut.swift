import Atomics
import MIDICore
import SeqplaySupport

/// Splits one event source among the groups' synthesizers: `pull(before:)` (on the thread driving
/// the render) takes every event due before a time from the shared source, stamped with its due
/// sample, and queues it for its channel's group (messages of no channel for every group). Each
/// group's sampler then takes its own events when their time comes, on whatever thread renders it,
/// so groups may render on other threads and ahead of the mix. No allocation or lock after init.
final class ChannelGroupFanOut: MIDIReceiver {
    var source: any ScheduledMIDISource
    let queues: [GroupEventQueue]
    private let groupOfChannel: [Int]
    private var stamp: Int64 = 0
    /// Called when group `g`'s queue is full: returns true once its renderer may have made room
    /// (the event is queued again), false when it will not (the event is dropped). Unset, a full
    /// queue drops at once.
    var waitForRoom: ((Int) -> Bool)?

    init(source: any ScheduledMIDISource, groups: ChannelGroups) {
        self.source = source
        queues = groups.groups.map { _ in GroupEventQueue() }
        var map = [Int](repeating: -1, count: 16)
        for (index, channels) in groups.groups.enumerated() { for channel in channels { map[channel] = index } }
        groupOfChannel = map
    }

    /// Queues every event of the shared source due before `sampleTime`, one due time at a time.
    func pull(before sampleTime: Int64) {
        while let next = source.nextEventSampleTime, next < sampleTime {
            // A source that cannot say when (.min) hands over everything due now.
            let upTo = next == .min ? sampleTime : next + 1
            stamp = next == .min ? sampleTime - 1 : next
            source.deliverEvents(before: upTo, to: self)
            if next == .min { break }
        }
        for group in queues.indices { queues[group].markQueued(before: sampleTime) }
    }

    /// Marks where each note-on will be taken, for the voice budget; set before rendering.
    var ledger: VoiceLedger?

    /// Each group's sampler, which `clear()` hands the queued note-offs.
    var samplers: [any MIDIReceiver] = []

    /// Drops every queued event (after a seek), but hands each queued note-off to its group's
    /// sampler: its note may have started in what was rendered, and the player, which sent it, no
    /// longer holds it. Only while no sampler renders.
    func clear() {
        for group in queues.indices { queues[group].clear(releasing: samplers[group]) }
    }

    func receive(_ message: MIDIMessage) {
        if let channel = message.channel {
            let group = groupOfChannel[Int(channel)]
            guard group >= 0 else { return }
            queue(message, forGroup: group)
            if case .noteOn(_, _, let velocity) = message, velocity > 0 { ledger?.markNoteOn(dueAt: stamp) }
        } else {
            for group in queues.indices { queue(message, forGroup: group) }
        }
    }

    private func queue(_ message: MIDIMessage, forGroup group: Int) {
        while !queues[group].append(message, at: stamp) {
            // A burst beyond the queue's capacity that its sampler cannot drain first: dropped.
            guard let waitForRoom, waitForRoom(group) else { return }
        }
    }
}

/// One group's events, due time first: the event source of that group's sampler. The fan-out adds
/// (one thread), the sampler takes (one thread, maybe another): no lock, no allocation.
final class GroupEventQueue: ScheduledMIDISource {
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

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        while let event = events.first, event.time < sampleTime {
            events.removeFirst()
            receiver.receive(event.message)
        }
    }

    var nextEventSampleTime: Int64? { events.first?.time ?? queuedBefore.load(ordering: .acquiring) }
}
