/// Float32 non-interleaved audio in memory allocated once, when the buffer is made.
///
/// The engine makes one buffer per node output bus at prepare time; nodes fill them during render
/// without allocating. `frameLength` is the number of valid frames (the engine sets it to the frame
/// count of each render cycle); `frameCapacity` is fixed. Channel data is reached through
/// `self[channel]`, a pointer view of `frameLength` samples.
// Why unchecked: shared only in the graph's hand-offs (one thread at a time: the render thread, or the caller with the engine stopped).
public final class AudioBuffer: @unchecked Sendable {
    /// Sample rate and channel count of the samples held.
    public let format: AudioFormat
    /// The largest `frameLength` this buffer can hold.
    public let frameCapacity: Int
    /// The number of valid frames, 0...frameCapacity.
    public var frameLength: Int {
        didSet { precondition(frameLength >= 0 && frameLength <= frameCapacity, "frameLength out of range") }
    }

    private let storage: UnsafeMutablePointer<Float>
    /// Whether `storage` was allocated here (and is freed with the buffer).
    private let ownsStorage: Bool

    /// A buffer of `format` able to hold `frameCapacity` frames, all zero, `frameLength` 0.
    /// Allocates: make buffers before rendering, never on the render thread.
    public init(format: AudioFormat, frameCapacity: Int) {
        precondition(frameCapacity >= 0, "frame capacity must not be negative")
        self.format = format
        self.frameCapacity = frameCapacity
        self.frameLength = 0
        let count = max(1, frameCapacity * format.channelCount)
        storage = .allocate(capacity: count)
        storage.initialize(repeating: 0, count: count)
        ownsStorage = true
    }

    /// A buffer of `format` over memory the caller owns: `frameCapacity` samples of each channel
    /// in a row from `storage`, which must outlive the buffer (one large block shared by many
    /// buffers, say). `frameLength` 0.
    public init(format: AudioFormat, frameCapacity: Int, over storage: UnsafeMutablePointer<Float>) {
        precondition(frameCapacity >= 0, "frame capacity must not be negative")
        self.format = format
        self.frameCapacity = frameCapacity
        self.frameLength = 0
        self.storage = storage
        ownsStorage = false
    }

    deinit { if ownsStorage { storage.deallocate() } }

    /// Number of channels (same as `format.channelCount`).
    public var channelCount: Int { format.channelCount }

    /// The first `frameLength` samples of `channel`, writable.
    public subscript(channel: Int) -> UnsafeMutableBufferPointer<Float> {
        precondition(channel >= 0 && channel < format.channelCount, "channel out of range")
        return UnsafeMutableBufferPointer(start: storage + channel * frameCapacity, count: frameLength)
    }

    /// Sets the first `frameLength` frames of every channel to zero.
    public func clear() {
        for c in 0..<format.channelCount {
            (storage + c * frameCapacity).update(repeating: 0, count: frameLength)
        }
    }

    /// Copies `frameCount` frames of every channel of `source` (same channel count) into this buffer,
    /// starting at frame `offset` here and at frame 0 there. Does not change `frameLength`.
    public func copy(from source: AudioBuffer, frameCount: Int, toOffset offset: Int = 0) {
        precondition(source.format.channelCount == format.channelCount, "channel counts differ")
        precondition(frameCount <= source.frameCapacity && offset + frameCount <= frameCapacity,
                     "copy exceeds buffer capacity")
        for c in 0..<format.channelCount {
            (storage + c * frameCapacity + offset)
                .update(from: source.storage + c * source.frameCapacity, count: frameCount)
        }
    }
}

extension AudioBuffer {
    /// Peaks below this count as silence: half a 16-bit step, so a silent stretch written to a 16-bit
    /// file is all zeros.
    public static let silenceThreshold: Float = 1.0 / 65_536

    /// The largest absolute sample of the first `frameLength` frames, over all channels. Does not allocate.
    public var peak: Float {
        var peak: Float = 0
        for channel in 0..<channelCount {
            let samples = self[channel]
            for i in 0..<frameLength { peak = max(peak, abs(samples[i])) }
        }
        return peak
    }
}
