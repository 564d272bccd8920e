import AudioFiles
import Foundation
import Loudness
import Rendering

/// Pulls a renderer's blocks into a file writer, measuring the peak (and loudness) on the way.
enum BlockWriter {
    /// Frames gathered before each write: libsndfile makes a system call of every write (of 8 KiB at
    /// most for 16-bit samples), and a renderer's blocks are 512 frames; written one by one, they cost
    /// ~50,000 system calls per 10 minutes of audio.
    static let framesPerWrite = 4096

    /// Writes `renderer`'s blocks, times `gain`, to `writer` (not finished; nil: only measures): all
    /// of them, or exactly `frames` frames (cut, or padded with silence). Returns the peak, or nil when
    /// cancelled (the writer then cancelled). `progress` gets the frames written since its last call,
    /// every 16384 or so; `afterBlock` the frames of each block written (stems write theirs then).
    static func write(_ renderer: SongRenderer, to writer: AudioFileWriter?, channelCount channels: Int, frames: Int64? = nil,
                      gain: Float = 1, meter: LoudnessMeter? = nil,
                      isCancelled: () -> Bool, progress: (Int64) -> Void, afterBlock: (Int) throws -> Void = { _ in }) throws -> Float? {
        let staged = writer.map { StagedWrites(writer: $0, channelCount: channels, capacity: framesPerWrite) }
        var peak: Float = 0
        var written: Int64 = 0, reported: Int64 = 0
        while frames.map({ written < $0 }) ?? true, let block = renderer.renderNextBlock() {
            if isCancelled() {
                writer?.cancel()
                return nil
            }
            let count = Int(min(Int64(block.frameLength), (frames ?? Int64.max) - written))
            for channel in 0..<block.channelCount {
                let samples = block[channel]
                if gain != 1 { for i in 0..<count { samples[i] *= gain } }
                for i in 0..<count { peak = max(peak, abs(samples[i])) }
            }
            let left = block[0].baseAddress!
            let right = channels == 2 ? block[1].baseAddress! : nil
            if let right { meter?.add(left: left, right: right, frameCount: count) }
            try staged?.append(left: left, right: right, frameCount: count)
            try afterBlock(count)
            written += Int64(count)
            if written - reported >= 16_384 {
                progress(written - reported)
                reported = written
            }
        }
        if let frames, written < frames {
            let silence = [Float](repeating: 0, count: 4096)
            while written < frames {
                let count = Int(min(4096, frames - written))
                try staged?.append(left: silence, right: channels == 2 ? silence : nil, frameCount: count)
                written += Int64(count)
            }
        }
        try staged?.flush()
        progress(written - reported)
        return peak
    }
}

/// Blocks gathered into one buffer per channel and written `capacity` frames at a time.
private final class StagedWrites {
    private let writer: AudioFileWriter
    private let left: UnsafeMutableBufferPointer<Float>
    private let right: UnsafeMutableBufferPointer<Float>?
    private var count = 0

    init(writer: AudioFileWriter, channelCount: Int, capacity: Int) {
        self.writer = writer
        left = .allocate(capacity: capacity)
        right = channelCount == 2 ? .allocate(capacity: capacity) : nil
    }

    deinit {
        left.deallocate()
        right?.deallocate()
    }

    func append(left samples: UnsafePointer<Float>, right rightSamples: UnsafePointer<Float>?, frameCount: Int) throws {
        var done = 0
        while done < frameCount {
            let chunk = min(left.count - count, frameCount - done)
            left.baseAddress!.advanced(by: count).update(from: samples + done, count: chunk)
            if let right, let rightSamples { right.baseAddress!.advanced(by: count).update(from: rightSamples + done, count: chunk) }
            count += chunk
            done += chunk
            if count == left.count { try flush() }
        }
    }

    /// Writes what is gathered.
    func flush() throws {
        guard count > 0 else { return }
        try writer.write(left: left.baseAddress!, right: right.map { UnsafePointer($0.baseAddress!) }, frameCount: count)
        count = 0
    }
}
