import Atomics
import AudioGraph
import Foundation
import JACK
import Rendering
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// The render-thread half of following the JACK transport: it stands in front of a `SongPlayback`
/// in JACK's process callback and, each cycle, reads the transport (`jack_transport_query`, real-time
/// safe). Rolling from the frame the song stands ready at, it renders the song's next block;
/// otherwise it plays nothing and, when the song must move (a locate, a start from elsewhere, a
/// stop), asks the seek thread for it through atomics and a semaphore post. It is also the
/// slow-sync client: ready once the song stands at the transport's frame. Transport frame f is
/// player sample f (frame 0 is the song's start, `--start` included).
///
/// Nothing here allocates, locks, logs or does I/O: the transport is read into a stack value, the
/// request is three atomic stores and `sem_post` (a futex wake, async-signal-safe). The seek itself
/// (the player's chase allocates) runs on the seek thread while `SongPlayback` holds the render
/// thread off the renderer (`skipBlock` acknowledges the hold).
// Why unchecked: `wasRolling` is the render thread's own; all it shares with the seek thread are atomics and a semaphore.
final class TransportFollower: RealtimeRenderSource, JACKSyncHandler, @unchecked Sendable {
    private let playback: SongPlayback
    private let client: JACKClient
    /// Frames ahead of a rolling transport a seek aims at (the transport then reaches it exactly).
    private let leadSeconds = 0.1
    private let sampleRate: Int

    /// The transport frame the song stands ready at: the next frame it renders.
    let preparedFrame = ManagedAtomic(0)
    /// A seek asked of the seek thread and not yet done: nothing plays meanwhile.
    let seekPending = ManagedAtomic(false)
    let requestedFrame = ManagedAtomic(0)
    /// Whether the transport rolled at the last cycle (the control thread reads it).
    let isRolling = ManagedAtomic(false)
    /// Seeks done so far.
    let seekCount = ManagedAtomic(0)
    /// The seek thread: it sleeps on `wake` (the render thread's post), so its stop is a post too.
    private let seeking = ServiceThread()
    /// Render thread only: whether the transport rolled in the previous cycle.
    private var wasRolling = false
    private let wake = PostedSemaphore()

    init(playback: SongPlayback, client: JACKClient) {
        self.playback = playback
        self.client = client
        sampleRate = client.sampleRate
    }


    // MARK: Render thread

    func renderBlock(frameCount: Int) -> AudioBuffer? {
        let (state, position) = client.transportQuery()
        let frame = position.frame
        let rolling = state == .rolling
        defer {
            wasRolling = rolling
            isRolling.store(rolling, ordering: .relaxed)
        }
        let pending = seekPending.load(ordering: .acquiring)
        let prepared = preparedFrame.load(ordering: .relaxed)
        if rolling && !pending && frame == prepared {
            // nil: the control thread holds the renderer (a key's seek); the song did not move.
            guard let block = playback.renderBlock(frameCount: frameCount) else { return nil }
            preparedFrame.store(prepared + frameCount, ordering: .relaxed)
            return block
        }
        playback.skipBlock()
        guard !pending else { return nil }
        if rolling {
            // Rolling from elsewhere (a locate no one waited for, or rolling before seqplay came):
            // make the song ready a little ahead, on this block grid, and start when the transport gets there.
            let lead = (Int(Double(sampleRate) * leadSeconds) / frameCount + 1) * frameCount
            if !(prepared > frame && prepared - frame <= lead) { requestSeek(to: frame + lead) }
        } else if wasRolling || frame != prepared {
            // Stopped (notes off, the song waits where the transport stands) or located while stopped.
            requestSeek(to: frame)
        }
        return nil
    }

    /// Slow sync: ready when the song stands at the transport's frame, else a seek there is asked for.
    func isReady(state: JACKTransportState, position: JACKPosition) -> Bool {
        guard !seekPending.load(ordering: .acquiring) else { return false }
        if preparedFrame.load(ordering: .relaxed) == position.frame { return true }
        requestSeek(to: position.frame)
        return false
    }

    private func requestSeek(to frame: Int) {
        requestedFrame.store(frame, ordering: .relaxed)
        seekPending.store(true, ordering: .releasing)
        wake.post()
    }

    // MARK: Seek thread

    /// Starts the thread that carries out the seeks the render thread asks for.
    func startSeekThread() {
        seeking.start(name: "seqplay JACK transport") { [self] in
            while true {
                while !wake.wait() {}
                if seeking.isStopRequested { break }
                guard seekPending.load(ordering: .acquiring) else { continue }
                let frame = requestedFrame.load(ordering: .relaxed)
                // A seek ends every note and silences the voices, then chases controllers and programs.
                if playback.seek(toSample: Int64(frame), silencing: true) { preparedFrame.store(frame, ordering: .relaxed) }
                seekCount.wrappingIncrement(ordering: .relaxed)
                seekPending.store(false, ordering: .releasing)
            }
        }
    }

    /// Ends the seek thread and waits for it.
    func stopSeekThread() {
        guard seeking.isRunning else { return }
        seeking.requestStop()
        wake.post()
        seeking.join()
    }
}
