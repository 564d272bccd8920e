import AudioFiles
import AudioGraph
import SoundFontFile
import SeqplaySupport
import Effects
import Sampler
import LV2
import MIDICore
import MIDIFile
import Player

/// Rendering block by block: the position, seeking, and the next block of the song and its tail.
extension SongRenderer {
    // MARK: Position

    /// Where the player is, in its samples (0 = the start of playback, `player.durationInSamples` =
    /// the end). Readable from another thread while rendering (a snapshot).
    public var playerPosition: Int64 { engine.sampleTime + router.offset }

    /// Moves playback to player sample `sampleTime` (clamped to the song): notes sounding end, the
    /// controllers and programs of that point are sent, and rendering carries on from there. Not
    /// real-time safe, and not while a block renders: call it between blocks from the rendering
    /// thread, or while that thread is held off (`SongPlayback` does this). With channel groups on
    /// several threads, what they rendered ahead is dropped; the notes sounding then release from
    /// where the groups had got to, so the first second after the seek may differ from one thread's.
    public func seek(toSample sampleTime: Int64) {
        let target = min(max(0, sampleTime), player.durationInSamples)
        player.seek(toSample: target)
        router.offset = target - engine.sampleTime
        if let channelGroups { channelGroups.discardRenderedAhead() } else { router.clear() }
        length.move(toFrame: Int64((Double(target) / speed).rounded()))
        limitRenderingAhead()
    }

    /// Tells the channel groups the last engine frame a render to the end pulls from here (a block
    /// more for varispeed's rounding), so they do not render ahead past it.
    func limitRenderingAhead() {
        let engineFrames = (Double(maximumFrames - renderedFrames) * speed).rounded(.up)
        channelGroups?.renderAheadLimit = engine.sampleTime + Int64(engineFrames) + Int64(effectLatencyFrames + options.blockFrames)
    }

    /// Puts `wrap(source)` between the player and the router that feeds the sampler(s) and the LV2
    /// instruments, e.g. to record the events they get (every channel's, in player time). Before rendering.
    public func interceptEvents(_ wrap: (any ScheduledMIDISource) -> any ScheduledMIDISource) {
        router.source = wrap(router.source)
    }

    // MARK: Rendering

    /// Renders the next block (at most `options.blockFrames` frames, never past the song's end
    /// or the tail's) and returns it, valid until the next call; nil once finished. In the tail, a
    /// block whose peak is below `RenderOptions.silenceThreshold` ends the render (when the tail
    /// stops at silence) and is still returned: the song and its tail go by `RenderLength`, as an
    /// engine's render to a file does. Real-time safe.
    public func renderNextBlock() -> AudioBuffer? {
        guard !isFinished else { return nil }
        followEffectLatency()
        let frameCount = length.nextBlockFrames(atMost: options.blockFrames)
        if frameCount > 0, let silence = pendingSilence(frameCount: frameCount) { return silence }
        return length.renderNextBlock(atMost: options.blockFrames, by: { pull(frameCount: $0) })
    }

    /// Renders exactly `frameCount` frames (1...`options.blockFrames`), as a real-time output needs
    /// each period: like `renderNextBlock`, but the last block of the song or tail is not cut short,
    /// and rendering goes on (the sound dying away) after `isFinished` turns true. Real-time safe.
    public func renderBlock(frameCount: Int) -> AudioBuffer? {
        followEffectLatency()
        let silent = pendingSilenceFrames
        if silent >= frameCount { return pendingSilence(frameCount: frameCount) }
        guard let block = pull(frameCount: frameCount - silent) else { return nil }
        guard let gap = pendingSilence(frameCount: silent) else {
            length.advance(over: block)
            return block
        }
        // Silence, then the sound: one block of `frameCount` frames.
        gap.frameLength = frameCount
        gap.copy(from: block, frameCount: block.frameLength, toOffset: silent)
        length.advance(over: block)
        return gap
    }

    /// Keeps output frame 0 the song's sample 0 when an LV2 effect's reported latency changes while
    /// rendering (read after each of its runs): the frames it grew by are rendered and dropped, the frames it
    /// fell by are put in as silence before the next sound. Between blocks; real-time safe.
    func followEffectLatency() {
        guard lv2Effects.count > 0 else { return }
        var latency = fixedEffectLatencyFrames
        for index in lv2Effects.indices { latency += lv2Effects[index].latencyFrames }
        guard latency != effectLatencyFrames else { return }
        let change = latency - effectLatencyFrames
        effectLatencyFrames = latency
        // In output frames, net of silence still pending.
        let frames = pendingSilenceFrames - Int((Double(change) / speed).rounded())
        pendingSilenceFrames = max(0, frames)
        var skipping = max(0, -frames)
        while skipping > 0, let block = pull(frameCount: min(options.blockFrames, skipping)) {
            skipping -= block.frameLength
        }
        limitRenderingAhead()
    }

    /// Up to `frameCount` frames of the silence pending (none: nil), counted as rendered.
    func pendingSilence(frameCount: Int) -> AudioBuffer? {
        guard pendingSilenceFrames > 0 else { return nil }
        let frames = min(frameCount, pendingSilenceFrames)
        latencyGap.frameLength = frames
        latencyGap.clear()
        pendingSilenceFrames -= frames
        length.advance(insertedFrames: frames)
        return latencyGap
    }

    func pull(frameCount: Int) -> AudioBuffer? {
        varispeed?.renderBlock(frameCount: frameCount) ?? engine.renderBlock(frameCount: frameCount)
    }
}
