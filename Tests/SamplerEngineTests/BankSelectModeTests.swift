import Foundation
import Sampler
import TestSupport
import XCTest

/// `--bank-select gm|gs|xg|mma` and the GM, GS and XG resets of a song with `--engine seqplay`: small songs rendered
/// dry by both engines of the built binary sound alike (level within 1 dB, 10 ms envelope within 2 dB), and unlike
/// what seqplay's engine played before it knew them (GS bank selects whatever the flag said, SysEx ignored).
final class BankSelectModeTests: XCTestCase {
    typealias Song = MIDIControlTests.Song

    /// GM System On, and the usual GS Reset and XG System On (device 0x10), as SMF SysEx events.
    static let gmSystemOn: [UInt8] = [0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7]
    static let gsReset: [UInt8] = [0xF0, 0x0A, 0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x41, 0xF7]

    /// `song` rendered dry to 32-bit float by `engine` with `arguments` added, read back interleaved.
    func render(_ song: Song, engine: String, _ arguments: [String] = [], scratch: ScratchDirectory) throws -> [Float] {
        let midi = scratch.path("song.mid"), output = scratch.path("\(engine)-\(arguments.joined(separator: "_")).wav")
        try MIDIControlTests.midiFile(song).write(to: URL(fileURLWithPath: midi))
        let run = try runSeqplay(["render", midi, "--sf2", MIDIControlTests.font, "--engine", engine, "--no-reverb", "--no-chorus",
                                  "--bit-depth", "float", "-o", output] + arguments, timeLimit: 300)
        XCTAssertEqual(run.status, 0, run.standardError)
        return EngineCommandLineTests.floatSamples(ofWAV: try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// Level and envelope of `ours` against `reference` over both.
    func comparison(_ ours: [Float], _ reference: [Float]) -> SamplerEngineTests.Comparison {
        SamplerEngineTests.compare(ours: ours, reference: reference, start: 0, analysed: min(ours.count, reference.count) / 2)
    }

    /// Renders `song` with `arguments` by both engines, checks them alike (and their levels over each of `windows`, in
    /// ms, within 1 dB) and returns seqplay's render.
    @discardableResult
    func checkAlike(_ name: String, _ song: Song, _ arguments: [String], windows: [Range<Int>] = [], scratch: ScratchDirectory) throws -> [Float] {
        let ours = try render(song, engine: "seqplay", arguments, scratch: scratch)
        let reference = try render(song, engine: "fluidsynth", arguments, scratch: scratch)
        let alike = comparison(ours, reference)
        print(String(format: "%@: --engine seqplay vs fluidsynth: fluidsynth %.1f dBFS, level %+.2f dB, envelope %.2f dB",
                     name, alike.referenceLevel, alike.levelDifference, alike.envelopeDifference))
        XCTAssertLessThan(abs(alike.levelDifference), 1, name)
        XCTAssertLessThan(alike.envelopeDifference, 2, name)
        for window in windows {
            let difference = MIDIControlTests.level(ours, from: window.lowerBound, to: window.upperBound)
                - MIDIControlTests.level(reference, from: window.lowerBound, to: window.upperBound)
            print(String(format: "%@: %d-%d ms, --engine seqplay %+.2f dB against fluidsynth", name, window.lowerBound, window.upperBound, difference))
            XCTAssertLessThan(abs(difference), 1, name)
        }
        return ours
    }

    /// Checks that `before` (seqplay's engine's render as it played before: GS bank selects, no SysEx) is more than
    /// `decibels` louder or quieter than `ours` over `from`..<`to` ms (of the `channel` 0 left, 1 right, nil both).
    func checkUnlike(_ name: String, _ ours: [Float], before: [Float], from: Int, to: Int, channel: Int? = nil, by decibels: Double) {
        func level(_ signal: [Float]) -> Double {
            guard let channel else { return MIDIControlTests.level(signal, from: from, to: to) }
            let one = stride(from: channel, to: signal.count, by: 2).flatMap { [signal[$0], signal[$0]] }
            return MIDIControlTests.level(one, from: from, to: to)
        }
        let difference = level(ours) - level(before)
        print(String(format: "%@: %d-%d ms %+.1f dB against the engine as it played before", name, from, to, difference))
        XCTAssertGreaterThan(abs(difference), decibels, "\(name): the old render is not different enough to tell")
    }

    /// Renders `song` with `--bank-select mode` by both engines, checks them alike, and unlike seqplay's engine's GS
    /// render (what it played before) over each window of `unlike` (ms) by more than 3 dB; returns seqplay's render.
    @discardableResult
    func checkBankSelect(_ mode: String, _ song: Song, unlike windows: [Range<Int>], scratch: ScratchDirectory) throws -> [Float] {
        let before = try render(song, engine: "seqplay", ["--bank-select", "gs"], scratch: scratch)
        let ours = try checkAlike("--bank-select \(mode)", song, ["--bank-select", mode], scratch: scratch)
        for window in windows {
            checkUnlike("--bank-select \(mode)", ours, before: before, from: window.lowerBound, to: window.upperBound, by: 3)
        }
        return ours
    }

    func testXGBankSelectMakesAMelodicChannelADrumKitAndBackAsFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-xg")
        defer { scratch.remove() }
        // Channel 1: CC 0 = 127 and program 0 (the Standard kit): kick, snare, hi-hat; then CC 0 = 0, CC 32 = 8,
        // program 4 (bank 8, Detuned EP 1 in FluidR3) for a chord.
        let song = Song(events: [(0, [0xB0, 0, 127]), (0, [0xC0, 0]), (10, [0x90, 36, 110]), (300, [0x80, 36, 0]),
                                 (500, [0x90, 38, 110]), (800, [0x80, 38, 0]), (1000, [0x90, 42, 110]), (1300, [0x80, 42, 0]),
                                 (1800, [0xB0, 0, 0]), (1800, [0xB0, 32, 8]), (1800, [0xC0, 4]),
                                 (2000, [0x90, 60, 100]), (2000, [0x90, 64, 100]), (2800, [0x80, 60, 0]), (2800, [0x80, 64, 0])],
                        lengthMs: 3800)
        try checkBankSelect("xg", song, unlike: [1000..<1300, 2000..<2800], scratch: scratch)
    }

    func testMMABankSelectTakesBothBytesAsFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-mma")
        defer { scratch.remove() }
        // CC 0 = 0, CC 32 = 8, program 40: bank 8 (Slow Violin in FluidR3, not GS's bank 0 Violin); then CC 0 = 1,
        // CC 32 = 0, program 0: bank 128 on a melodic channel, the Standard kit's snare.
        let song = Song(events: [(0, [0xB0, 0, 0]), (0, [0xB0, 32, 8]), (0, [0xC0, 40]), (10, [0x90, 67, 100]), (1200, [0x80, 67, 0]),
                                 (1800, [0xB0, 0, 1]), (1800, [0xB0, 32, 0]), (1800, [0xC0, 0]), (2000, [0x90, 38, 110]), (2400, [0x80, 38, 0])],
                        lengthMs: 3400)
        try checkBankSelect("mma", song, unlike: [10..<200, 2150..<2400], scratch: scratch)
    }

    func testGMModeAndGMSystemOnIgnoreBankSelectsAsFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-gm")
        defer { scratch.remove() }
        // CC 0 = 8, program 40: Slow Violin in GS mode, Violin when bank selects are ignored.
        let song = Song(events: [(0, [0xB0, 0, 8]), (0, [0xC0, 40]), (10, [0x90, 67, 100]), (1200, [0x80, 67, 0])], lengthMs: 2000)
        let gmMode = try checkBankSelect("gm", song, unlike: [10..<200], scratch: scratch)
        // The same song after a GM System On, in the default GS mode: the SysEx switches to GM, as in libfluidsynth.
        var systemOn = song
        systemOn.events.insert((0, Self.gmSystemOn), at: 0)
        let switched = try checkAlike("GM System On", systemOn, [], scratch: scratch)
        let same = comparison(switched, gmMode)
        XCTAssertLessThan(same.envelopeDifference, 0.5, "GM System On plays as --bank-select gm")
    }

    func testGSResetMidSongRestoresProgramsAndControllersAsFluidSynth() throws {
        let scratch = try ScratchDirectory(prefix: "engine-gs-reset")
        defer { scratch.remove() }
        // A quiet flute panned hard left, with a bank select; the GS Reset at 1.5 s: the next note is the piano at
        // volume 100, centred. Channel 2 is forced to the flute and channel 3 is a drum channel: they stay so after it.
        let song = Song(events: [(0, [0xB0, 0, 8]), (0, [0xC0, 73]), (0, [0xB0, 7, 40]), (0, [0xB0, 10, 0]), (0, [0xC1, 0]),
                                 (10, [0x90, 69, 100]), (1000, [0x80, 69, 0]), (1500, Self.gsReset),
                                 (1600, [0x90, 60, 100]), (2600, [0x80, 60, 0]), (2800, [0x91, 72, 90]), (3400, [0x81, 72, 0]),
                                 (3600, [0x92, 38, 110]), (3900, [0x82, 38, 0])],
                        lengthMs: 4600)
        var ignored = song
        ignored.events.removeAll { $0.bytes[0] == 0xF0 }
        let arguments = ["--program", "2=73", "--drums", "3,10"]
        let before = try render(ignored, engine: "seqplay", arguments, scratch: scratch)
        let ours = try checkAlike("GS reset", song, arguments, windows: [2800..<3400, 3750..<3900], scratch: scratch)
        // After the reset the piano is centred: heard on the right, where the flute panned left was not.
        checkUnlike("GS reset, right", ours, before: before, from: 1600, to: 2600, channel: 1, by: 10)
    }

    func testSysExAndSystemResetMessagesSwitchModesAndResetAsLibfluidsynth() throws {
        let engine = SoundFontEngine(bank: try SoundFontBank(path: MIDIControlTests.font), polyphony: 8)
        func program() -> [Int] { engine.program(onChannel: 0).map { [$0.bank, $0.program] } ?? [] }
        engine.apply(.controlChange(channel: 0, controller: 0, value: 8))
        engine.apply(.programChange(channel: 0, program: 40))
        XCTAssertEqual(program(), [8, 40])
        engine.apply(.systemReset)
        XCTAssertEqual(program(), [0, 0], "MIDI System Reset: program 0 of bank 0")
        // The usual XG System On (device 0x10): libfluidsynth at device id 0 takes it for another device; seqplay resets.
        engine.apply(.programChange(channel: 0, program: 40))
        engine.apply(.systemExclusive([0xF0, 0x43, 0x10, 0x4C, 0x00, 0x00, 0x7E, 0x00, 0xF7]))
        XCTAssertEqual(engine.bankSelect, .gs)
        XCTAssertEqual(program(), [0, 0])
        // To all devices, it switches to XG bank selects: CC 32 is the bank, CC 0 = 127 a kit.
        engine.apply(.systemExclusive([0xF0, 0x43, 0x7F, 0x4C, 0x00, 0x00, 0x7E, 0x00, 0xF7]))
        XCTAssertEqual(engine.bankSelect, .xg)
        engine.apply(.controlChange(channel: 0, controller: 32, value: 8))
        engine.apply(.programChange(channel: 0, program: 40))
        XCTAssertEqual(program(), [8, 40])
        // GM System On without framing bytes, as `reset(.generalMIDI)` sends it: GM, bank selects ignored.
        engine.reset(.generalMIDI)
        XCTAssertEqual(engine.bankSelect, .gm)
        engine.apply(.controlChange(channel: 0, controller: 0, value: 8))
        engine.apply(.programChange(channel: 0, program: 40))
        XCTAssertEqual(program(), [0, 40])
        // Other SysEx (a GS Reset with a wrong checksum) changes nothing.
        engine.apply(.systemExclusive([0xF0, 0x41, 0x10, 0x42, 0x12, 0x40, 0x00, 0x7F, 0x00, 0x42, 0xF7]))
        XCTAssertEqual(program(), [0, 40])
    }
}
