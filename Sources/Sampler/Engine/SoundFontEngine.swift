import Foundation
import SoundFontFile

/// seqplay's own SoundFont synthesizer (issue 31), opt-in and not yet behind the command line: 16 MIDI
/// channels playing one `SoundFontBank` from a fixed pool of voices, rendered as FluidSynth 2.3 renders
/// (4-point interpolation, its envelopes, LFOs, resonant filter, pan law and attenuation scale), except
/// that every event starts on its own sample: `render` takes events stamped with a frame offset.
///
/// Everything is allocated at init; `render` takes no lock and allocates nothing. One engine is used by
/// one thread at a time (it is not `Sendable`); the bank it plays is shared.
public final class SoundFontEngine {
    /// A MIDI channel message the engine plays. Channels are 0...15; data values 0...127 (pitch bend 0...16383, 8192 centre).
    public enum Message: Sendable, Equatable {
        case noteOn(channel: Int, key: Int, velocity: Int)
        case noteOff(channel: Int, key: Int)
        case controlChange(channel: Int, controller: Int, value: Int)
        case programChange(channel: Int, program: Int)
        case pitchBend(channel: Int, value: Int)
        case channelPressure(channel: Int, value: Int)
        /// Polyphonic key pressure (aftertouch) on one key.
        case keyPressure(channel: Int, key: Int, value: Int)
    }

    /// A message and the frame of the render call it happens on (0 is the call's first frame).
    public struct Event: Sendable, Equatable {
        public var frame: Int
        public var message: Message
        public init(frame: Int, _ message: Message) {
            self.frame = frame
            self.message = message
        }
    }

    /// The font played.
    public let bank: SoundFontBank
    /// Output frames per second.
    public let sampleRate: Double
    /// The number of voices in the pool: notes beyond it steal voices by FluidSynth's priority rule.
    public let polyphony: Int

    /// FluidSynth's control block: envelopes, LFOs and modulation move once per 64 samples of a voice's life.
    static let blockSize = 64

    let voices: UnsafeMutablePointer<Voice>
    /// Per voice, `Gen.count` generator values (region values; the nominal pitch at `Gen.pitch`).
    let generatorValues: UnsafeMutablePointer<Float>
    /// Per voice, `Gen.count` modulator sums.
    let modulatorSums: UnsafeMutablePointer<Float>
    let channels: UnsafeMutablePointer<Channel>
    /// 16 × 128 controller values.
    let controllers: UnsafeMutablePointer<UInt8>
    /// 16 × 128 key pressures.
    let keyPressures: UnsafeMutablePointer<UInt8>
    /// Per channel, `Gen.count` generator offsets set by RPN tuning and SoundFont NRPNs (added to every voice's generators).
    let generatorOffsets: UnsafeMutablePointer<Float>
    let scratch: UnsafeMutablePointer<Float>
    let sampleCount: Int
    var noteCounter: UInt64 = 0
    let minimumNoteTicks: Int

    /// An engine playing `bank` at `sampleRate` with `polyphony` voices (FluidSynth's default is 256).
    public init(bank: SoundFontBank, sampleRate: Double = 44100, polyphony: Int = 256) {
        self.bank = bank
        self.sampleRate = sampleRate
        self.polyphony = max(1, polyphony)
        voices = .allocate(capacity: self.polyphony)
        voices.initialize(repeating: Voice(), count: self.polyphony)
        generatorValues = .allocate(capacity: self.polyphony * Gen.count)
        generatorValues.initialize(repeating: 0, count: self.polyphony * Gen.count)
        modulatorSums = .allocate(capacity: self.polyphony * Gen.count)
        modulatorSums.initialize(repeating: 0, count: self.polyphony * Gen.count)
        channels = .allocate(capacity: 16)
        channels.initialize(repeating: Channel(), count: 16)
        controllers = .allocate(capacity: 16 * 128)
        keyPressures = .allocate(capacity: 16 * 128)
        keyPressures.initialize(repeating: 0, count: 16 * 128)
        generatorOffsets = .allocate(capacity: 16 * Gen.count)
        generatorOffsets.initialize(repeating: 0, count: 16 * Gen.count)
        scratch = .allocate(capacity: Self.blockSize)
        scratch.initialize(repeating: 0, count: Self.blockSize)
        sampleCount = bank.hydra.sampleData.count
        // FluidSynth's synth.min-note-length: a note-off within 10 ms of its note-on waits until then.
        minimumNoteTicks = Int(sampleRate * 0.010)
        for channel in 0..<16 { resetChannel(channel, program: true) }
    }

    deinit {
        voices.deinitialize(count: polyphony); voices.deallocate()
        generatorValues.deallocate(); modulatorSums.deallocate()
        channels.deinitialize(count: 16); channels.deallocate()
        controllers.deallocate(); keyPressures.deallocate(); generatorOffsets.deallocate(); scratch.deallocate()
    }

    /// Voices sounding now.
    public var activeVoiceCount: Int {
        var count = 0
        for v in 0..<polyphony where voices[v].active { count += 1 }
        return count
    }

    // MARK: - Rendering

    /// Renders `frames` frames into `left` and `right` (overwritten), applying each event at its frame:
    /// a note starts on exactly that sample. Events must be in frame order; frames past the call are applied at its end.
    public func render(frames: Int, events: UnsafeBufferPointer<Event>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        var position = 0, next = 0
        while position < frames {
            while next < events.count && events[next].frame <= position { apply(events[next].message); next += 1 }
            let end = next < events.count ? min(frames, events[next].frame) : frames
            renderVoices(from: position, count: end - position, left: left, right: right)
            position = end
        }
        while next < events.count { apply(events[next].message); next += 1 }
    }

    /// `render(frames:events:left:right:)` with the events in an array (no copy is made).
    public func render(frames: Int, events: [Event] = [], left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        events.withUnsafeBufferPointer { render(frames: frames, events: $0, left: left, right: right) }
    }

    func renderVoices(from start: Int, count: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        // The bank's sample points, read in place through plain pointers for the whole call (no copy,
        // no bounds checks in the voice loop): the arrays are immutable while the bank lives. The voice
        // loop is specialised for 16- and 24-bit points.
        bank.hydra.sampleData.withUnsafeBufferPointer { high in
            guard let high = high.baseAddress else { return }
            if bank.hydra.has24BitSamples {
                bank.hydra.sampleLowBytes.withUnsafeBufferPointer { low in
                    renderVoices(from: start, count: count, data: SamplePoints24(high: high, low: low.baseAddress!), left: left, right: right)
                }
            } else {
                renderVoices(from: start, count: count, data: SamplePoints16(high: high), left: left, right: right)
            }
        }
    }

    func renderVoices<Points: SamplePoints>(from start: Int, count: Int, data: Points, left: UnsafeMutablePointer<Float>,
                                            right: UnsafeMutablePointer<Float>) {
        for v in 0..<polyphony where voices[v].active {
            var done = 0
            while done < count && voices[v].active {
                if voices[v].blockLeft == 0 {
                    controlBlock(v)
                    voices[v].blockLeft = Self.blockSize
                    if !voices[v].active { break }
                }
                let n = min(voices[v].blockLeft, count - done)
                if voices[v].sounding {
                    let produced = synthesize(v, count: n, data: data)
                    mix(v, count: produced, left: left + start + done, right: right + start + done)
                    if produced < n { voices[v].active = false }
                }
                voices[v].blockLeft -= n
                done += n
            }
        }
    }

    /// Ends up to `count` sounding voices, those FluidSynth would steal first; returns how many it ended.
    public func endVoices(_ count: Int) -> Int {
        var ended = 0
        while ended < count && activeVoiceCount > 0 {
            voices[freeVoice()].active = false
            ended += 1
        }
        return ended
    }

    /// A free voice, or the one FluidSynth would steal: released before sustained before held, oldest first.
    func freeVoice() -> Int {
        var best = 0
        var bestScore = Int.max
        for v in 0..<polyphony {
            if !voices[v].active { return v }
            let state = voices[v].released ? 0 : voices[v].sustained || voices[v].heldBySostenuto ? 1 : 2
            let score = state << 56 | Int(truncatingIfNeeded: voices[v].note & ((1 << 56) - 1))
            if score < bestScore { bestScore = score; best = v }
        }
        return best
    }
}
