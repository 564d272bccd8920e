import AudioFiles
import Foundation
import TestSupport
import XCTest

/// `live` and `serve` take the sampler and sound-card flags from the groups songs use, with one set of
/// live defaults: 48000 Hz (serve records at it), 128 frames x 2, gain 0.2 — documented in both helps.
final class LiveHostOptionsTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let font = packageRoot.appendingPathComponent("SoundFonts/click.sf2").path

    private func serveRecording(_ flags: [String]) throws -> AudioFileReader {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-live-host-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("heard.wav").path
        let port = 40_000 + Int.random(in: 0..<20_000)
        let run = try runCommand(seqplayBinary, ["serve", "--network", "--listen", "127.0.0.1:\(port)", "--sf2", Self.font,
                                                "-o", path, "--duration", "0.5"] + flags)
        XCTAssertEqual(run.status, 0, run.standardError)
        return try AudioFileReader(path: path)
    }

    func testServeRecordsAtTheLiveRateUnlessToldOtherwise() throws {
        XCTAssertEqual(try serveRecording([]).sampleRate, 48_000)
        XCTAssertEqual(try serveRecording(["-r", "22050", "--period", "64", "--periods", "4"]).sampleRate, 22_050)
    }

    func testLiveAndServeDocumentTheSameDefaults() throws {
        let helps = try ["live", "serve"].map { try runCommand(seqplayBinary, ["help", $0]).standardOutput }
        for help in helps {
            let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            XCTAssertTrue(flat.contains("Default 128 for live and serve"), flat)
            XCTAssertTrue(flat.contains("Default 2 for live and serve"), flat)
            XCTAssertTrue(flat.contains("Default 48000 for live and serve"), flat)
            XCTAssertTrue(flat.contains("(default: 0.2)"), flat)
            XCTAssertEqual(flat.components(separatedBy: "--sf2 <file>").count, 2, "one --sf2")
        }
    }

    func testLiveAndServeReadPerChannelFlagsAsSongsDo() throws {
        for command in [["live"], ["serve", "--network"], ["Songs/none.mid"]] {
            let run = try runCommand(seqplayBinary, command + ["--program", "17=1"])
            XCTAssertEqual(run.status, 64)
            XCTAssertTrue(run.standardError.contains("--program takes CHANNEL=PROGRAM[:BANK] (channel 1-16, program 0-127, bank 0-16383), not '17=1'."),
                          run.standardError)
        }
    }
}
