import Foundation
import MIDICore
import Sampler
import XCTest

/// Fonts shared for seqplay's engine alone (`SharedSoundFonts(paths:engine: .seqplay)`): libfluidsynth does
/// not load them, and the sampler answers for them from the engine as libfluidsynth answers for its own copy.
final class EngineOnlyFontsTests: XCTestCase {
    static let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

    /// A sampler playing `fonts` through `engine`.
    func sampler(_ fonts: SharedSoundFonts, engine: SamplerSettings.Engine) throws -> SamplerNode {
        var settings = SamplerSettings()
        settings.engine = engine
        let sampler = try SamplerNode(settings: settings)
        sampler.addSoundFonts(fonts)
        return sampler
    }

    func testTheEngineAnswersForItsFontAsFluidSynthDoes() throws {
        guard FileManager.default.fileExists(atPath: Self.fluidR3) else { throw XCTSkip("\(Self.fluidR3) is not installed") }
        let engineFonts = try SharedSoundFonts(paths: [Self.fluidR3], engine: .seqplay)
        let fluidFonts = try SharedSoundFonts(paths: [Self.fluidR3])
        XCTAssertTrue(engineFonts.isEngineOnly)
        XCTAssertFalse(fluidFonts.isEngineOnly)
        let ours = try sampler(engineFonts, engine: .seqplay), reference = try sampler(fluidFonts, engine: .fluidsynth)

        XCTAssertEqual(ours.soundFonts, reference.soundFonts)
        XCTAssertGreaterThan(ours.presets.count, 128)
        XCTAssertEqual(ours.presets, reference.presets)
        // A bank select and program change on channel 1, a drum kit on channel 10, a program on channel 3.
        let setup: [MIDIMessage] = [.controlChange(channel: 0, controller: 0, value: 8), .programChange(channel: 0, program: 4),
                                    .programChange(channel: 9, program: 25), .programChange(channel: 2, program: 7)]
        for message in setup { ours.receive(message); reference.receive(message) }
        for channel in UInt8(0)..<16 {
            XCTAssertEqual(ours.program(onChannel: channel), reference.program(onChannel: channel), "channel \(channel + 1)")
        }
        XCTAssertEqual(ours.program(onChannel: 9)?.bank, 128)
        XCTAssertEqual(ours.program(onChannel: 0)?.bank, 8)
    }

    func testSeveralFontsForTheEngineAreRefusedAtLoad() throws {
        XCTAssertThrowsError(try SharedSoundFonts(paths: [Self.fluidR3, Self.fluidR3], engine: .seqplay)) { error in
            XCTAssertTrue("\(error)".contains("one SoundFont"), "\(error)")
        }
    }
}
