import Atomics
import AudioGraph
import MIDIFile
import Player
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// Plays a `SongRenderer` in real time through a `RealtimeOutput` (a sound card, or `NullOutput`):
/// the output's render thread pulls each period from the renderer, so the `MusicPlayer` drives the
/// sampler from inside the render callback with the same block-exact timing as an offline render,
/// whatever the period size.
///
/// ```swift
/// let playback = try SongPlayback(sequence: song, soundFontPaths: fonts, options: RenderOptions(), output: output)
/// try playback.start()
/// playback.waitUntilFinishedOrEnded()
/// playback.stop(draining: true)
/// ```
///
/// Control (start, pause, resume, seek, stop) comes from one thread, the control thread. Pause and
/// seek use a lock-free handoff: the control thread raises a hold request (a ticket number); the render
/// thread, before its next block, sees it, acknowledges the ticket and plays silence instead of touching
/// the renderer. Once acknowledged, the control thread owns the renderer: a seek (which allocates the
/// chased controller state) runs there, never on the render thread, and the hold is lowered again.
// Why unchecked: the renderer belongs to the render thread except while the hold (atomic tickets) hands it to the control thread.
public final class SongPlayback: RealtimeRenderSource, @unchecked Sendable {
    public let renderer: SongRenderer
    public let output: RealtimeOutput

    /// 0: render. Otherwise the ticket of the hold the control thread asks for.
    private let holdRequest = ManagedAtomic<Int>(0)
    /// The last hold ticket the render thread acknowledged (it renders nothing while held).
    private let acknowledgedHold = ManagedAtomic<Int>(0)
    private let finished = ManagedAtomic<Bool>(false)
    private let ended = ManagedAtomic<Bool>(false)
    /// Posted when `finished` or `ended` turns true (by the render thread) and by `wakeWaiters()`.
    private let changed = PostedSemaphore()
    /// Posted when the render thread acknowledges a new hold ticket, and when playback ends.
    private let acknowledged = PostedSemaphore()
    private var lastTicket = 0
    /// Whether the user paused (control thread only).
    public private(set) var isPaused = false
    /// Called on the control thread after each seek, with the player sample playback goes on from,
    /// while the render thread is still held off: where another destination following the song (a
    /// JACK MIDI output's player) seeks too. Set before `start`.
    public var onSeek: ((Int64) -> Void)?

    /// Playback of `renderer` on `output`. The renderer must render the output's sample rate and
    /// channel count, in blocks of at least a period.
    public init(renderer: SongRenderer, output: RealtimeOutput) throws(AudioOutputError) {
        let format = renderer.engine.outputFormat
        guard Int(format.sampleRate) == output.sampleRate, format.channelCount == output.channelCount else {
            throw .formatMismatch(engine: format, outputSampleRate: output.sampleRate, outputChannelCount: output.channelCount)
        }
        guard renderer.options.blockFrames >= output.periodFrames else {
            throw .periodTooLong(periodFrames: output.periodFrames, engineMaximumFrameCount: renderer.options.blockFrames)
        }
        self.renderer = renderer
        self.output = output
    }


    /// Playback of `sequence` through the sampler graph `options` describe, rendered at the output's
    /// sample rate in blocks of its period, with the level metered (for a status line).
    public convenience init(sequence: MusicSequence, soundFontPaths: [String], options: RenderOptions,
                            output: RealtimeOutput) throws(RenderError) {
        try self.init(song: PreparedSong(sequence), soundFontPaths: soundFontPaths, options: options, output: output)
    }

    /// Playback of `song`, prepared once for every destination that plays it (a song session's
    /// ports and network too), as `init(sequence:soundFontPaths:options:output:)` plays a sequence.
    public convenience init(song: PreparedSong, soundFontPaths: [String], options: RenderOptions,
                            output: RealtimeOutput) throws(RenderError) {
        var options = options
        options.sampleRate = output.sampleRate
        options.blockFrames = output.periodFrames
        options.outputChannelCount = output.channelCount
        options.metersLevel = true
        options.lv2Worker = .thread
        let renderer = try SongRenderer(song: song, soundFontPaths: soundFontPaths, options: options)
        do throws(AudioOutputError) {
            try self.init(renderer: renderer, output: output)
        } catch {
            throw .engine("\(error)")
        }
    }

    /// Starts the render thread. Playback then runs until `stop`, or by itself forever: the song's
    /// end is signalled by `isFinished`, after which the output keeps playing the dying sound.
    /// `source`, when given, stands in front of this playback on the render thread (a transport
    /// follower): it calls `renderBlock` for the periods that play and `skipBlock` for the others.
    public func start(through source: (any RealtimeRenderSource)? = nil) throws(AudioOutputError) {
        try output.start(engine: renderer.engine, source: source ?? self) { [ended, weak self] _ in
            ended.store(true, ordering: .releasing)
            self?.playbackEnded()
        }
    }

    /// Waits until the song and its tail have played (`isFinished`) or the render thread has ended
    /// (`hasEnded`), or, once `wakeWaiters()` is called, `interrupted` is true. Woken by the render
    /// thread when either happens: no polling. Call it from one thread at a time.
    public func waitUntilFinishedOrEnded(unless interrupted: () -> Bool = { false }) {
        // A post counts until taken, so a change or a wake between a look and the wait is never lost.
        while !interrupted() && !isFinished && !hasEnded { changed.wait() }
    }

    /// Wakes `waitUntilFinishedOrEnded` so that it asks its `interrupted` again (after making it true).
    public func wakeWaiters() { changed.post() }

    /// The render thread has ended: whoever waits for the song or for a hold wakes.
    private func playbackEnded() {
        changed.post()
        acknowledged.post()
    }

    /// True once the song and its tail have played (the control thread then calls `stop(draining: true)`).
    public var isFinished: Bool { finished.load(ordering: .acquiring) }

    /// True once the render thread has ended: after `stop`, or by itself when the device failed
    /// (`stop` then returns the failure).
    public var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Where the song is, in seconds of player time.
    public var positionSeconds: Double { Double(renderer.playerPosition) / Double(renderer.player.sampleRate) }

    /// The song's length in seconds of player time (loops included).
    public var durationSeconds: Double { renderer.player.durationInSeconds }

    /// Stops the render thread (see `RealtimeOutput.stop`) and returns how playback ended.
    @discardableResult
    public func stop(draining: Bool) -> PlaybackEnd { output.stop(draining: draining) }

    /// Pauses: silence from the next period on, the song stays where it is.
    public func pause() {
        isPaused = true
        holdRequest.store(nextTicket(), ordering: .releasing)
    }

    /// Plays on from where the song was paused.
    public func resume() {
        isPaused = false
        holdRequest.store(0, ordering: .releasing)
    }

    /// Moves by `seconds` (negative: back), clamped to the song. Returns false when the render thread
    /// did not let go of the renderer within a second (the output has stopped).
    @discardableResult
    public func seek(bySeconds seconds: Double) -> Bool {
        seek(toSample: renderer.playerPosition + Int64((seconds * Double(renderer.player.sampleRate)).rounded()))
    }

    /// Moves to player sample `sample` (clamped to the song): notes end, the controllers and programs
    /// of that point are sent; with `silencing`, every voice also stops at once (no release
    /// tails). Same hold and result as `seek(bySeconds:)`.
    @discardableResult
    public func seek(toSample sample: Int64, silencing: Bool = false) -> Bool {
        withRendererHeld {
            renderer.seek(toSample: sample)
            if silencing { renderer.samplers.forEach { $0.allSoundsOff() } }
            onSeek?(renderer.playerPosition)
            finished.store(false, ordering: .releasing)
        }
    }

    /// Ends every sounding note (Ctrl-C: before draining the device). Same hold as `seek`.
    @discardableResult
    public func allNotesOff() -> Bool {
        withRendererHeld { renderer.samplers.forEach { $0.allNotesOff() } }
    }

    /// Holds the render thread off the renderer, runs `body`, then lets it render again (unless paused).
    private func withRendererHeld(_ body: () -> Void) -> Bool {
        let ticket = nextTicket()
        holdRequest.store(ticket, ordering: .releasing)
        defer { holdRequest.store(isPaused ? ticket : 0, ordering: .releasing) }
        // The render thread posts `acknowledged` when it takes a new ticket, and the end of playback posts it too.
        let deadline = MonotonicClock.now() + 1_000_000_000
        while acknowledgedHold.load(ordering: .acquiring) != ticket {
            guard !hasEnded, MonotonicClock.now() < deadline else { return false }
            acknowledged.wait(until: deadline)
        }
        body()
        return true
    }

    /// The render thread holds off the renderer for ticket `hold`: it says so, and wakes the control
    /// thread once per ticket (a futex wake: no lock, no allocation).
    private func acknowledge(_ hold: Int) {
        guard acknowledgedHold.load(ordering: .relaxed) != hold else { return }
        acknowledgedHold.store(hold, ordering: .releasing)
        acknowledged.post()
    }

    private func nextTicket() -> Int {
        lastTicket += 1
        return lastTicket
    }

    /// The render thread's entry point, once per period: silence while held, else the renderer's next
    /// `frameCount` frames. No allocation, locks or I/O.
    public func renderBlock(frameCount: Int) -> AudioBuffer? {
        let hold = holdRequest.load(ordering: .acquiring)
        if hold != 0 {
            acknowledge(hold)
            return nil
        }
        let block = renderer.renderBlock(frameCount: frameCount)
        if renderer.isFinished && !finished.load(ordering: .relaxed) {
            finished.store(true, ordering: .releasing)
            changed.post()  // a futex wake: no lock, no allocation
        }
        return block
    }

    /// The render thread's entry point for a period that plays nothing (a transport standing still):
    /// acknowledges a hold the control thread asks for and leaves the song where it is. No
    /// allocation, locks or I/O.
    public func skipBlock() {
        let hold = holdRequest.load(ordering: .acquiring)
        if hold != 0 { acknowledge(hold) }
    }
}
