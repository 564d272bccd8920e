import AudioFiles
import Foundation

extension SongRenderer {
    /// What rendering this song to `path` would write, as `seqplay -o FILE --dry-run` prints it: the
    /// output, its format and encoding (`quality`, `bitrateMode` for lossy formats), the duration with
    /// its tail, the estimated size and the threads.
    public func dryRunReport(path: String, format: AudioFileFormat, sampleFormat: AudioSampleFormat?, quality: Double?,
                             bitrateMode: AudioEncoding.BitrateMode?) -> String {
        let rate = options.sampleRate
        let estimate = AudioFileEstimate(format: format, sampleFormat: sampleFormat ?? format.defaultSampleFormat, sampleRate: rate,
                                         channelCount: options.outputChannelCount, frames: maximumFrames, quality: quality)
        let songSeconds = Double(songFrames) / Double(rate), seconds = Double(maximumFrames) / Double(rate)
        let tail: String
        switch options.tail {
        case .fixed: tail = "song \(String(format: "%.3f", songSeconds)) s and its tail"
        case .untilSilent: tail = "at most: song \(String(format: "%.3f", songSeconds)) s, then until silent"
        }
        let encodingText = format.isLossy ? "quality \(quality.map { String(format: "%g", $0) } ?? "default"), \((bitrateMode ?? .variable).rawValue) bitrate"
            : "\((sampleFormat ?? format.defaultSampleFormat)?.rawValue ?? "")"
        let megabytes = String(format: "%.2f", Double(estimate.bytes) / 1_000_000)
        let groups = channelGroups?.samplers.count ?? 1
        return """
        output:   \(path)
        format:   \(format.rawValue), \(encodingText), \(rate) Hz, \(options.outputChannelCount) channels
        duration: \(String(format: "%.3f", seconds)) s, \(maximumFrames) frames (\(tail))
        size:     \(estimate.isExact ? "" : "about ")\(megabytes) MB (\(estimate.bytes) bytes\(estimate.isExact ? "" : ", typical for \(format.rawValue)"))
        threads:  \(max(1, min(options.threads, groups))), rendering \(groups) channel group\(groups == 1 ? "" : "s")
        """
    }
}
