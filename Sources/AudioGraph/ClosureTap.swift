/// A tap that runs a closure with the audio at a node's input or output, as
/// `AVAudioNode.installTap(onBus:bufferSize:format:block:)` does, but on the render thread itself: the
/// closure sees every block as it is rendered and may read or rewrite it. It must not allocate, lock,
/// block, log or do I/O (copy what it needs, e.g. a peak into an atomic; use `ObserveTap` to read the
/// audio on another thread).
// Why unchecked: the closure is the render thread's alone (set before the engine starts).
public final class ClosureTap: ProcessingTap, @unchecked Sendable {
    /// Called once per render cycle with the buffer (`frameLength == context.frameCount`).
    public let block: (AudioBuffer, RenderContext) -> Void

    public init(_ block: @escaping (AudioBuffer, RenderContext) -> Void) {
        self.block = block
    }

    public func process(_ buffer: AudioBuffer, context: RenderContext) { block(buffer, context) }
}

extension AudioNode {
    /// Installs a `ClosureTap` running `block` at `point` (by default, the audio leaving output 0) and
    /// returns it, for `removeTap`. Takes effect at the engine's next start.
    @discardableResult
    public func installTap(at point: TapPoint = .output(bus: 0),
                           block: @escaping (AudioBuffer, RenderContext) -> Void) -> ClosureTap {
        let tap = ClosureTap(block)
        installTap(tap, at: point)
        return tap
    }
}
