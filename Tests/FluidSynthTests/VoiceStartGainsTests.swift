import Sampler
import Foundation
import MIDICore
import XCTest

/// FluidSynth 2.3 fades a new voice in over its first 64-frame block from the output gains of the
/// voice that used its slot before. Renders of a song's channels on separate synthesizers then did
/// not add up to one synthesizer's render (−42 dBFS off in the first block of such notes, Ode to Joy
/// with `--solo-channel 10` + `--mute-channel 10`): a note's first block depended on the notes of
/// other channels. `Synthesizer` starts every voice's fade from 0, as in a fresh slot.
final class VoiceStartGainsTests: XCTestCase {
    static let font = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SoundFonts/seqplay-gm.sf2").path

    /// Renders `blocks` 64-frame blocks, sending `events[block]` before each; returns left and right.
    func render(_ events: [Int: [MIDIMessage]], blocks: Int, reverbAndChorus: Bool) throws -> [Float] {
        let synth = try Synthesizer(settings: SamplerSettings(reverb: .init(isEnabled: reverbAndChorus),
                                                              chorus: .init(isEnabled: reverbAndChorus)), sampleRate: 44_100)
        try synth.loadSoundFont(at: Self.font)
        var output: [Float] = []
        var left = [Float](repeating: 0, count: 64), right = [Float](repeating: 0, count: 64)
        for block in 0..<blocks {
            for message in events[block] ?? [] { synth.receive(message) }
            synth.render(frameCount: 64, left: &left, right: &right)
            output += left + right
        }
        return output
    }

    /// A note on channel 2 played after a hard-left note of channel 1 has died away in the same
    /// synthesizer (so it takes that note's voice slot) sounds exactly as when played alone.
    func testANoteSoundsTheSameWhateverVoiceUsedItsSlotBefore() throws {
        let earlier: [MIDIMessage] = [.programChange(channel: 0, program: 0), .controlChange(channel: 0, controller: 10, value: 0),
                                      .noteOn(channel: 0, note: 60, velocity: 127)]
        let later: [MIDIMessage] = [.programChange(channel: 1, program: 33), .controlChange(channel: 1, controller: 10, value: 127),
                                    .noteOn(channel: 1, note: 45, velocity: 100)]
        for effects in [false, true] {
            let both = try render([0: earlier, 2: [.noteOff(channel: 0, note: 60, velocity: 0)], 400: later], blocks: 600, reverbAndChorus: effects)
            let first = try render([0: earlier, 2: [.noteOff(channel: 0, note: 60, velocity: 0)]], blocks: 600, reverbAndChorus: effects)
            let alone = try render([0: [.programChange(channel: 0, program: 0)], 400: later], blocks: 600, reverbAndChorus: effects)
            var worst: Float = 0
            for i in both.indices { worst = max(worst, abs(both[i] - first[i] - alone[i])) }
            XCTAssertLessThan(worst, 1e-6, "effects \(effects): both notes − each alone, worst sample \(worst)")
            XCTAssertGreaterThan(alone[(400 * 128)...].map(abs).max() ?? 0, 0.01, "the later note sounds")
        }
    }
}
