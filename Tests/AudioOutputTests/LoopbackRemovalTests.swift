import ALSA
import AudioGraph
import Foundation
import TestSupport
import XCTest

/// A device that disappears mid-playback (the Loopback card's driver unbound) ends playback with
/// `deviceDisappeared`, never a hang. Named to run after ALSALoopbackTests: it removes the card for a
/// moment. Runs in the alsa-vm guest as root (Scripts/test-alsa); skipped elsewhere.
final class LoopbackRemovalTests: XCTestCase {
    private let format = AudioFormat(sampleRate: 44_100, channelCount: 2)

    override func setUpWithError() throws {
        try LoopbackCapture.skipUnlessAvailable()
    }

    func testDeviceThatDisappearsEndsPlaybackWithATypedError() throws {
        let driver = "/sys/bus/platform/drivers/snd_aloop"
        try XCTSkipUnless(geteuid() == 0 && FileManager.default.fileExists(atPath: "\(driver)/snd_aloop.0"),
                          "unbinding the Loopback card needs root and the snd_aloop platform device")
        var output: ALSAOutput? = try ALSAOutput(
            deviceName: LoopbackCapture.playbackDevice,
            settings: PCMPlaybackSettings(sampleRate: 44_100, channelCount: 2, periodFrames: 1024, periodCount: 4))
        let end = PlaybackEndBox()
        try output!.start(engine: TestSignal.makeEngine(format: format)) { end.set($0) }
        Thread.sleep(forTimeInterval: 1)
        // Unbinding removes the card; the kernel waits for open files to close before it returns.
        let unbind = try ChildProcess("/bin/sh", ["-c", "echo snd_aloop.0 > \(driver)/unbind"])
        guard let ended = end.wait(seconds: 30) else {
            // Leave the output open rather than hang joining a stuck thread; the card stays unbound.
            return XCTFail("playback did not end within 30 s of the device disappearing")
        }
        output?.waitUntilEnded()
        output = nil
        unbind.waitUntilExit()
        try ChildProcess("/bin/sh", ["-c", "echo snd_aloop.0 > \(driver)/bind"]).waitUntilExit()

        print("ALSA device removal: playback ended with \(ended)")
        guard case .failed(let error) = ended, error.kind == .deviceDisappeared,
              case .deviceDisappeared(let device, _) = error.underlying as? ALSAError else {
            return XCTFail("expected deviceDisappeared, got \(ended)")
        }
        XCTAssertEqual(device, LoopbackCapture.playbackDevice)
    }
}

/// How playback ended, handed from the render thread's end callback to the test thread.
private final class PlaybackEndBox: @unchecked Sendable {
    private let lock = NSLock()
    private var end: PlaybackEnd?

    func set(_ end: PlaybackEnd) {
        lock.lock()
        self.end = end
        lock.unlock()
    }

    /// The end once set, polling for up to `seconds`; nil if playback has not ended by then.
    func wait(seconds: Double) -> PlaybackEnd? {
        for _ in 0..<Int(seconds * 20) {
            lock.lock()
            let end = self.end
            lock.unlock()
            if let end { return end }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }
}
