import Foundation
import TestSupport
import XCTest

/// Captures what is played to `hw:Loopback,0,0` by running `arecord` on `hw:Loopback,1,0`, the
/// independent peer the snd-aloop card pairs it with. Only usable where the Loopback card exists
/// (the alsa-vm guest; see Scripts/test-alsa).
final class LoopbackCapture {
    static let playbackDevice = "hw:Loopback,0,0"
    static let captureStatus = "/proc/asound/Loopback/pcm1c/sub0/status"

    /// Skips the calling test unless the snd-aloop Loopback card is present.
    static func skipUnlessAvailable() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/proc/asound/Loopback"),
                          "no snd-aloop Loopback card here: run Scripts/test-alsa (uses the alsa-vm guest)")
    }

    private let arecord: ChildProcess
    private let file: URL
    /// Bytes of capture per second of audio.
    private let bytesPerSecond: Int
    /// How long arecord captures at most.
    private let seconds: Int

    /// Starts capturing `seconds` of raw `format` (arecord's -f name) audio and returns once the
    /// capture substream is running, so nothing played afterwards is missed.
    init(format: String, sampleRate: Int, channelCount: Int, seconds: Int) throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID().uuidString).raw")
        let sampleBytes = ["S16_LE": 2, "S24_3LE": 3, "S24_LE": 4, "S32_LE": 4, "FLOAT_LE": 4, "FLOAT64_LE": 8][format]
        bytesPerSecond = (sampleBytes ?? 4) * channelCount * sampleRate
        self.seconds = seconds
        // 2 s capture buffer: emulation is slow, the capture side must never overrun.
        arecord = try ChildProcess("/usr/bin/arecord", ["-q", "-D", "hw:Loopback,1,0", "-t", "raw", "-f", format, "-r", "\(sampleRate)",
                             "-c", "\(channelCount)", "--buffer-time=2000000", "--period-time=250000",
                             "-d", "\(seconds)", file.path])
        for _ in 0..<400 {
            if let status = try? String(contentsOfFile: Self.captureStatus, encoding: .utf8),
               status.contains("state: RUNNING") { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        arecord.terminate()
        arecord.waitUntilExit()
        throw CaptureError.didNotStart
    }

    /// Called once everything was played: waits until another `margin` seconds of audio have been
    /// captured (counted in captured bytes, so however late the emulated guest runs, the end of what was
    /// played is in the capture), then stops arecord (it stops by itself after `seconds` at the latest)
    /// and returns the captured bytes.
    func finish(afterAnother margin: Double = 1) throws -> Data {
        defer { try? FileManager.default.removeItem(at: file) }
        func captured() -> Int { ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int) ?? 0 }
        let wanted = captured() + Int(margin * Double(bytesPerSecond))
        let deadline = Date().addingTimeInterval(Double(seconds) + 60)
        while arecord.isRunning && captured() < wanted && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let stopped = arecord.isRunning
        if stopped { arecord.interrupt() }
        let status = arecord.waitUntilExit()
        // Stopped by SIGINT, arecord writes out what it captured and ends (status 0, or 1 in older alsa-utils).
        guard status == 0 || (stopped && (status == 1 || status == 128 + SIGINT)) else { throw CaptureError.arecordFailed(status) }
        return try Data(contentsOf: file)
    }

    enum CaptureError: Error {
        case didNotStart
        case arecordFailed(Int32)
    }
}

/// Where a captured recording lines up with its reference, found by cross-correlation.
struct Alignment {
    /// Frames of capture before the reference's first frame.
    let offset: Int

    /// Aligns the first channels of `captured` and `reference` (interleaved, `channelCount` wide).
    /// The search is narrowed to ±`searchRadius` frames around the capture's first non-zero frame (the
    /// onset); within that window the lag with the largest cross-correlation over the first
    /// `window` reference frames wins. Nil when the capture is silent.
    init?(captured: [Float], reference: [Float], channelCount: Int, window: Int = 4096, searchRadius: Int = 64) {
        let capturedFrames = captured.count / channelCount
        guard let onset = (0..<capturedFrames).first(where: { captured[$0 * channelCount] != 0 }) else { return nil }
        let length = min(window, reference.count / channelCount)
        var best = (lag: onset, score: -Double.infinity)
        for lag in max(0, onset - searchRadius)...(onset + searchRadius) where lag + length <= capturedFrames {
            var score = 0.0
            for frame in 0..<length {
                score += Double(reference[frame * channelCount]) * Double(captured[(lag + frame) * channelCount])
            }
            if score > best.score { best = (lag, score) }
        }
        offset = best.lag
    }
}
