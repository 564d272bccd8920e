import EngineKernels

/// A render call in two halves: the control side (this thread, in time order) runs the events and each
/// voice's 64-sample control blocks, recording for every block the sample work (`SeqplayBlock`) and for
/// every stretch of a voice between two changes of its gain its mix; the sample side (`VoiceJobs`, on
/// the engine's threads) does that work at the end of each chunk of at most `VoiceJobs.chunkFrames` frames.
/// Events only change what later blocks do (or cut a voice, or start a pan glide, at their frame), so
/// every voice's samples stay where they are whatever the events around them.
extension SoundFontEngine {
    /// Starts a render call of `frames` frames into `left` and `right` (overwritten when it ends). Between
    /// `beginRender` and `endRender`, `advance(to:)` moves to a frame and `apply(_:)` plays there.
    public func beginRender(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        output = (left, right)
        outputFrames = max(frames, 0)
        chunkStart = 0
        now = 0
    }

    /// Renders up to `frame` of the call (at most its end; a frame already passed does nothing): messages
    /// applied next start on that sample.
    public func advance(to frame: Int) {
        guard output != nil else { return }
        let target = min(max(frame, chunkStart + now), outputFrames)
        while target - chunkStart > VoiceJobs.chunkFrames { finishChunk(VoiceJobs.chunkFrames) }
        advanceControl(to: target - chunkStart)
    }

    /// Renders the rest of the call and ends it.
    public func endRender() {
        guard output != nil else { return }
        advance(to: outputFrames)
        finishChunk(outputFrames - chunkStart)
        output = nil
    }

    /// Runs every voice's control work before chunk frame `frame`.
    func advanceControl(to frame: Int) {
        for v in 0..<polyphony where nextControl[v] <= frame { advanceVoice(v, to: frame) }
        now = frame
    }

    /// Runs voice `v`'s block boundaries before `frame` and its sample's end at or before it.
    func advanceVoice(_ v: Int, to frame: Int) {
        let voice = voices + v
        while statuses[v].active {
            if voice.pointee.endFrame <= frame {
                closeSegment(v, at: voice.pointee.endFrame)
                statuses[v].active = false
            } else if voice.pointee.nextBoundary < frame {
                let boundary = voice.pointee.nextBoundary
                closeSegment(v, at: boundary)
                startBlock(v, at: boundary)
            } else {
                break
            }
        }
        nextControl[v] = nextControlFrame(of: v)
    }

    /// Voice `v`'s control block at chunk frame `boundary`, and its sample work.
    func startBlock(_ v: Int, at boundary: Int) {
        let voice = voices + v
        voice.pointee.blockStart = boundary
        voice.pointee.nextBoundary = boundary + Self.blockSize
        voice.pointee.endFrame = .max
        controlBlock(v)
        guard statuses[v].active && voice.pointee.sounding else { return }
        let block = planBlock(v)
        if block.count < Self.blockSize { voice.pointee.endFrame = boundary + Int(block.count) }
        guard block.count > 0 else { return }
        if jobs.record(block, voice: v, bank: voice.pointee.bank, fresh: voice.pointee.freshHistory) { runJobs() }
        voice.pointee.freshHistory = false
    }

    /// Records voice `v`'s mix up to chunk frame `frame` (the current one when nil), with its gains
    /// gliding as they were; the next stretch starts there.
    func closeSegment(_ v: Int, at frame: Int? = nil) {
        let voice = voices + v
        let end = frame ?? now, from = voice.pointee.mixedTo
        guard end > from else { return }
        voice.pointee.mixedTo = end
        guard statuses[v].active && voice.pointee.sounding else { return }
        let count = end - from
        let mix = VoiceJobs.Mix(frame: Int32(from), count: Int32(count), offset: Int32(from - voice.pointee.blockStart),
                                ramp: Int32(clamping: voice.pointee.gainRampLeft),
                                gainLeft: voice.pointee.gainLeft, gainRight: voice.pointee.gainRight,
                                stepLeft: voice.pointee.gainLeftStep, stepRight: voice.pointee.gainRightStep,
                                targetLeft: voice.pointee.targetLeft, targetRight: voice.pointee.targetRight)
        recordSends(v, frame: from, count: count)
        if count >= voice.pointee.gainRampLeft {
            voice.pointee.gainLeft = voice.pointee.targetLeft; voice.pointee.gainRight = voice.pointee.targetRight
            voice.pointee.gainLeftStep = 0; voice.pointee.gainRightStep = 0
            voice.pointee.gainRampLeft = 0
        } else {
            voice.pointee.gainLeft += Float(count) * voice.pointee.gainLeftStep
            voice.pointee.gainRight += Float(count) * voice.pointee.gainRightStep
            voice.pointee.gainRampLeft -= count
        }
        if jobs.record(mix, voice: v) { runJobs() }
    }

    /// Ends voice `v` at the current frame.
    func stopVoice(_ v: Int) {
        closeSegment(v)
        statuses[v].active = false
        nextControl[v] = .max
    }

    /// Ends the chunk after `length` frames: the recorded work done, the groups summed into the output,
    /// the voices' frames counted from the next chunk.
    func finishChunk(_ length: Int) {
        advanceControl(to: length)
        for v in 0..<polyphony where statuses[v].active { closeSegment(v, at: length) }
        runJobs()
        if let output {
            jobs.sum(into: output.left + chunkStart, output.right + chunkStart, count: length)
            addEffects(to: output.left + chunkStart, output.right + chunkStart, count: length)
        }
        for v in 0..<polyphony where statuses[v].active {
            voices[v].blockStart -= length
            voices[v].nextBoundary -= length
            if voices[v].endFrame != .max { voices[v].endFrame -= length }
            voices[v].mixedTo -= length
            nextControl[v] = nextControlFrame(of: v)
        }
        chunkStart += length
        now = 0
    }

    /// Does the recorded sample work, reading the banks' points in place (no copy, no bounds checks).
    func runJobs() {
        withSamplePoints(ofBanksFrom: 0) {
            jobs.run(high: highPoints, low: lowPoints, blockBuffers: blockBuffers, filterHistories: filterHistories)
        }
    }

    /// Runs `body` with `highPoints` and `lowPoints` holding where the points of the banks from `index` on are.
    private func withSamplePoints(ofBanksFrom index: Int, _ body: () -> Void) {
        guard index < banks.count else { return body() }
        let hydra = banks[index].hydra
        hydra.sampleData.withUnsafeBufferPointer { high in
            hydra.sampleLowBytes.withUnsafeBufferPointer { low in
                highPoints[index] = high.baseAddress
                lowPoints[index] = hydra.has24BitSamples ? low.baseAddress : nil
                withSamplePoints(ofBanksFrom: index + 1, body)
            }
        }
    }
}
