import Foundation
import MIDICore
import Sampler
import XCTest

/// `SamplerNode` playing through seqplay's engine gives it the reverb its settings and its calls ask for:
/// `reverbEnabled` turns the engine's reverb off and on, `setReverb(level:)` sets its level, as they do
/// libfluidsynth's.
final class EngineEffectsControlTests: XCTestCase {
    /// The RMS of the left channel over the half second from 0.5 s after a note's note-off (sent with CC 91 at 127),
    /// rendered by `sampler` in 512-frame blocks from `start`.
    func tail(_ sampler: SamplerNode, from start: inout Int64) -> Float {
        let block = 512
        let left = UnsafeMutablePointer<Float>.allocate(capacity: block), right = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { left.deallocate(); right.deallocate() }
        func render(_ blocks: Int) -> Float {
            var sum: Float = 0
            for _ in 0..<blocks {
                sampler.render(sampleTime: start, frameCount: block, left: left, right: right)
                start += Int64(block)
                for i in 0..<block { sum += left[i] * left[i] }
            }
            return (sum / Float(blocks * block)).squareRoot()
        }
        for message: MIDIMessage in [.programChange(channel: 0, program: 19), .controlChange(channel: 0, controller: 91, value: 127),
                                     .noteOn(channel: 0, note: 60, velocity: 100)] { sampler.receive(message) }
        _ = render(40)
        sampler.receive(.noteOff(channel: 0, note: 60, velocity: 0))
        _ = render(45)  // the organ's own release
        let rms = render(43)
        return rms
    }

    func testReverbEnabledAndLevelActOnTheEngine() throws {
        var shipped = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { shipped.deleteLastPathComponent() }
        var settings = SamplerSettings()
        settings.engine = .seqplay
        // Three samplers alike but for the change asked of each after its font is loaded, each playing the same note from time 0.
        func tail(_ change: (SamplerNode) -> Void) throws -> Float {
            let sampler = try SamplerNode(settings: settings)
            try sampler.loadSoundFont(at: shipped.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path)
            change(sampler)
            var time: Int64 = 0
            return self.tail(sampler, from: &time)
        }
        let on = try tail { _ in }
        let off = try tail { $0.reverbEnabled = false }
        let quieter = try tail { $0.setReverb(level: 0.2) }
        func dB(_ value: Float) -> Float { 20 * log10(max(value, 1e-12)) }
        print(String(format: "the engine's tail after a note-off: reverb on %.1f dBFS, off %.1f dBFS, on at level 0.2 %.1f dBFS",
                     dB(on), dB(off), dB(quieter)))
        XCTAssertGreaterThan(dB(on), dB(off) + 30, "reverbEnabled = false turns the engine's reverb off")
        XCTAssertEqual(dB(quieter), dB(on) + 20 * log10(0.2 / 0.9), accuracy: 0.5, "setReverb(level:) sets the engine's reverb level")
    }
}
