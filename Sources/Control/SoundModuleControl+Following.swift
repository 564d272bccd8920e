import Foundation
import Sampler
import SeqplaySupport
import Synchronization

extension SoundModuleControl {
    // MARK: Following the samplers

    /// Starts following what the samplers play (a keyboard's program changes, volume and pan), every 10 ms.
    public func start() {
        following.start(name: "seqplay control") { [weak self, following] in
            // A period, not a poll for something awaited: the render thread publishes without signalling.
            repeat { self?.poll() } while !following.waitForStop(nanoseconds: 10_000_000)
        }
    }

    /// Stops following the samplers (and waits for the thread that did).
    public func stop() {
        following.stop()
    }

    /// Takes what the samplers' render threads published since the last look into the state and
    /// tells subscribers; returns whether anything changed.
    @discardableResult
    public func poll() -> Bool {
        model.withLock { model in
            var events: [ControlEvent] = []
            for (index, sampler) in samplers.enumerated() {
                let generation = sampler.channelStatus.generation
                guard generation != model.seenGenerations[index] else { continue }
                model.seenGenerations[index] = generation
                for channel in 0..<16 {
                    let status = sampler.channelStatus[channel]
                    guard status != model.seen[index][channel] else { continue }
                    model.seen[index][channel] = status
                    let updated = model.channelState(channel, from: status, mute: model.current.channels[channel].mute)
                    if updated != model.current.channels[channel] {
                        model.current.channels[channel] = updated
                        events.append(.channel(updated))
                    }
                }
            }
            emit(events)  // under the lock: subscribers get changes in the order the state took them
            return !events.isEmpty
        }
    }

    /// Waits (up to `timeout` s, holding no lock) until every sampler's render thread has ended two
    /// cycles since the last command that changes what the render thread publishes was queued, then
    /// polls: that command's effect is in `state` when this returns. Returns at once when nothing is
    /// waiting. A render cycle takes milliseconds; the timeout only matters when the host is starved
    /// of CPU or a sampler does not render.
    public func settle(timeout: Double = 1) {
        guard let cycles = model.withLock({ $0.unsettledCycles }) else { return }
        let deadline = MonotonicClock.now() + UInt64(nanoseconds: timeout)
        for (sampler, start) in zip(samplers, cycles) {
            guard sampler.channelStatus.waitForCycles(2, after: start, deadline: deadline) else { break }
        }
        poll()
        model.withLock { if $0.unsettledCycles == cycles { $0.unsettledCycles = nil } }
    }

    /// Notes that the render thread must play `cycles`' command before the state shows it (`settle`).
    func awaitRender(after cycles: [UInt64]) {
        model.withLock { $0.unsettledCycles = cycles }
    }
}
