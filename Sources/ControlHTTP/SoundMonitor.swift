import AudioGraph
import MIDICore
import SeqplaySupport
import Sampler
import Synchronization

/// What a sound module's web page shows moving: the level of what it plays (a `LevelMeterTap` on the
/// engine's main mixer) and the notes its samplers play (seen on the render thread as each sampler
/// pulls its events, passed on through a lock-free queue; nothing allocates or locks there). Install
/// it before the engine starts; it only watches, so what is heard does not change.
public final class SoundMonitor: Sendable {
    /// The output's level, read at any time from any thread.
    public let meter = LevelMeterTap(peakFallRate: 30, holdDuration: 1, rmsWindow: 0.2)
    /// The queues of the samplers' watched sources (each filled by the render thread, emptied here).
    private let queues = Mutex<[SingleProducerQueue<NoteWatchingSource.Event>]>([])

    /// A monitor not yet installed.
    public init() {}

    /// Meters `engine`'s main mixer and watches the notes `samplers` get from their event sources (set
    /// those first). Call once, before the engine starts.
    public func install(on engine: AudioEngine, samplers: [SamplerNode]) {
        engine.mainMixerNode.installTap(meter, at: .output(bus: 0))
        for sampler in samplers {
            guard let source = sampler.eventSource else { continue }
            let watcher = NoteWatchingSource(base: source, target: sampler)
            sampler.eventSource = watcher
            queues.withLock { $0.append(watcher.queue) }
        }
    }

    /// One note the samplers played: a note-on (velocity > 0) or its end (velocity 0).
    struct Note: Equatable, Sendable {
        /// 0...15 (the events' JSON shows it 1...16).
        var channel: Int
        var key: Int
        var velocity: Int
    }

    /// The notes played since the last call (at most `limit`; the rest wait for the next call).
    func takeNotes(limit: Int = 256) -> [Note] {
        queues.withLock { queues in
            var notes: [Note] = []
            for queue in queues {
                while notes.count < limit, let event = queue.removeFirst() {
                    notes.append(Note(channel: Int(event.channel), key: Int(event.key), velocity: Int(event.velocity)))
                }
            }
            return notes
        }
    }

    /// The output's peak level per channel in dBFS, -120 for silence (two channels for stereo).
    func peakLevels() -> [Double] {
        (0..<meter.channelCount).map { Double(max(-120, meter.level(ofChannel: $0).peak)) }
    }
}

/// A sampler's event source with the notes it delivers copied to a queue on the way (render thread:
/// no allocation, no lock). It sends each message to the sampler it was made for.
final class NoteWatchingSource: ScheduledMIDISource, MIDIReceiver {
    struct Event {
        var channel: UInt8
        var key: UInt8
        var velocity: UInt8
    }

    let base: any ScheduledMIDISource
    private unowned(unsafe) let target: SamplerNode
    /// Notes for the page; when it is full (nobody reads), notes are dropped, never waited for.
    let queue = SingleProducerQueue<Event>(capacity: 1024, filler: Event(channel: 0, key: 0, velocity: 0))

    init(base: any ScheduledMIDISource, target: SamplerNode) {
        self.base = base
        self.target = target
    }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        base.deliverEvents(before: sampleTime, to: self)
    }

    var nextEventSampleTime: Int64? { base.nextEventSampleTime }

    func receive(_ message: MIDIMessage) {
        switch message {
        case .noteOn(let channel, let note, let velocity):
            queue.append(Event(channel: channel, key: note, velocity: velocity))
        case .noteOff(let channel, let note, _):
            queue.append(Event(channel: channel, key: note, velocity: 0))
        default:
            break
        }
        target.receive(message)
    }
}
