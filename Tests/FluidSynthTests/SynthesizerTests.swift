import AudioTestSupport
import Sampler
import Foundation
import MIDICore
import XCTest

final class SynthesizerTests: XCTestCase {
    static let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    static let timGM = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    let sampleRate = 44_100.0

    func requireFont(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("\(path) is not installed (apt-get install fluid-soundfont-gm timgm6mb-soundfont)")
        }
    }

    /// A synthesizer with reverb and chorus off, so the output is the dry voices only.
    func drySynthesizer() throws -> Synthesizer {
        try Synthesizer(settings: SamplerSettings(reverb: .init(isEnabled: false), chorus: .init(isEnabled: false)), sampleRate: sampleRate)
    }

    /// Renders `frames` frames and returns the left channel.
    func renderLeft(_ synth: Synthesizer, frames: Int) -> [Float] {
        var left = [Float](repeating: .nan, count: frames)
        var right = [Float](repeating: .nan, count: frames)
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                synth.render(frameCount: frames, left: l.baseAddress!, right: r.baseAddress!)
            }
        }
        return left
    }

    func testPresetsOfFluidR3IncludePianoAndPercussionBank() throws {
        try requireFont(Self.fluidR3)
        let synth = try drySynthesizer()
        let font = try synth.loadSoundFont(at: Self.fluidR3)
        let presets = synth.presets
        let piano = try XCTUnwrap(presets.first { $0.bank == 0 && $0.program == 0 })
        XCTAssertEqual(piano.soundFont, font)
        XCTAssertTrue(piano.name.localizedCaseInsensitiveContains("piano"), piano.name)
        XCTAssertTrue(presets.contains { $0.bank == 128 })
        XCTAssertGreaterThanOrEqual(presets.filter { $0.bank == 0 }.count, 128)
    }

    func testChannelTenPlaysThePercussionBank() throws {
        try requireFont(Self.fluidR3)
        let synth = try drySynthesizer()
        try synth.loadSoundFont(at: Self.fluidR3)
        XCTAssertEqual(synth.program(onChannel: 9)?.bank, 128)
        XCTAssertEqual(synth.program(onChannel: 0)?.bank, 0)
        synth.receive(.programChange(channel: 9, program: 25))
        let drums = try XCTUnwrap(synth.program(onChannel: 9))
        XCTAssertEqual([drums.soundFontID, drums.bank, drums.program], [synth.soundFonts[0].id, 128, 25])
    }

    func testLastLoadedFontHasPriority() throws {
        try requireFont(Self.fluidR3)
        try requireFont(Self.timGM)
        let synth = try drySynthesizer()
        let first = try synth.loadSoundFont(at: Self.fluidR3)
        let second = try synth.loadSoundFont(at: Self.timGM)
        XCTAssertEqual(synth.program(onChannel: 0)?.soundFontID, second.id)
        let pianos = synth.presets.filter { $0.bank == 0 && $0.program == 0 }
        XCTAssertEqual(pianos.map(\.soundFont), [second, first])
        synth.unloadSoundFont(second)
        XCTAssertEqual(synth.program(onChannel: 0)?.soundFontID, first.id)
    }

    func testSelectProgramFailsForAMissingPreset() throws {
        try requireFont(Self.timGM)
        let synth = try drySynthesizer()
        try synth.loadSoundFont(at: Self.timGM)
        try synth.selectProgram(40, bank: 0, channel: 3)
        XCTAssertEqual(synth.program(onChannel: 3)?.program, 40)
        XCTAssertThrowsError(try synth.selectProgram(0, bank: 77, channel: 3)) { error in
            XCTAssertEqual(error as? SynthesizerError, .noSuchPreset(bank: 77, program: 0, channel: 3))
        }
    }

    func testRenderIsSilentBeforeNoteOn() throws {
        try requireFont(Self.fluidR3)
        let synth = try drySynthesizer()
        try synth.loadSoundFont(at: Self.fluidR3)
        let silence = renderLeft(synth, frames: 4096)
        XCTAssertEqual(ToneAnalysis.peak(of: silence[...]), 0)
        synth.receive(.noteOn(channel: 0, note: 60, velocity: 100))
        let sound = renderLeft(synth, frames: 4096)
        XCTAssertGreaterThan(ToneAnalysis.peak(of: sound[...]), 0.01)
        XCTAssertGreaterThan(synth.activeVoiceCount, 0)
    }

    func testPianoA4Is440Hz() throws {
        try requireFont(Self.fluidR3)
        let synth = try drySynthesizer()
        try synth.loadSoundFont(at: Self.fluidR3)
        try synth.selectProgram(0, bank: 0, channel: 0)
        synth.receive(.noteOn(channel: 0, note: 69, velocity: 100))
        let audio = renderLeft(synth, frames: Int(sampleRate * 1.5))
        let steady = audio[Int(sampleRate * 0.3)..<Int(sampleRate * 1.3)]
        let frequency = ToneAnalysis.dominantFrequency(of: steady, sampleRate: sampleRate, lowest: 380, highest: 500)
        XCTAssertEqual(frequency, 440, accuracy: 1, "measured \(frequency) Hz")
    }

    func testResetSysExSilencesVoicesAndOtherSysExDoesNot() throws {
        try requireFont(Self.timGM)
        let synth = try drySynthesizer()
        try synth.loadSoundFont(at: Self.timGM)
        synth.receive(.noteOn(channel: 0, note: 60, velocity: 100))
        _ = renderLeft(synth, frames: 1024)
        // A Roland DT1 message to an unrelated address is not a reset.
        synth.receive(.systemExclusive([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x01, 0x30, 0x00, 0x0F, 0xF7]))
        _ = renderLeft(synth, frames: 256)
        XCTAssertGreaterThan(synth.activeVoiceCount, 0)
        synth.receive(.systemExclusive([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41, 0xF7]))
        _ = renderLeft(synth, frames: 256)
        XCTAssertEqual(synth.activeVoiceCount, 0)
    }

    func testAllSoundsOffAndResetKinds() throws {
        try requireFont(Self.timGM)
        let synth = try drySynthesizer()
        try synth.loadSoundFont(at: Self.timGM)
        for kind in ResetKind.allCases {
            synth.receive(.noteOn(channel: 0, note: 64, velocity: 90))
            // Past the first 256 frames, where FluidSynth 2.3's own system reset only releases voices.
            _ = renderLeft(synth, frames: 1024)
            XCTAssertGreaterThan(synth.activeVoiceCount, 0, "\(kind)")
            synth.reset(kind)
            _ = renderLeft(synth, frames: 128)
            XCTAssertEqual(synth.activeVoiceCount, 0, "\(kind)")
        }
        synth.receive(.noteOn(channel: 0, note: 64, velocity: 90))
        synth.allSoundsOff()
        _ = renderLeft(synth, frames: 128)
        XCTAssertEqual(synth.activeVoiceCount, 0)
    }

    func testLiveParametersTakeEffect() throws {
        let synth = try drySynthesizer()
        synth.gain = 0.5
        XCTAssertEqual(synth.gain, 0.5)
        synth.polyphony = 32
        XCTAssertEqual(synth.polyphony, 32)
        synth.reverbEnabled = true
        XCTAssertEqual(synth.settings.reverb.isEnabled, true)
    }

    func testOutOfRangeSampleRateIsRejected() {
        XCTAssertThrowsError(try Synthesizer(sampleRate: 1_000_000)) { error in
            XCTAssertEqual(error as? SynthesizerError, .settingRejected("synth.sample-rate"))
        }
    }
}
