import MIDICore

/// The simplest `ScheduledMIDISource`: a fixed list of events at sample times, delivered in order.
/// Delivery neither allocates nor locks, as the protocol demands.
public final class ScheduledEventList: ScheduledMIDISource, @unchecked Sendable {
    private let events: [(sampleTime: Int64, message: MIDIMessage)]
    private var next = 0
    /// Whether it tells the sampler when its next event is (as a song player does), or leaves the
    /// default answer, "ask before every block" (as live input does).
    private let announcesNextEvent: Bool
    /// The `before` argument of every call, for checking how the sampler asks (preallocated).
    public private(set) var deadlines: [Int64] = []

    public init(_ events: [(sampleTime: Int64, message: MIDIMessage)], announcesNextEvent: Bool = false) {
        self.events = events.sorted { $0.sampleTime < $1.sampleTime }
        self.announcesNextEvent = announcesNextEvent
        deadlines.reserveCapacity(100_000)
    }

    public var nextEventSampleTime: Int64? {
        guard announcesNextEvent else { return .min }
        return next < events.count ? events[next].sampleTime : nil
    }

    public func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        if deadlines.count < deadlines.capacity { deadlines.append(sampleTime) }
        while next < events.count, events[next].sampleTime < sampleTime {
            receiver.receive(events[next].message)
            next += 1
        }
    }
}
