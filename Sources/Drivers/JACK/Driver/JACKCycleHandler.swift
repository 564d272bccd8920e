/// Something that takes part in every JACK cycle of a `JACKAudioDriver` beside the audio (a MIDI
/// input or output port of the same client): called on JACK's real-time thread, in the process
/// callback, before and after the output renders the cycle. It must not allocate, lock, log or do I/O.
package protocol JACKCycleHandler: AnyObject {
    /// The cycle of `frameCount` frames begins; the output's first frame of it is output sample
    /// `sampleTime` (`RealtimeOutput.sampleTime`).
    func beginCycle(frameCount: Int, sampleTime: Int64)
    /// The output rendered `renderedFrames` of the cycle's `frameCount` frames (0: silence, e.g.
    /// paused, held or not yet started).
    func endCycle(frameCount: Int, renderedFrames: Int)
    /// The client is active: make the handler's own connections (not real-time; before the output
    /// renders its first frame, so nothing is missed).
    func connectPorts(_ client: JACKClient) throws(JACKError)
}

extension JACKCycleHandler {
    public func endCycle(frameCount: Int, renderedFrames: Int) {}
    public func connectPorts(_ client: JACKClient) throws(JACKError) {}
}

extension JACKAudioDriver {
    /// Makes `handler` take part in every cycle, in the order added. Call before the output starts.
    package func addCycleHandler(_ handler: any JACKCycleHandler) {
        process.handlers.append(handler)
    }
}
