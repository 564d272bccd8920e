/// One period of interleaved samples in a device's sample format: the bytes
/// `PCMPlaybackDevice.write` sends. Allocated once; filling it never allocates, so a render thread
/// can convert into it.
public final class InterleavedPCMBuffer {
    /// Sample format of the stored bytes.
    public let sampleFormat: PCMSampleFormat
    /// Samples per frame.
    public let channelCount: Int
    /// The most frames the buffer holds.
    public let frameCapacity: Int
    /// Bytes one frame takes (all channels).
    public let bytesPerFrame: Int

    let bytes: UnsafeMutableRawPointer

    /// A zeroed buffer of `frameCapacity` frames.
    public init(sampleFormat: PCMSampleFormat, channelCount: Int, frameCapacity: Int) {
        precondition(channelCount >= 1 && frameCapacity >= 1, "a PCM buffer needs channels and frames")
        self.sampleFormat = sampleFormat
        self.channelCount = channelCount
        self.frameCapacity = frameCapacity
        bytesPerFrame = sampleFormat.bytesPerSample * channelCount
        bytes = .allocate(byteCount: bytesPerFrame * frameCapacity, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: bytesPerFrame * frameCapacity)
    }

    deinit { bytes.deallocate() }

    /// Converts `samples` (one channel, non-interleaved float) into `channel` of frames 0..<samples.count.
    public func store(channel: Int, samples: UnsafeBufferPointer<Float>) {
        precondition(channel >= 0 && channel < channelCount && samples.count <= frameCapacity,
                     "samples do not fit the PCM buffer")
        let stride = bytesPerFrame
        var slot = bytes + channel * sampleFormat.bytesPerSample
        switch sampleFormat {
        case .float32:
            for sample in samples {
                slot.storeBytes(of: sample.bitPattern.littleEndian, as: UInt32.self)
                slot += stride
            }
        case .signed32:
            for sample in samples {
                slot.storeBytes(of: PCMSampleFormat.quantize(sample, fullScale: 2_147_483_647).littleEndian, as: Int32.self)
                slot += stride
            }
        case .signed24:
            for sample in samples {
                slot.storeBytes(of: PCMSampleFormat.quantize(sample, fullScale: 8_388_607).littleEndian, as: Int32.self)
                slot += stride
            }
        case .signed24Packed:
            for sample in samples {
                let value = UInt32(bitPattern: PCMSampleFormat.quantize(sample, fullScale: 8_388_607))
                slot.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
                (slot + 1).storeBytes(of: UInt8(truncatingIfNeeded: value >> 8), as: UInt8.self)
                (slot + 2).storeBytes(of: UInt8(truncatingIfNeeded: value >> 16), as: UInt8.self)
                slot += stride
            }
        case .signed16:
            for sample in samples {
                slot.storeBytes(of: PCMSampleFormat.signed16Sample(sample).littleEndian, as: Int16.self)
                slot += stride
            }
        }
    }

    /// Sets every channel of frames 0..<frameCount to silence (all formats here are signed: zero bytes).
    public func storeSilence(frameCount: Int) {
        precondition(frameCount <= frameCapacity, "silence does not fit the PCM buffer")
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: frameCount * bytesPerFrame)
    }

    /// The stored bytes of frames 0..<frameCount, for inspection (tests) or writing elsewhere.
    public func withBytes<R>(frameCount: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(frameCount <= frameCapacity, "frame count exceeds the PCM buffer")
        return try body(UnsafeRawBufferPointer(start: bytes, count: frameCount * bytesPerFrame))
    }
}
