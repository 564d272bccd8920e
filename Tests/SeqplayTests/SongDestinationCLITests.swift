import Foundation
import TestSupport
import XCTest

/// `--port` and `--port-for-track` take every playback flag (they were refused before the one
/// scheduler); malformed track assignments are usage errors. Without an ALSA sequencer the command
/// gets past the flags and stops at the sequencer (exit 6); with one (the alsa-vm) it plays to Midi Through.
final class SongDestinationCLITests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let song = packageRoot.appendingPathComponent("Songs/bach-prelude-c.mid").path

    private func run(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let run = try runCommand(seqplayBinary, arguments)
        return (run.status, run.standardError)
    }

    func testPortsTakeEveryPlaybackFlag() throws {
        let result = try run([Self.song, "--port", "14:0", "--port-for-track", "2=14:0", "--no-audio", "--clock",
                              "--start", "1", "--end", "2", "--loop", "2", "--rate", "1.5", "--transpose", "2",
                              "--mute", "1", "--solo-channel", "2"])
        let hasSequencer = FileManager.default.fileExists(atPath: "/dev/snd/seq")
        XCTAssertEqual(result.status, hasSequencer ? 0 : 6, result.errors)
        if !hasSequencer { XCTAssertTrue(result.errors.contains("ALSA sequencer not available"), result.errors) }
    }

    func testMalformedTrackAssignmentsAreUsageErrors() throws {
        for assignment in ["2", "x=14:0", "-1=14:0", "2="] {
            let result = try run([Self.song, "--port-for-track", assignment])
            XCTAssertEqual(result.status, 64, "\(assignment): \(result.errors)")
        }
        let twice = try run([Self.song, "--port-for-track", "1=14:0", "--port-for-track", "1=20:0"])
        XCTAssertEqual(twice.status, 64, twice.errors)
        XCTAssertTrue(twice.errors.contains("two ports"), twice.errors)
    }
}
