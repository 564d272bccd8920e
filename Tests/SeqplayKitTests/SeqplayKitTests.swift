import SeqplayKit
import XCTest

/// `import SeqplayKit` brings every library module, and a name qualified by SeqplayKit (the way to
/// tell seqplay's `AudioBuffer` or `MusicSequence` from Apple's where both are imported) is the type
/// of the module that defines it.
final class SeqplayKitTests: XCTestCase {
    func testQualifiedNamesReachTheReExportedModules() {
        XCTAssertTrue(SeqplayKit.AudioBuffer.self == AudioGraph.AudioBuffer.self)
        XCTAssertTrue(SeqplayKit.MusicSequence.self == MIDIFile.MusicSequence.self)
        XCTAssertTrue(SeqplayKit.MusicPlayer.self == Player.MusicPlayer.self)
        XCTAssertTrue(SeqplayKit.AudioEngine.self == AudioGraph.AudioEngine.self)
    }

    func testOneImportBuildsAGraphFromSeveralModules() throws {
        let engine = SeqplayKit.AudioEngine()
        let tone = ToneGeneratorNode(frequency: 441, amplitude: 0.5)
        let reverb = ReverbNode(preset: .smallRoom, wetDryMix: 20)
        engine.attach(tone)
        engine.attach(reverb)
        engine.connect([tone, reverb, engine.mainMixerNode])
        var peak: Float = 0
        engine.mainMixerNode.installTap { buffer, _ in peak = max(peak, buffer.peak) }
        try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: 512)
        try engine.start()
        for _ in 0..<20 { _ = engine.renderBlock(frameCount: 512) }
        XCTAssertGreaterThan(peak, 0.1)
    }
}
