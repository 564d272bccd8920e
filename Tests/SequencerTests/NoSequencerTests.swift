import ALSA
import Foundation
import XCTest

/// On a machine without /dev/snd/seq, opening a client fails with a typed error and alsa-lib prints nothing.
final class NoSequencerTests: XCTestCase {
    func testOpeningWithoutTheDeviceThrowsNotAvailableAndPrintsNothing() throws {
        try XCTSkipIf(FileManager.default.fileExists(atPath: SequencerClient.devicePath),
                      "\(SequencerClient.devicePath) exists: this machine has a sequencer")
        let (result, stderrText) = try capturingStandardError { Result { () throws(SequencerError) in
            try SequencerClient(name: "seqplay test")
        } }
        guard case .failure(.notAvailable(let reason)) = result else {
            return XCTFail("expected notAvailable, got \(result)")
        }
        XCTAssertTrue(reason.contains("/dev/snd/seq does not exist"), reason)
        XCTAssertTrue("\(SequencerError.notAvailable(reason: reason))".hasPrefix("ALSA sequencer not available ("))
        XCTAssertEqual(stderrText, "", "alsa-lib wrote to stderr")
    }

    /// Runs `body` with file descriptor 2 redirected to a temporary file; returns what was written there.
    private func capturingStandardError<T>(_ body: () -> T) throws -> (T, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seqplay-stderr-\(getpid())").path
        let file = open(path, O_CREAT | O_TRUNC | O_RDWR, 0o600)
        XCTAssertGreaterThanOrEqual(file, 0)
        let saved = dup(2)
        dup2(file, 2)
        let value = body()
        dup2(saved, 2)
        close(saved)
        close(file)
        defer { unlink(path) }
        return (value, try String(contentsOfFile: path, encoding: .utf8))
    }
}
