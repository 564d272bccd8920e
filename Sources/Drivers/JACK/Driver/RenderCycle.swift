import Atomics
import AudioGraph
import SeqplaySupport

/// JACK's process callback: asks the output's cycle for the frames JACK wants (in pieces no longer
/// than the engine renders at once, should the server's block grow) and copies them into the ports.
/// No allocation, lock, logging or I/O.
// Why unchecked: `cycle`, `chunkFrames` and `handlers` are set before the client is activated; after that the process callback alone touches its buffers, the rest are atomics.
final class ProcessCycle: JACKProcessHandler, @unchecked Sendable {
    private let ports: [JACKAudioPort]
    /// This cycle's port buffers (made once, refilled each cycle: no allocation).
    private var buffers: [UnsafeMutableBufferPointer<Float>]
    /// Set by `prepare` before the client is activated; read only by the process callback after.
    private var cycle: AudioDriverCycle?
    private var chunkFrames = 0
    /// Called at the start and end of every cycle (MIDI ports); set before the client is activated.
    var handlers: [any JACKCycleHandler] = []
    /// Raised once the ports are connected: until then, and after stop, the callback plays silence.
    let rendering = ManagedAtomic(false)
    let cycles = ManagedAtomic(0)
    let xruns = ManagedAtomic(0)
    let freewheeling = ManagedAtomic(false)
    let freewheelCycles = ManagedAtomic(0)
    private let serverWentAway = ManagedAtomic(false)
    /// The cycle count `awaitCycles` waits for (Int.max: none), and the post that tells it the count was reached.
    private let awaitedCycle = ManagedAtomic(Int.max)
    private let cycleReached = PostedSemaphore()

    init(ports: [JACKAudioPort]) {
        self.ports = ports
        buffers = Array(repeating: UnsafeMutableBufferPointer(start: nil, count: 0), count: ports.count)
    }

    func prepare(cycle: AudioDriverCycle, chunkFrames: Int) {
        self.cycle = cycle
        self.chunkFrames = chunkFrames
    }

    /// Waits until the process callback has run `count` more cycles, or until the monotonic `deadline`
    /// (a stalled server): the callback posts once when the count is reached.
    func awaitCycles(_ count: Int, until deadline: UInt64) {
        cycleReached.take()  // a post left by an earlier wait that timed out
        awaitedCycle.store(cycles.load(ordering: .acquiring) + count, ordering: .releasing)
        if !cycleReached.wait(until: deadline) { awaitedCycle.store(.max, ordering: .releasing) }
    }

    var isServerGone: Bool { serverWentAway.load(ordering: .acquiring) }

    /// The server shut down: the output ends (called on libjack's notification thread).
    func serverGone() {
        serverWentAway.store(true, ordering: .releasing)
        cycle?.fail(AudioDriverFailure(code: 1))
    }

    func process(frameCount: Int) -> Bool {
        let count = cycles.wrappingIncrementThenLoad(ordering: .acquiringAndReleasing)
        let awaited = awaitedCycle.load(ordering: .acquiring)
        if count >= awaited, awaitedCycle.compareExchange(expected: awaited, desired: .max, ordering: .acquiringAndReleasing).exchanged {
            cycleReached.post()
        }
        if freewheeling.load(ordering: .relaxed) { freewheelCycles.wrappingIncrement(ordering: .relaxed) }
        for index in ports.indices { buffers[index] = ports[index].buffer(frameCount: frameCount) }
        let sampleTime = cycle?.sampleTime ?? 0
        // By index (here and below): iterating the elements themselves allocates in unoptimized builds.
        for index in handlers.indices { handlers[index].beginCycle(frameCount: frameCount, sampleTime: sampleTime) }
        let rendered = render(frameCount: frameCount)
        for index in handlers.indices { handlers[index].endCycle(frameCount: frameCount, renderedFrames: rendered) }
        return true
    }

    /// Fills the ports with the output's next `frameCount` frames (silence where it has none);
    /// returns how many frames the output rendered.
    private func render(frameCount: Int) -> Int {
        guard let cycle, rendering.load(ordering: .acquiring) else {
            silence(from: 0, to: frameCount)
            return 0
        }
        var done = 0, rendered = 0
        while done < frameCount {
            let frames = min(frameCount - done, chunkFrames)
            guard let block = cycle.render(frameCount: frames) else {
                silence(from: done, to: done + frames)
                done += frames
                continue
            }
            let blockFrames = min(block.frameLength, frames)
            for channel in buffers.indices {
                _ = UnsafeMutableBufferPointer(rebasing: buffers[channel][done..<done + blockFrames])
                    .update(fromContentsOf: UnsafeBufferPointer(rebasing: block[channel][0..<blockFrames]))
            }
            done += blockFrames
            rendered += blockFrames
            if blockFrames < frames { break }  // the end of a limited run
        }
        silence(from: done, to: frameCount)
        return rendered
    }

    private func silence(from start: Int, to end: Int) {
        guard start < end else { return }
        // By index: iterating the array (`for output in buffers`) allocates in unoptimised builds.
        for channel in buffers.indices {
            UnsafeMutableBufferPointer(rebasing: buffers[channel][start..<end]).update(repeating: 0)
        }
    }
}
