import AudioGraph
import CSampleRate

/// Why a varispeed could not be made.
public enum VarispeedError: Error, CustomStringConvertible, Equatable {
    /// libsamplerate refused to create a converter; `reason` is its message.
    case converterUnavailable(reason: String)

    public var description: String {
        switch self {
        case .converterUnavailable(let reason): "varispeed: libsamplerate could not create a converter: \(reason)"
        }
    }
}

/// Playback-rate change (pitch and tempo together, after AVAudioUnitVarispeed) over libsamplerate.
///
/// A varispeed pulls: to produce N frames at `rate` r it asks its `inputProvider` for about r × N frames, in
/// blocks of `inputBlockSize`. The converter is libsamplerate's band-limited sinc interpolator with a variable
/// ratio, so `rate` may change while playing (it glides across one output block). `render` is real-time safe:
/// all buffers are made at init and libsamplerate does not allocate while converting.
// Why unchecked: the EffectKernel contract: `rate` in an atomic (any thread), the converter's state the render thread's alone.
public final class VarispeedKernel: @unchecked Sendable {
    /// Fills up to `maximumFrames` frames of each channel pointer and returns how many it wrote;
    /// 0 means the input has ended. Called on the render thread from inside `render`.
    public typealias InputProvider = (_ channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>,
                                      _ maximumFrames: Int) -> Int

    /// libsamplerate's sinc converters, from fastest (97 dB SNR, 80 % bandwidth) to best (97 dB, 97 %).
    public enum Quality: Sendable {
        case fastest, medium, best

        var converterType: Int32 {
            switch self {
            case .fastest: Int32(SRC_SINC_FASTEST)
            case .medium: Int32(SRC_SINC_MEDIUM_QUALITY)
            case .best: Int32(SRC_SINC_BEST_QUALITY)
            }
        }
    }

    /// The rates `rate` is kept within.
    public static let rateRange: ClosedRange<Float> = 0.25...4

    /// Number of interleaved channels converted.
    public let channelCount: Int
    /// Frames asked of the input provider per request.
    public let inputBlockSize: Int
    /// Where input comes from. Set it before the first `render`; not while rendering.
    public var inputProvider: InputProvider?

    private let rateValue: AtomicFloat
    private let inputChannels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>
    private let interleavedInput: UnsafeMutablePointer<Float>
    private let interleavedOutput: UnsafeMutablePointer<Float>
    private let outputBlockSize = 512
    private var converter: OpaquePointer?

    /// A varispeed for `channelCount` channels at rate 1.
    public init(channelCount: Int, inputBlockSize: Int = 512, quality: Quality = .fastest) throws(VarispeedError) {
        self.channelCount = max(channelCount, 1)
        self.inputBlockSize = max(inputBlockSize, 16)
        rateValue = AtomicFloat(1)
        inputChannels = .allocate(capacity: self.channelCount)
        for channel in 0..<self.channelCount {
            let samples = UnsafeMutablePointer<Float>.allocate(capacity: self.inputBlockSize)
            samples.initialize(repeating: 0, count: self.inputBlockSize)
            inputChannels.initializeElement(at: channel, to: samples)
        }
        interleavedInput = .allocate(capacity: self.inputBlockSize * self.channelCount)
        interleavedOutput = .allocate(capacity: outputBlockSize * self.channelCount)
        var error: Int32 = 0
        converter = src_callback_new(Self.supplyInput, quality.converterType, Int32(self.channelCount), &error,
                                     Unmanaged.passUnretained(self).toOpaque())
        guard converter != nil else {
            throw .converterUnavailable(reason: String(cString: src_strerror(error)))
        }
    }

    deinit {
        src_delete(converter)
        for samples in inputChannels { samples.deallocate() }
        inputChannels.deallocate()
        interleavedInput.deallocate()
        interleavedOutput.deallocate()
    }

    /// Playback rate: 2 plays twice as fast and an octave up; 0.5 half as fast and an octave down.
    /// 0.25...4, default 1. May change while playing.
    public var rate: Float {
        get { rateValue.value }
        set { rateValue.value = min(max(newValue.isNaN ? 1 : newValue, Self.rateRange.lowerBound), Self.rateRange.upperBound) }
    }

    /// Forgets buffered input and the end of input, so conversion starts afresh. Not while rendering.
    public func reset() { src_reset(converter) }

    /// Writes up to `frameCount` frames into `channels` (one pointer per channel, `channelCount` of them) and
    /// returns how many it wrote: fewer only once the input has ended and the converter is drained.
    public func render(into channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>,
                       frameCount: Int) -> Int {
        let ratio = 1 / Double(rate)
        let channelsToFill = min(channels.count, channelCount)
        var done = 0
        while done < frameCount {
            let request = min(frameCount - done, outputBlockSize)
            let produced = Int(src_callback_read(converter, ratio, request, interleavedOutput))
            if produced <= 0 { break }
            for channel in 0..<channelsToFill {
                let destination = channels[channel] + done
                for frame in 0..<produced {
                    destination[frame] = interleavedOutput[frame * channelCount + channel]
                }
            }
            done += produced
            if produced < request { break }
        }
        return done
    }

    /// Like `render(into:frameCount:)`, but always fills all `frameCount` frames: what the converter could not
    /// produce (the input has ended) is silence. Returns the frames converted.
    @discardableResult
    public func renderPaddingWithSilence(into channels: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>,
                                         frameCount: Int) -> Int {
        let produced = render(into: channels, frameCount: frameCount)
        if produced < frameCount {
            for channel in 0..<channels.count {
                (channels[channel] + produced).update(repeating: 0, count: frameCount - produced)
            }
        }
        return produced
    }

    /// Makes `engine`'s output the input: each request renders one block of `engine` (which must be running and
    /// have `maximumFrameCount` ≥ `inputBlockSize`); a stopped engine ends the input.
    public func pullInput(from engine: AudioEngine) {
        inputProvider = { [unowned engine] channels, maximumFrames in
            guard let block = engine.renderBlock(frameCount: maximumFrames) else { return 0 }
            for channel in 0..<min(channels.count, block.channelCount) {
                channels[channel].update(from: block[channel].baseAddress!, count: block.frameLength)
            }
            return block.frameLength
        }
    }

    /// libsamplerate's input callback: fetches one block from the provider and interleaves it.
    private static let supplyInput: src_callback_t = { context, data in
        guard let context, let data else { return 0 }
        let kernel = Unmanaged<VarispeedKernel>.fromOpaque(context).takeUnretainedValue()
        return kernel.fetchInput(into: data)
    }

    private func fetchInput(into data: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>) -> Int {
        let frames = min(max(inputProvider?(inputChannels, inputBlockSize) ?? 0, 0), inputBlockSize)
        for channel in 0..<channelCount {
            let source = inputChannels[channel]
            for frame in 0..<frames {
                interleavedInput[frame * channelCount + channel] = source[frame]
            }
        }
        data.pointee = interleavedInput
        return frames
    }
}
