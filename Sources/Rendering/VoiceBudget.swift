import Sampler
import MIDIFile

/// A render's voice budget (`SamplerSettings.polyphony`: the most voices sounding at once in the
/// whole render), whatever channel groups (`ChannelGroups`) and threads render it: `VoiceLedger`
/// keeps it exactly, stealing a voice only when the voices sounding in all groups together would
/// exceed it. `shares(peaks:)`, the split of the budget in proportion to estimated peaks that
/// renders used before, stays for the library's users.
public struct VoiceBudget: Hashable, Sendable {
    /// The most voices sounding at once in the whole render.
    public var voices: Int

    public init(voices: Int) { self.voices = voices }

    /// The polyphony of each group whose estimated peaks are `peaks`; they add up to `voices` (each
    /// group gets at least 1, so more groups than voices exceed it by the difference).
    public func shares(peaks: [Int]) -> [Int] {
        let count = peaks.count
        guard count > 0 else { return [] }
        guard voices > count else { return [Int](repeating: 1, count: count) }
        let peaks = peaks.map { max(0, $0) }
        let total = peaks.reduce(0, +)
        if total <= voices {
            // Each its peak, the rest shared equally (the remainder to the first groups).
            let spare = voices - total
            return peaks.indices.map { peaks[$0] + spare / count + ($0 < spare % count ? 1 : 0) }
        }
        // In proportion to the peaks, at least 1 each; the rounding left over to the largest remainders.
        let exact = peaks.map { Double(voices) * Double($0) / Double(total) }
        var shares = exact.map { max(1, Int($0.rounded(.down))) }
        var left = voices - shares.reduce(0, +)
        let byRemainder = shares.indices.sorted { (exact[$0] - Double(shares[$0]), -$0) > (exact[$1] - Double(shares[$1]), -$1) }
        var next = 0
        while left > 0 {
            shares[byRemainder[next % count]] += 1
            next += 1
            left -= 1
        }
        while left < 0 {
            let largest = shares.indices.max { (shares[$0], -$0) < (shares[$1], -$1) }!
            shares[largest] -= 1
            left += 1
        }
        return shares
    }
}

/// The voices a song's channels sound over its time, estimated before rendering (no longer used by
/// renders, whose budget `VoiceLedger` keeps exactly; kept for the library's users) from the voices each
/// note starts (`NoteVoices`, probed on a synthesizer with the song's fonts and settings), each held
/// from the note-on to the note-off and then for its mean release (at most 2 s). Counted in at most
/// 65536 slices of the song (10 ms or longer): a note counts in every slice it touches, so the peaks
/// err on the high side.
public struct VoiceDemand: Sendable {
    /// Per channel (16), the voices sounding in each slice; empty for a channel without notes.
    private var slices: [[Int32]]
    private let sliceSeconds: Double

    /// Slices of at least 10 ms, at most this many.
    static let maximumSlices = 65_536

    init(songSeconds: Double) {
        let seconds = max(0, songSeconds.isFinite ? songSeconds : 0) + 2
        let count = min(Self.maximumSlices, max(1, Int((seconds / 0.01).rounded(.up))))
        sliceSeconds = seconds / Double(count)
        slices = [[Int32]](repeating: [], count: 16)
        sliceCount = count
    }

    private let sliceCount: Int
    private var summed = false

    /// Counts `voices` voices on `channel` from `startSeconds` for `seconds`.
    mutating func add(channel: UInt8, voices: Int, startSeconds: Double, seconds: Double) {
        guard voices > 0 else { return }
        let channel = Int(channel & 0x0F)
        if slices[channel].isEmpty { slices[channel] = [Int32](repeating: 0, count: sliceCount + 1) }
        let first = slice(at: startSeconds), last = slice(at: startSeconds + max(0, seconds))
        let count = Int32(clamping: voices)
        slices[channel][first] &+= count
        slices[channel][last + 1] &-= count
    }

    private func slice(at seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return min(sliceCount - 1, Int(seconds / sliceSeconds))
    }

    /// Turns the counted starts and ends into the voices sounding in each slice.
    mutating func finish() {
        guard !summed else { return }
        summed = true
        for channel in slices.indices where !slices[channel].isEmpty {
            var running: Int32 = 0
            for index in slices[channel].indices {
                running &+= slices[channel][index]
                slices[channel][index] = running
            }
        }
    }

    /// The most voices `channels` sound together in any slice.
    public func peak(of channels: [Int]) -> Int {
        let used = channels.filter { (0..<16).contains($0) && !slices[$0].isEmpty }
        guard !used.isEmpty else { return 0 }
        var peak = 0
        for index in 0..<sliceCount {
            var sum = 0
            for channel in used { sum += Int(slices[channel][index]) }
            peak = max(peak, sum)
        }
        return peak
    }
}
