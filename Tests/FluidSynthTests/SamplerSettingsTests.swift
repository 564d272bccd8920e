import Sampler
import XCTest

/// `SamplerSettings`: the per-channel mini-languages (`--program`, `--font-for`, `--drums`), and a
/// synthesizer made and changed with one value.
final class SamplerSettingsTests: XCTestCase {
    func testProgramAssignmentsParse() throws {
        XCTAssertEqual(try SamplerSettings.ProgramAssignment(parsing: "10=0:128"),
                       .init(channel: 9, program: .init(program: 0, bank: 128)))
        XCTAssertEqual(try SamplerSettings.ProgramAssignment(parsing: "1=40"), .init(channel: 0, program: .init(program: 40)))
        for bad in ["", "1", "0=1", "17=1", "1=128", "1=x", "1=1:16384", "=1", "1=1:2:3"] {
            XCTAssertThrowsError(try SamplerSettings.ProgramAssignment(parsing: bad), bad) { error in
                XCTAssertEqual("\(error)", "takes CHANNEL=PROGRAM[:BANK] (channel 1-16, program 0-127, bank 0-16383), not '\(bad)'.")
            }
        }
    }

    func testFontAssignmentsParse() throws {
        XCTAssertEqual(try SamplerSettings.FontAssignment(parsing: "16=a=b.sf2"), .init(channel: 15, path: "a=b.sf2"))
        for bad in ["1=", "x=a.sf2", "17=a.sf2", "a.sf2"] {
            XCTAssertThrowsError(try SamplerSettings.FontAssignment(parsing: bad), bad) { error in
                XCTAssertEqual("\(error)", "takes CHANNEL=FILE (channel 1-16), not '\(bad)'.")
            }
        }
    }

    func testDrumChannelListsParse() throws {
        XCTAssertEqual(try SamplerSettings.DrumChannelList(parsing: "10, 11").channels, [9, 10])
        XCTAssertEqual(try SamplerSettings.DrumChannelList(parsing: "1").channels, [0])
        for bad in ["", ",", "0", "17", "10,x"] {
            XCTAssertThrowsError(try SamplerSettings.DrumChannelList(parsing: bad), bad) { error in
                XCTAssertEqual("\(error)", "takes channels 1 to 16 separated by commas, not '\(bad)'.")
            }
        }
    }

    func testInterpolationNames() {
        XCTAssertEqual(["none", "0", "linear", "1", "4", "7"].map { SamplerSettings.Interpolation(name: $0) },
                       [SamplerSettings.Interpolation.none, SamplerSettings.Interpolation.none, .linear, .linear, .fourthOrder, .seventhOrder])
        XCTAssertNil(SamplerSettings.Interpolation(name: "cubic"))
    }

    func testChannelFontsLoadFirstOnce() {
        var settings = SamplerSettings()
        settings.channelFonts = [3: "b.sf2", 1: "a.sf2", 2: "b.sf2"]
        XCTAssertEqual(settings.fontLoadOrder(["gm.sf2"]), ["a.sf2", "b.sf2", "gm.sf2"])
    }

    /// The synthesizer is made with the settings' polyphony, gain and effects on/off, and `apply`
    /// changes them: what it reports afterwards is what it was given (bank select stays as made).
    func testSynthesizerTakesAndReportsTheSettings() throws {
        var settings = SamplerSettings(polyphony: 48, bankSelect: .xg, gain: 0.5)
        settings.reverb.isEnabled = false
        let synth = try Synthesizer(settings: settings, sampleRate: 48_000)
        XCTAssertEqual(synth.polyphony, 48)
        XCTAssertEqual(synth.gain, 0.5)
        XCTAssertFalse(synth.reverbEnabled)
        XCTAssertTrue(synth.chorusEnabled)
        XCTAssertEqual(synth.sampleRate, 48_000)
        var changed = settings
        changed.polyphony = 12
        changed.gain = 0.1
        changed.reverb.isEnabled = true
        changed.chorus = .init(isEnabled: false, voices: 5)
        changed.bankSelect = .mma
        try synth.apply(changed)
        XCTAssertEqual(synth.polyphony, 12)
        XCTAssertEqual(synth.gain, 0.1)
        XCTAssertTrue(synth.reverbEnabled)
        XCTAssertFalse(synth.chorusEnabled)
        XCTAssertEqual(synth.settings.chorus.voices, 5)
        XCTAssertEqual(synth.settings.bankSelect, .xg, "the bank-select mode is the one the synthesizer was made with")
    }
}
