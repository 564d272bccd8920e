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

    /// The library's one table from errors to `seqplay`'s line and exit status, as a program built on it answers.
    func testFailureReportsGiveSeqplaysLinesAndStatuses() throws {
        let search = SoundFontLocator(environment: [:], executablePath: "/nowhere/bin/seqplay", fileExists: { _ in false })
        XCTAssertThrowsError(try search.paths(given: [])) { error in
            let report = FailureReport(error)
            XCTAssertEqual(report.status, .badSoundFont)
            XCTAssertEqual(report.status.rawValue, 4)
            XCTAssertTrue(report.message?.hasSuffix("; use --sf2 FILE") ?? false, report.message ?? "no line")
        }
        let noCard = FailureReport(LiveSamplerError.noInput)
        XCTAssertEqual(noCard.status, .usage)
        XCTAssertEqual(FailureReport(NetworkSongError.cancelled).status.rawValue, 130)
        XCTAssertNil(FailureReport(NetworkSongError.cancelled).message, "an interruption has nothing to add")
        XCTAssertEqual(FailureReport(CocoaError(.fileNoSuchFile)).status, .generic)
        let passedOn = FailureReport(FailureReport("already said", .someInputsFailed))
        XCTAssertEqual(passedOn.message, "already said")
        XCTAssertEqual(passedOn.status.rawValue, 2)
    }
}
