import Foundation

/// A one-line progress display on standard error while rendering: a bar, percent done, time
/// elapsed and speed as a multiple of real time. Draws only when standard error is a terminal,
/// and at most ten times a second. Counts rendered frames, or items of a unit ("files").
public final class ProgressBar {
    private let totalSeconds: Double
    private let sampleRate: Double
    private let isEnabled: Bool
    /// What is counted when not rendering ("files"): the speed is shown per second of it.
    private let unit: String?
    private let startTime = Date()
    private var lastDrawn = Date.distantPast
    private static let width = 30

    /// `expectedFrames` is the length the render is expected to reach (the song and its tail).
    public init(expectedFrames: Int64, sampleRate: Int, isEnabled: Bool = isatty(STDERR_FILENO) != 0) {
        totalSeconds = Double(max(1, expectedFrames)) / Double(sampleRate)
        self.sampleRate = Double(sampleRate)
        self.isEnabled = isEnabled
        unit = nil
    }

    /// A bar counting `total` items of `unit` ("files") with `update(frames:)` given the count done.
    public init(total: Int, unit: String, isEnabled: Bool = isatty(STDERR_FILENO) != 0) {
        totalSeconds = Double(max(1, total))
        sampleRate = 1
        self.isEnabled = isEnabled
        self.unit = unit
    }

    /// Shows `frames` rendered so far (redrawing at most every 0.1 s).
    public func update(frames: Int64) {
        guard isEnabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = now
        draw(frames: frames, now: now)
    }

    /// Draws the final state and ends the line.
    public func finish(frames: Int64) {
        guard isEnabled else { return }
        draw(frames: frames, now: Date(), complete: true)
        try? FileHandle.standardError.write(contentsOf: Data("\n".utf8))
    }

    private func draw(frames: Int64, now: Date, complete: Bool = false) {
        let audioSeconds = Double(frames) / sampleRate
        let fraction = complete ? 1 : min(1, audioSeconds / totalSeconds)
        let filled = Int(fraction * Double(Self.width))
        let elapsed = now.timeIntervalSince(startTime)
        let speed = elapsed > 0 ? audioSeconds / elapsed : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled)
        let percent = String(Int(fraction * 100))
        let line = "\r[\(bar)] \(String(repeating: " ", count: 3 - percent.count))\(percent)%  "
            + "\(Self.clock(elapsed)) elapsed  " + (unit.map { "\(Int(speed)) \($0)/s " } ?? "\(String(format: "%.1f", speed))× real time ")
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
    }

    private static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds)
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
