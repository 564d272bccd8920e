import Atomics
import AudioGraph
import AudioOutput
import JACK

/// JACK's process callback: renders the engine for the cycle's frames straight into the output
/// ports. No allocation, lock, logging or I/O.
final class RenderCycle: JACKProcessHandler, @unchecked Sendable {
    private let ports: [JACKAudioPort]
    /// This cycle's port buffers (made once, refilled each cycle: no allocation).
    private var buffers: [UnsafeMutableBufferPointer<Float>]
    private let state: JACKOutputState
    /// Set by `prepare` before the client is activated, read only by the process callback after.
    private var source: (any RealtimeRenderSource)?
    private var maximumFrames = 0
    private var frameLimit: Int64?
    private var played: Int64 = 0

    init(ports: [JACKAudioPort], state: JACKOutputState) {
        self.ports = ports
        self.state = state
        buffers = Array(repeating: UnsafeMutableBufferPointer(start: nil, count: 0), count: ports.count)
    }

    func prepare(source: any RealtimeRenderSource, maximumFrames: Int, frameLimit: Int64?) {
        self.source = source
        self.maximumFrames = maximumFrames
        self.frameLimit = frameLimit
        played = 0
    }

    func process(frameCount: Int) -> Bool {
        for index in ports.indices { buffers[index] = ports[index].buffer(frameCount: frameCount) }
        state.cycles.wrappingIncrement(ordering: .releasing)
        if state.freewheeling.load(ordering: .relaxed) { state.freewheelCycles.wrappingIncrement(ordering: .relaxed) }
        guard let source, !state.stopRequested.load(ordering: .acquiring), !state.completed.load(ordering: .relaxed) else {
            state.released.store(true, ordering: .releasing)
            silence(from: 0, frameCount: frameCount)
            return true
        }
        guard state.rendering.load(ordering: .acquiring), !state.paused.load(ordering: .relaxed) else {
            silence(from: 0, frameCount: frameCount)
            return true
        }
        var done = 0
        while done < frameCount {
            var frames = min(frameCount - done, maximumFrames)
            if let frameLimit { frames = Int(min(Int64(frames), frameLimit - played)) }
            guard frames > 0 else { break }
            if let block = source.renderBlock(frameCount: frames) {
                for channel in buffers.indices {
                    _ = UnsafeMutableBufferPointer(rebasing: buffers[channel][done..<done + frames])
                        .update(fromContentsOf: UnsafeBufferPointer(rebasing: block[channel][0..<frames]))
                }
                played += Int64(frames)
            } else {
                silence(from: done, frameCount: frames)
            }
            done += frames
        }
        if done < frameCount { silence(from: done, frameCount: frameCount - done) }
        state.framesPlayed.store(played, ordering: .relaxed)
        if let frameLimit, played >= frameLimit { state.completed.store(true, ordering: .releasing) }
        return true
    }

    private func silence(from offset: Int, frameCount: Int) {
        for output in buffers {
            UnsafeMutableBufferPointer(rebasing: output[offset..<offset + frameCount]).update(repeating: 0)
        }
    }
}
