import CALSA
import SeqplaySupport
#if canImport(Glibc)
import Glibc
#endif

/// What to ask a playback device for. Rate, period size and period count are negotiated to the
/// nearest the device can do (read the result from `PCMPlaybackDevice`); the channel count must be
/// exact (`plughw:` devices convert any count); the sample format is the first of `sampleFormats`
/// the device takes.
public struct PCMPlaybackSettings: Sendable, Equatable {
    public var sampleRate: Int
    public var channelCount: Int
    public var periodFrames: Int
    public var periodCount: Int
    public var sampleFormats: [PCMSampleFormat]

    public init(sampleRate: Int = 44_100, channelCount: Int = 2, periodFrames: Int = 256, periodCount: Int = 3,
                sampleFormats: [PCMSampleFormat] = PCMSampleFormat.preferenceOrder) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.periodFrames = periodFrames
        self.periodCount = periodCount
        self.sampleFormats = sampleFormats
    }
}

/// A failed write, as alsa-lib's negative error code. Carries no text so a render thread can throw it
/// without allocating; `PCMPlaybackDevice.error(for:)` turns it into an `ALSAError` on another thread.
public struct PCMWriteFailure: Error, Sendable, Equatable {
    /// Negative errno from alsa-lib.
    public let code: Int32
    public init(code: Int32) { self.code = code }
    /// Whether the code means the device is gone (unplugged, card removed).
    public var deviceDisappeared: Bool { code == -ENODEV || code == -EBADFD || code == -ENXIO }
}

/// An ALSA PCM playback device opened by name (`default`, `hw:1,0`, `plughw:…`), configured for
/// blocking interleaved writes. Playback starts once the device buffer is full; underruns (xruns) and
/// suspends are recovered inside `write` and counted.
///
/// Use from one thread at a time: `write` is meant for a render thread, everything else for the
/// thread that owns the device.
public final class PCMPlaybackDevice {
    /// The device name it was opened with.
    public let name: String
    /// The negotiated sample format.
    public let sampleFormat: PCMSampleFormat
    /// The rate the device actually runs at (may differ from the one asked for).
    public let sampleRate: Int
    /// Samples per frame.
    public let channelCount: Int
    /// Frames per period: the amount one `write` of a full period moves.
    public let periodFrames: Int
    /// Periods in the device buffer.
    public let periodCount: Int
    /// Frames the device buffer holds (the output latency, at most).
    public let bufferFrames: Int
    /// Underruns recovered so far. Changed only by `write`.
    public private(set) var xrunCount = 0

    private let pcm: OpaquePointer

    /// Opens and configures `name`. Throws `ALSAError.noSoundCard` when the machine has no card,
    /// `.cannotOpen` / `.unsupportedSetting` when this device cannot be used as asked.
    public init(name: String, settings: PCMPlaybackSettings = PCMPlaybackSettings()) throws(ALSAError) {
        SoundCards.silenceLibraryMessages()
        var handle: OpaquePointer?
        let openResult = snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, 0)
        guard openResult == 0, let handle else {
            try SoundCards.requireAny()
            throw .cannotOpen(device: name, reason: alsaReason(openResult))
        }
        do {
            let hardware = try PCMHardwareConfiguration(pcm: handle, deviceName: name, settings: settings)
            try Self.configureStart(pcm: handle, deviceName: name, bufferFrames: hardware.bufferFrames,
                                    periodFrames: hardware.periodFrames)
            self.name = name
            pcm = handle
            sampleFormat = hardware.sampleFormat
            sampleRate = hardware.sampleRate
            channelCount = settings.channelCount
            periodFrames = hardware.periodFrames
            periodCount = hardware.periodCount
            bufferFrames = hardware.bufferFrames
        } catch {
            snd_pcm_close(handle)
            throw error
        }
    }

    deinit { snd_pcm_close(pcm) }

    /// A buffer for one period in this device's format and channel count.
    public func makePeriodBuffer() -> InterleavedPCMBuffer {
        InterleavedPCMBuffer(sampleFormat: sampleFormat, channelCount: channelCount, frameCapacity: periodFrames)
    }

    /// Writes frames 0..<frameCount of `buffer`, blocking while the device buffer is full. Recovers
    /// from underruns (counted in `xrunCount`) and suspends; throws on anything else. Does not
    /// allocate, lock or log: safe on a real-time thread.
    public func write(_ buffer: InterleavedPCMBuffer, frameCount: Int) throws(PCMWriteFailure) {
        precondition(buffer.sampleFormat == sampleFormat && buffer.channelCount == channelCount
                     && frameCount <= buffer.frameCapacity, "buffer does not match the device")
        var written = 0
        while written < frameCount {
            let result = snd_pcm_writei(pcm, buffer.bytes + written * buffer.bytesPerFrame,
                                        snd_pcm_uframes_t(frameCount - written))
            if result >= 0 {
                written += result
                continue
            }
            let code = Int32(truncatingIfNeeded: result)
            switch -code {
            case EINTR, EAGAIN:
                continue
            case EPIPE:
                xrunCount += 1
                try check(snd_pcm_prepare(pcm))
            case ESTRPIPE:
                try resumeAfterSuspend()
            default:
                throw PCMWriteFailure(code: code)
            }
        }
    }

    /// Plays what is buffered to the end, then stops.
    public func drain() throws(ALSAError) {
        let result = snd_pcm_drain(pcm)
        if result < 0 { throw error(for: PCMWriteFailure(code: result), call: "snd_pcm_drain") }
    }

    /// Stops at once, discarding what is buffered; the device can be written again afterwards.
    public func drop() {
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    /// The typed error for a failure thrown by `write` (or another call on this device).
    public func error(for failure: PCMWriteFailure, call: String = "snd_pcm_writei") -> ALSAError {
        if failure.deviceDisappeared {
            return .deviceDisappeared(device: name, reason: alsaReason(failure.code))
        }
        return .callFailed(device: name, call: call, reason: alsaReason(failure.code))
    }

    /// Waits for a suspended device to resume (bounded: about 5 s), else restarts it from scratch.
    private func resumeAfterSuspend() throws(PCMWriteFailure) {
        var result = snd_pcm_resume(pcm)
        var attempts = 0
        while result == -EAGAIN && attempts < 500 {
            // alsa-lib tells no one when a suspended device can resume: retried every 10 ms, as aplay does.
            MonotonicClock.wait(until: MonotonicClock.now() + 10_000_000)
            result = snd_pcm_resume(pcm)
            attempts += 1
        }
        if result < 0 { try check(snd_pcm_prepare(pcm)) }
    }

    private func check(_ result: Int32) throws(PCMWriteFailure) {
        if result < 0 { throw PCMWriteFailure(code: result) }
    }

    /// Start playing once the buffer is full (no underrun at start), wake the writer per period.
    private static func configureStart(pcm: OpaquePointer, deviceName: String, bufferFrames: Int,
                                       periodFrames: Int) throws(ALSAError) {
        var software: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&software) == 0, let software else {
            throw .callFailed(device: deviceName, call: "snd_pcm_sw_params_malloc", reason: "out of memory")
        }
        defer { snd_pcm_sw_params_free(software) }
        func require(_ result: Int32, _ call: String) throws(ALSAError) {
            if result < 0 { throw .callFailed(device: deviceName, call: call, reason: alsaReason(result)) }
        }
        try require(snd_pcm_sw_params_current(pcm, software), "snd_pcm_sw_params_current")
        try require(snd_pcm_sw_params_set_start_threshold(pcm, software, snd_pcm_uframes_t(bufferFrames)),
                    "snd_pcm_sw_params_set_start_threshold")
        try require(snd_pcm_sw_params_set_avail_min(pcm, software, snd_pcm_uframes_t(periodFrames)),
                    "snd_pcm_sw_params_set_avail_min")
        try require(snd_pcm_sw_params(pcm, software), "snd_pcm_sw_params")
    }
}
