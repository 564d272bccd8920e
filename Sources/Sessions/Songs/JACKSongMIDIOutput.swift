import Atomics
import JACK
import MIDICore
import MIDIFile
import Player
import Rendering

/// A song's MIDI on a JACK MIDI output port (`midi_out`) of the client playing its audio, so a DAW
/// records the MIDI beside the audio (`seqplay song.mid -a jack --jack-midi-out`).
///
/// It is one more destination of the scheduler (a `SongDestination`), on the playback's one player
/// path: a cursor through the schedule of the player that feeds the sampler
/// (`MusicPlayer(sharingScheduleOf:)`: the song is neither prepared nor scheduled again; start, end,
/// loop, rate, transpose, and the mutes and solos, set then or later, apply as for the sampler),
/// pulled in JACK's process callback after the output has rendered the cycle: each event the audio's
/// player reached in that cycle is written at its exact frame in the cycle (its player sample minus
/// the cycle's first), where the sampler sounds it within 32 samples (its 64-sample grid). A cycle
/// that renders nothing (paused, or held for a seek) writes nothing; a seek moves this cursor with
/// the playback's (`SongPlayback.onSeek`).
///
/// ```swift
/// let output = try JACKOutput()
/// let playback = try SongPlayback(sequence: song, soundFontPaths: fonts, options: options, output: output)
/// let midi = try JACKSongMIDIOutput(playback: playback, driver: output.jack)
/// try playback.start()
/// ```
// Why unchecked: the player and cycle state belong to JACK's process thread (a seek moves the player while the playback holds that thread off); the control side shares only atomics.
public final class JACKSongMIDIOutput: JACKCycleHandler, SongDestination, @unchecked Sendable {
    package let port: JACKMIDIPort
    /// This destination's player: its own cursor through the playback's player's schedule.
    public let player: MusicPlayer
    /// Input ports whose names match this extended regular expression are connected to the port
    /// when the output starts (nil: none).
    public let connectPattern: String?
    private let renderer: SongRenderer
    /// Player samples the renderer runs ahead of what is heard: the effects' look-ahead (the limiter's),
    /// rendered before the first frame so that the sound keeps its times; the MIDI keeps them too.
    private let soundDelay: Int64
    /// The port's buffer for the cycle in progress, and the player sample its first frame plays.
    private var buffer: JACKMIDIOutputBuffer?
    private var cycleStart: Int64 = 0
    /// Player samples and frames the cycle in progress spans, and its frame count.
    private var cycleSpan: Int64 = 1
    private var cycleRenderedFrames = 0
    private var cycleFrameCount = 0
    private let lost = ManagedAtomic(0)
    private let allNotesOffRequested = ManagedAtomic(false)

    /// Registers output port `portName` on `driver`'s client, playing what `playback` plays. Call
    /// before the playback starts (on a renderer that has not rendered yet).
    public init(playback: SongPlayback, driver: JACKAudioDriver, portName: String = "midi_out",
                connecting pattern: String? = nil) throws {
        player = MusicPlayer(sharingScheduleOf: playback.renderer.player)
        port = try driver.client.registerMIDIPort(named: portName, direction: .output)
        connectPattern = pattern
        renderer = playback.renderer
        soundDelay = playback.renderer.playerPosition
        playback.onSeek = { [player] sample in player.seek(toSample: sample) }
        driver.addCycleHandler(self)
    }

    /// As `init(playback:driver:portName:connecting:)`: `sequence` is the playback's song, which the
    /// output takes from the playback's player (it is not read).
    @available(*, deprecated, message: "the song is the playback's: init(playback:driver:portName:connecting:)")
    public convenience init(sequence: MusicSequence, playback: SongPlayback, driver: JACKAudioDriver, portName: String = "midi_out",
                            connecting pattern: String? = nil) throws {
        try self.init(playback: playback, driver: driver, portName: portName, connecting: pattern)
    }

    /// Events that did not fit in a cycle's port buffer.
    public var lostEventCount: Int { lost.load(ordering: .relaxed) }

    /// Sends All Notes Off and Sustain Off on every channel at the next cycle (Ctrl-C, quit).
    public func allNotesOff() {
        allNotesOffRequested.store(true, ordering: .releasing)
    }

    // MARK: JACK's process callback

    package func connectPorts(_ client: JACKClient) throws(JACKError) {
        guard let connectPattern else { return }
        for destination in client.ports(matching: connectPattern, type: .midi, direction: .input) {
            try client.connect(port.name, to: destination)
        }
    }

    public func beginCycle(frameCount: Int, sampleTime: Int64) {
        let buffer = port.outputBuffer(frameCount: frameCount)
        self.buffer = buffer
        cycleStart = renderer.playerPosition - soundDelay
        if allNotesOffRequested.exchange(false, ordering: .acquiringAndReleasing) {
            for channel in UInt8(0)..<16 {
                write(.controlChange(channel: channel, controller: 64, value: 0), atFrame: 0, to: buffer)
                write(.controlChange(channel: channel, controller: 123, value: 0), atFrame: 0, to: buffer)
            }
        }
    }

    public func endCycle(frameCount: Int, renderedFrames: Int) {
        guard renderedFrames > 0, buffer != nil else { return }
        let end = renderer.playerPosition - soundDelay
        cycleSpan = max(end - cycleStart, 1)
        cycleRenderedFrames = renderedFrames
        cycleFrameCount = frameCount
        player.deliverEvents(before: end, to: self)
    }

    /// Writes `event` into the port's buffer at its frame of the cycle in progress (JACK's process
    /// callback pulls the player in `endCycle`).
    public func receive(_ event: SongEvent) {
        guard let buffer else { return }
        // Player samples to frames of the cycle: equal, unless a varispeed plays the song faster or slower.
        let offset = cycleSpan == Int64(cycleRenderedFrames) ? event.sampleTime - cycleStart
            : (event.sampleTime - cycleStart) * Int64(cycleRenderedFrames) / cycleSpan
        write(event.message, atFrame: Int(min(max(offset, 0), Int64(cycleFrameCount - 1))), to: buffer)
    }

    private func write(_ message: MIDIMessage, atFrame frame: Int, to buffer: JACKMIDIOutputBuffer) {
        if !buffer.write(message, atFrame: frame) { lost.wrappingIncrement(ordering: .relaxed) }
    }
}
