import AudioFiles
import AudioGraph
import Foundation
import LV2
import Sampler

/// One stem's file being written beside its mix (`NAME.ch01.wav`), through a `BlockFileWriter`
/// with the mix's gain; kept only when it sounded.
final class StemFile {
    let stem: StemPlan
    let path: String
    let output: BlockFileWriter

    /// The path of `stem`'s file beside the mix at `mixPath`: the mix's name, the stem's, the format's extension.
    static func path(of stem: StemPlan, besideMix mixPath: String, format: AudioFileFormat) -> String {
        (mixPath as NSString).deletingPathExtension + "." + stem.name + "." + format.rawValue
    }

    init(_ stem: StemPlan, besideMix mixPath: String, settings: BatchRenderSettings, sampleRate: Int, channelCount: Int,
         frames: Int64, gain: Float) throws {
        self.stem = stem
        path = Self.path(of: stem, besideMix: mixPath, format: settings.format)
        output = BlockFileWriter(file: try AudioFileWriter(path: path, format: settings.format, sampleFormat: settings.sampleFormat,
                                                           sampleRate: sampleRate, channelCount: channelCount, expectedFrameCount: frames),
                                 gain: gain)
    }

    /// Completes the file when the stem sounded (its peak reaches `RenderOptions.silenceThreshold`),
    /// else removes it; the stem's output (its path nil when removed).
    func finish() throws -> StemOutput {
        var result = stem.output
        result.peak = output.peak
        if output.peak >= RenderOptions.silenceThreshold {
            try output.finish()
            result.path = path
        } else {
            output.cancel()
            unlink(path)
        }
        return result
    }

    /// Leaves no file behind.
    func cancel() {
        output.cancel()
    }
}

/// The stem files of a one-pass render: each written from its channel group's output, block by
/// block beside the mix; silent ones removed at the end.
final class StemFiles {
    private let files: [StemFile]

    init(_ stems: [StemPlan], mixPath: String, settings: BatchRenderSettings, sampleRate: Int, frames: Int64, gain: Float) throws {
        files = try stems.map { try StemFile($0, besideMix: mixPath, settings: settings, sampleRate: sampleRate, channelCount: 2,
                                              frames: frames, gain: gain) }
    }

    /// Appends the last block of each group of `groups` (group i is stem i): its first `count` frames. A stem
    /// whose channels an LV2 instrument of `instruments` plays (the sampler's group is silent there) takes the
    /// instrument's block instead: a stem of the instrument's lowest channel among the stem's.
    func write(_ groups: ChannelGroupSampler, instruments: [LV2InstrumentNode] = [], count: Int) throws(AudioFileError) {
        for index in files.indices {
            let file = files[index]
            let channels = file.stem.output.channels.map(Int.init)
            if let instrument = instruments.first(where: { node in channels.contains { node.channels.min() == $0 } }),
               let output = instrument.lastOutput {
                try file.output.append(output, frameCount: count)
            } else {
                try file.output.append(groups.lastOutput(ofGroup: index), frameCount: count)
            }
        }
    }

    /// Finishes the stems that sounded, removes the silent ones; their outputs.
    func finish() throws -> [StemOutput] {
        try files.map { try $0.finish() }
    }

    /// Leaves no stem file behind.
    func cancel() {
        for file in files { file.cancel() }
    }
}
