import ALSA
import AudioGraph
import Foundation
import XCTest

/// On a machine without sound support, opening a device says so and suggests rendering to a file.
final class NoSoundCardTests: XCTestCase {
    func testOpeningDefaultWithoutDevSndGivesTheNoSoundCardError() throws {
        try XCTSkipIf(FileManager.default.fileExists(atPath: SoundCards.deviceDirectory),
                      "\(SoundCards.deviceDirectory) exists: this machine has sound support")
        XCTAssertEqual(SoundCards.indices(), [])
        XCTAssertThrowsError(try ALSAOutput(deviceName: "default")) { error in
            guard case .device(let deviceError) = error as? AudioOutputError, deviceError.kind == .noDevice,
                  case .noSoundCard(let reason) = deviceError.underlying as? ALSAError else {
                return XCTFail("expected the no-sound-card error, got \(error)")
            }
            XCTAssertTrue(reason.contains("/dev/snd"))
            XCTAssertTrue("\(error)".contains("render to a file with -o song.wav"), "\(error)")
        }
        XCTAssertThrowsError(try PCMPlaybackDevice(name: "hw:1,0")) { error in
            XCTAssertEqual(error as? ALSAError, .noSoundCard(reason: "/dev/snd does not exist: the kernel has no sound support"))
        }
    }
}
