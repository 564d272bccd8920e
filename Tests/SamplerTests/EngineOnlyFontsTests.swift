import Foundation
import MIDICore
import Sampler
import XCTest

/// Fonts shared for seqplay's engine alone (`SharedSoundFonts(paths:engine: .seqplay)`): libfluidsynth does
/// not load them, and the sampler answers for them from the engine as libfluidsynth answers for its own copy,
/// a stack of fonts with drum channels, forced programs and channel fonts included.
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

    func testAFontStackWithChannelSettingsAnswersAsFluidSynthDoes() throws {
        guard FileManager.default.fileExists(atPath: Self.fluidR3) else { throw XCTSkip("\(Self.fluidR3) is not installed") }
        var shipped = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { shipped.deleteLastPathComponent() }
        let top = shipped.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path
        // FluidR3 below the shipped font; channel 3 from FluidR3, channel 2 forced to program 11, channel 11 the drums.
        var settings = SamplerSettings(drumChannels: [10], programs: [1: .init(program: 11)], channelFonts: [2: Self.fluidR3])
        let paths = settings.fontLoadOrder([Self.fluidR3, top])
        let engineFonts = try SharedSoundFonts(paths: paths, engine: .seqplay), fluidFonts = try SharedSoundFonts(paths: paths)
        settings.engine = .seqplay
        let ours = try SamplerNode(settings: settings)
        ours.addSoundFonts(engineFonts)
        try ours.apply(settings)
        settings.engine = .fluidsynth
        let reference = try SamplerNode(settings: settings)
        reference.addSoundFonts(fluidFonts)
        try reference.apply(settings)

        XCTAssertEqual(ours.soundFonts, reference.soundFonts)
        XCTAssertEqual(ours.presets, reference.presets)
        var expected = reference.settings
        expected.engine = .seqplay
        XCTAssertEqual(ours.settings, expected, "the settings as applied, the channels' included")
        func assertSamePrograms(_ when: String) {
            for channel in UInt8(0)..<16 {
                XCTAssertEqual(ours.program(onChannel: channel), reference.program(onChannel: channel), "channel \(channel + 1) \(when)")
            }
        }
        assertSamePrograms("at the start")
        // Program 11 (FluidR3 only), a program change on the forced channel, the piano on the channel of
        // FluidR3, a missing bank, channel 10 melodic, a kit only FluidR3 has on channel 11.
        let setup: [MIDIMessage] = [.programChange(channel: 0, program: 11), .controlChange(channel: 1, controller: 0, value: 8),
                                    .programChange(channel: 1, program: 0), .programChange(channel: 2, program: 0),
                                    .controlChange(channel: 3, controller: 0, value: 5), .programChange(channel: 3, program: 11),
                                    .programChange(channel: 9, program: 1), .programChange(channel: 10, program: 25),
                                    .programChange(channel: 4, program: 3)]
        for message in setup { ours.receive(message); reference.receive(message) }
        assertSamePrograms("after the song's program changes")
        XCTAssertEqual(ours.program(onChannel: 1)?.program, 11, "the forced program holds")
        XCTAssertEqual(ours.program(onChannel: 10)?.bank, 128, "channel 11 plays kits")
        XCTAssertEqual(ours.program(onChannel: 9)?.bank, 0, "channel 10 is melodic")
        XCTAssertEqual(ours.program(onChannel: 4)?.soundFontID, ours.soundFonts.last?.id, "the top font's program 3")
        XCTAssertEqual(ours.program(onChannel: 0)?.soundFontID, ours.soundFonts[1].id, "FluidR3's program 11")
    }

    func testAProgramTheFontLacksFallsBackToProgram0AsInFluidSynth() throws {
        var shipped = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { shipped.deleteLastPathComponent() }
        let paths = [shipped.appendingPathComponent("SoundFonts/seqplay-gm.sf2").path]
        let ours = try sampler(SharedSoundFonts(paths: paths, engine: .seqplay), engine: .seqplay)
        let reference = try sampler(SharedSoundFonts(paths: paths), engine: .fluidsynth)
        // The shipped font has neither program 11 nor bank 5: both play its program 0 (the engine was silent).
        let setup: [MIDIMessage] = [.programChange(channel: 0, program: 11), .controlChange(channel: 1, controller: 0, value: 5),
                                    .programChange(channel: 1, program: 11), .programChange(channel: 9, program: 99)]
        for message in setup { ours.receive(message); reference.receive(message) }
        for channel in UInt8(0)..<16 {
            XCTAssertEqual(ours.program(onChannel: channel), reference.program(onChannel: channel), "channel \(channel + 1)")
        }
        XCTAssertNotNil(ours.program(onChannel: 0))
    }

    func testAForcedProgramNoFontHasIsRefusedAsByFluidSynth() throws {
        guard FileManager.default.fileExists(atPath: Self.fluidR3) else { throw XCTSkip("\(Self.fluidR3) is not installed") }
        var settings = SamplerSettings(programs: [4: .init(program: 3, bank: 77)])
        settings.engine = .seqplay
        let sampler = try SamplerNode(settings: settings)
        sampler.addSoundFonts(try SharedSoundFonts(paths: [Self.fluidR3, Self.fluidR3], engine: .seqplay))
        XCTAssertThrowsError(try sampler.apply(settings)) { error in
            XCTAssertEqual(error as? SynthesizerError, .noSuchPreset(bank: 77, program: 3, channel: 4))
        }
        settings.programs = [:]
        settings.channelFonts = [0: "/nowhere.sf2"]
        XCTAssertThrowsError(try sampler.apply(settings)) { error in
            XCTAssertEqual(error as? SynthesizerError, .fontNotLoaded("/nowhere.sf2"))
        }
    }
}
