import MIDICore
import RealtimeSupport

/// Plays live MIDI (a `LiveMIDIQueue` filled by input threads) into a sampler at the sample times
/// matching the events' monotonic times: the `ScheduledMIDISource` of a sampler host.
///
/// At its first `deliverEvents` call it ties the engine's sample clock to the monotonic clock (that
/// sample renders now); from then on an event due at monotonic time `t` is delivered in the block
/// holding sample `anchorSample + (t - anchorTime + delay) · sampleRate`. The delay (a couple of
/// output periods) makes an event pushed at its own time still reach the queue before the block that
/// plays it is rendered, so events never slip to a later period by chance. Events already due are
/// delivered at once; later ones wait in the queue. Real-time safe: no allocation, locks or I/O.
public final class LiveMIDISchedule: ScheduledMIDISource, @unchecked Sendable {
    public let queue: LiveMIDIQueue
    public let sampleRate: Int
    /// Seconds between an event's time and the moment it sounds in the rendered audio.
    public let delay: Double
    private let delaySamples: Int64
    private var anchor: (sample: Int64, time: UInt64)?

    public init(queue: LiveMIDIQueue, sampleRate: Int, delay: Double) {
        self.queue = queue
        self.sampleRate = sampleRate
        self.delay = delay
        delaySamples = Int64((delay * Double(sampleRate)).rounded())
    }

    public func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        let anchor = self.anchor ?? (sampleTime, MonotonicClock.now())
        self.anchor = anchor
        while let event = queue.peek() {
            let offset = Int64(bitPattern: event.time &- anchor.time)
            guard anchor.sample + delaySamples + offset * Int64(sampleRate) / 1_000_000_000 < sampleTime else { return }
            receiver.receive(event.message)
            queue.pop()
        }
    }
}
