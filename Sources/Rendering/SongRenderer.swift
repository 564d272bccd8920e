import AudioFiles
import AudioGraph
import FluidSynth
import MIDIFile
import Player
import Sampler

/// Renders a MIDI sequence through SoundFonts to audio, offline: the graph
/// sequence → `MusicPlayer` → `SamplerNode` → main mixer → output, pulled block by block, with the
/// tail after the song's end cut where the output falls silent (or at a fixed length).
///
/// ```swift
/// let renderer = try SongRenderer(sequence: song, soundFontPaths: ["piano.sf2"], options: RenderOptions())
/// let writer = try AudioFileWriter(path: "song.wav", sampleRate: 44_100, channelCount: 2)
/// try renderer.render(to: writer)   // finishes the file
/// ```
///
/// `render(to:progress:)` is the whole job; `renderNextBlock()` is the step it repeats, for callers
/// that consume the audio themselves. Rendering a block neither allocates, locks nor does I/O.
/// One renderer renders once, from one thread.
public final class SongRenderer {
    /// Sample rates FluidSynth renders at.
    public static let supportedSampleRates = 8_000...96_000

    public let options: RenderOptions
    /// The player feeding the sampler; mute and solo may still be changed while rendering.
    public let player: MusicPlayer
    public let sampler: SamplerNode
    public let engine: AudioEngine
    /// Frames of the song itself (start to end, loops included), before the tail.
    public let songFrames: Int64
    /// The most frames the render can produce: the song plus the longest tail.
    public let maximumFrames: Int64
    /// Frames rendered so far.
    public private(set) var renderedFrames: Int64 = 0
    /// True once the song and its tail have been rendered.
    public private(set) var isFinished = false

    private let tailFrames: Int64
    private let stopsAtSilence: Bool

    /// Builds and starts the graph: loads `soundFontPaths` in order (later fonts take priority),
    /// schedules `sequence` with `options.playback`, applies mutes and solos.
    public init(sequence: MusicSequence, soundFontPaths: [String], options: RenderOptions) throws(RenderError) {
        guard Self.supportedSampleRates.contains(options.sampleRate) else { throw .unsupportedSampleRate(options.sampleRate) }
        let tailSeconds: Double
        switch options.tail {
        case .untilSilent(let seconds), .fixed(let seconds): tailSeconds = seconds
        }
        guard tailSeconds >= 0, tailSeconds.isFinite else { throw .invalidTail(tailSeconds) }

        let isEmpty = TempoMap(sequence: sequence.concatenatingPatterns()).endTick == 0
        player = try Self.makePlayer(for: sequence, options: options)

        let settings = SynthesizerSettings(sampleRate: Double(options.sampleRate), gain: options.gain,
                                           reverbEnabled: options.reverbEnabled, chorusEnabled: options.chorusEnabled)
        do throws(SynthesizerError) {
            sampler = try SamplerNode(settings: settings)
        } catch {
            throw .synthesizer("\(error)")
        }
        do throws(SoundFontError) {
            for path in soundFontPaths { try sampler.loadSoundFont(at: path) }
        } catch {
            throw .soundFont(error)
        }
        sampler.eventSource = player

        engine = AudioEngine()
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode)
        do throws(AudioEngineError) {
            try engine.enableManualRenderingMode(format: AudioFormat(sampleRate: Double(options.sampleRate), channelCount: 2),
                                                 maximumFrameCount: options.blockFrames)
            try engine.start()
        } catch {
            throw .engine(error.description)
        }

        self.options = options
        songFrames = isEmpty ? 0 : player.durationInSamples
        tailFrames = Int64((tailSeconds * Double(options.sampleRate)).rounded())
        maximumFrames = songFrames + tailFrames
        if case .untilSilent = options.tail { stopsAtSilence = true } else { stopsAtSilence = false }
    }

    /// The player for `sequence` as `options` ask (playback settings, mutes, solos): what a renderer
    /// plays, and what a real-time sequencer plays to other destinations.
    public static func makePlayer(for sequence: MusicSequence, options: RenderOptions) throws(RenderError) -> MusicPlayer {
        // A song of length zero (only set-up events at tick 0) has no region for the player to
        // play: give it one tick, so its tick-0 events are sent, and render only the tail.
        let isEmpty = TempoMap(sequence: sequence.concatenatingPatterns()).endTick == 0
        var playback = options.playback
        if isEmpty && playback.start == nil && playback.end == nil && playback.loop == nil { playback.end = .tick(1) }
        let player: MusicPlayer
        do throws(PlaybackSettingsError) {
            player = try MusicPlayer(sequence: sequence, sampleRate: options.sampleRate, settings: playback)
        } catch {
            throw .playback(error)
        }
        try applyMutesAndSolos(options, to: player)
        return player
    }

    private static func applyMutesAndSolos(_ options: RenderOptions, to player: MusicPlayer) throws(RenderError) {
        for track in options.mutedTracks.union(options.soloedTracks) where !(0..<player.trackCount).contains(track) {
            throw .noSuchTrack(track, trackCount: player.trackCount)
        }
        for channel in options.mutedChannels.union(options.soloedChannels) where !(0..<16).contains(channel) {
            throw .noSuchChannel(channel)
        }
        for track in options.mutedTracks { player.setTrack(track, muted: true) }
        for track in options.soloedTracks { player.setTrack(track, soloed: true) }
        for channel in options.mutedChannels { player.setChannel(channel, muted: true) }
        for channel in options.soloedChannels { player.setChannel(channel, soloed: true) }
    }

    /// Renders the next block (at most `options.blockFrames` frames, never past the song's end
    /// or the tail's) and returns it, valid until the next call; nil once finished. In the tail, a
    /// block whose peak is below `RenderOptions.silenceThreshold` ends the render (when the tail
    /// stops at silence) and is still returned. Real-time safe.
    public func renderNextBlock() -> AudioBuffer? {
        guard !isFinished else { return nil }
        let remaining = renderedFrames < songFrames ? songFrames - renderedFrames : maximumFrames - renderedFrames
        guard remaining > 0, let block = engine.renderBlock(frameCount: Int(min(Int64(options.blockFrames), remaining))) else {
            isFinished = true
            return nil
        }
        let inTail = renderedFrames >= songFrames
        renderedFrames += Int64(block.frameLength)
        if renderedFrames >= maximumFrames || (inTail && stopsAtSilence && Self.peak(of: block) < RenderOptions.silenceThreshold) {
            isFinished = true
        }
        return block
    }

    /// Renders the whole song and tail into `writer` and finishes the file; on any failure the
    /// writer is cancelled, so no partial file is left under its name. `progress` is called after
    /// every block with the frames rendered so far. Returns the frames written.
    @discardableResult
    public func render(to writer: AudioFileWriter, progress: ((Int64) -> Void)? = nil) throws(RenderError) -> Int64 {
        do throws(AudioFileError) {
            while let block = renderNextBlock() {
                try writer.write(left: block[0].baseAddress!, right: block[1].baseAddress!, frameCount: block.frameLength)
                progress?(renderedFrames)
            }
            try writer.finish()
        } catch {
            writer.cancel()
            throw .audioFile(error)
        }
        return renderedFrames
    }

    private static func peak(of block: AudioBuffer) -> Float {
        var peak: Float = 0
        for channel in 0..<block.channelCount {
            let samples = block[channel]
            for i in 0..<block.frameLength { peak = max(peak, abs(samples[i])) }
        }
        return peak
    }
}
