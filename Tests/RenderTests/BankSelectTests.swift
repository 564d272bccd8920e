import AudioFiles
import Foundation
import MIDICore
import MIDIFile
import TestSupport
import XCTest

/// `--bank-select gm|gs|xg` with GS and XG drum kits, on a generated font whose every preset sounds
/// its own pitch (`Scripts/make-soundfonts.py --kits`): bank 0 220 Hz, bank 8 330 Hz, drum kits
/// Standard 500 Hz, Room 700 Hz, Power 900 Hz, and no Electronic kit (128:25). A kit or bank the font
/// lacks falls back to the Standard kit / bank 0 with one warning, however often the song asks.
final class BankSelectTests: RenderTestCase {
    private static let pitches: [Double] = [220, 330, 500, 700, 900]

    private func kitsFont() throws -> String {
        let path = try temporaryDirectory().appendingPathComponent("kits.sf2").path
        let run = try runCommand(URL(fileURLWithPath: "/usr/bin/python3"),
                                 [Self.packageRoot.appendingPathComponent("Scripts/make-soundfonts.py").path, "--kits", path])
        XCTAssertEqual(run.status, 0, "make-soundfonts.py --kits: \(run.standardError)")
        return path
    }

    /// Three times on `channel` (0-based): the bank select (CC 0 = `msb`, when given), the program,
    /// and a note held half a second.
    private func song(channel: UInt8, msb: UInt8?, program: UInt8) -> MusicSequence {
        var events: [TimedEvent] = []
        for pass in 0..<3 {
            let tick = Int64(pass * 960)
            if let msb { events.append(TimedEvent(tick: tick, .midi(.controlChange(channel: channel, controller: 0, value: msb)))) }
            events.append(TimedEvent(tick: tick, .midi(.programChange(channel: channel, program: program))))
            events.append(TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: 60, velocity: 100))))
            events.append(TimedEvent(tick: tick + 480, .midi(.noteOff(channel: channel, note: 60, velocity: 0))))
        }
        events.append(TimedEvent(tick: 3 * 960, .meta(.endOfTrack)))
        return MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [MusicTrack(events: events)])
    }

    /// The pitch of the kits font the render of `sequence` sounds, and the fallback warnings printed.
    private func play(_ sequence: MusicSequence, font: String, mode: String?) throws -> (pitch: Double, warnings: [String]) {
        let directory = try temporaryDirectory()
        let midi = directory.appendingPathComponent("song.mid").path
        let output = directory.appendingPathComponent("out.wav").path
        try MIDIFileWriter.write(sequence, to: midi)
        let run = try seqplay([midi, "--sf2", font, "-o", output, "--no-reverb", "--no-chorus", "--tail", "0.2"]
                              + (mode.map { ["--bank-select", $0] } ?? []))
        XCTAssertEqual(run.status, 0, run.standardError)
        let reader = try AudioFileReader(path: output)
        let left = try reader.readAll()[0]
        // The first note's middle (0.1 to 0.4 s), where only the sine of the chosen preset sounds.
        let rate = Double(reader.sampleRate)
        let range = Int(0.1 * rate)..<Int(0.4 * rate)
        let pitch = Self.pitches.max { amplitude(left, $0, range, rate) < amplitude(left, $1, range, rate) }!
        let warnings = run.standardError.split(separator: "\n").map(String.init).filter { $0.contains("not found") }
        return (pitch, warnings)
    }

    private func amplitude(_ samples: [Float], _ frequency: Double, _ range: Range<Int>, _ rate: Double) -> Double {
        var re = 0.0, im = 0.0
        for n in range {
            let phase = 2 * Double.pi * frequency * Double(n) / rate
            re += Double(samples[n]) * cos(phase)
            im += Double(samples[n]) * sin(phase)
        }
        return (re * re + im * im).squareRoot()
    }

    func testGSDrumKitsAreSelectedByProgramOnChannel10AndAMissingKitFallsBackOnceToStandard() throws {
        let font = try kitsFont()
        XCTAssertEqual(try play(song(channel: 9, msb: nil, program: 8), font: font, mode: nil).pitch, 700, "Room kit")
        XCTAssertEqual(try play(song(channel: 9, msb: nil, program: 16), font: font, mode: "gs").pitch, 900, "Power kit")
        let electronic = try play(song(channel: 9, msb: nil, program: 25), font: font, mode: "gs")
        print("GS kit 25 on a font without it: \(electronic.pitch) Hz, warnings \(electronic.warnings)")
        XCTAssertEqual(electronic.pitch, 500, "the Standard kit plays instead")
        XCTAssertEqual(electronic.warnings.count, 1, "one warning for three program changes")
        XCTAssertEqual(electronic.warnings, ["seqplay: warning: Instrument not found on channel 9 [bank=128 prog=25], substituted [bank=128 prog=0]"])
    }

    func testGSBankSelectPicksAVariationAndAMissingBankFallsBackOnceToBank0() throws {
        let font = try kitsFont()
        XCTAssertEqual(try play(song(channel: 0, msb: 8, program: 0), font: font, mode: "gs").pitch, 330)
        let missing = try play(song(channel: 0, msb: 9, program: 0), font: font, mode: "gs")
        XCTAssertEqual(missing.pitch, 220)
        XCTAssertEqual(missing.warnings.count, 1, "\(missing.warnings)")
        let generalMIDI = try play(song(channel: 0, msb: 8, program: 0), font: font, mode: "gm")
        XCTAssertEqual(generalMIDI.pitch, 220, "gm ignores bank select")
        XCTAssertEqual(generalMIDI.warnings, [])
    }

    func testXGBankMSB127MakesAnyChannelADrumKit() throws {
        let font = try kitsFont()
        let xg = try play(song(channel: 0, msb: 127, program: 16), font: font, mode: "xg")
        XCTAssertEqual(xg.pitch, 900, "channel 1 plays the Power kit")
        XCTAssertEqual(xg.warnings, [])
        XCTAssertEqual(try play(song(channel: 0, msb: 127, program: 8), font: font, mode: "xg").pitch, 700, "Room kit")
        // Read as GS, the same file asks channel 1 for melodic bank 127: bank 0 is what the font has.
        XCTAssertEqual(try play(song(channel: 0, msb: 127, program: 16), font: font, mode: "gs").pitch, 220)
    }
}
