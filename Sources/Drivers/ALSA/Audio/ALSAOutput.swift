import AudioGraph

/// Real-time output to an ALSA playback device (`default`, `hw:1,0`, `plughw:…`): a `RealtimeOutput`
/// on an `ALSADriver`. Underruns are recovered and counted; a device that disappears ends playback
/// with `.failed` (kind `.deviceDisappeared`).
// Why unchecked: restates RealtimeOutput's contract (its subclass adds no state).
public final class ALSAOutput: RealtimeOutput, @unchecked Sendable {
    /// The device name, negotiated format, rate and period layout.
    public var device: PCMPlaybackDevice { alsaDriver.device }
    private let alsaDriver: ALSADriver

    /// Opens `deviceName` with `settings`. Throws `.device` with kind `.noDevice` on a machine without
    /// sound card, other `.device` errors when this device cannot play as asked.
    public init(deviceName: String = "default", settings: PCMPlaybackSettings = PCMPlaybackSettings()) throws(AudioOutputError) {
        do {
            alsaDriver = try ALSADriver(deviceName: deviceName, settings: settings)
        } catch {
            throw .device(error)
        }
        super.init(driver: alsaDriver)
    }
}

/// ALSA as an audio driver: each period is converted to the device's sample format, interleaved into
/// a preallocated buffer and written (the write blocks until the device wants the next period).
public final class ALSADriver: BlockingAudioDriver {
    /// The device name, negotiated format, rate and period layout.
    public let device: PCMPlaybackDevice
    private let buffer: InterleavedPCMBuffer

    /// Opens `deviceName` with `settings`.
    public init(deviceName: String = "default", settings: PCMPlaybackSettings = PCMPlaybackSettings()) throws(AudioDriverError) {
        do {
            device = try PCMPlaybackDevice(name: deviceName, settings: settings)
        } catch {
            throw Self.driverError(error)
        }
        buffer = device.makePeriodBuffer()
    }

    public var sampleRate: Int { device.sampleRate }
    public var channelCount: Int { device.channelCount }
    public var periodFrames: Int { device.periodFrames }
    /// The whole device buffer: period × periods.
    public var outputLatencyFrames: Int { device.bufferFrames }
    public var xrunCount: Int { device.xrunCount }

    public func begin() {}

    public func write(_ block: AudioBuffer?, frameCount: Int) throws(AudioDriverFailure) {
        if let block {
            for channel in 0..<channelCount {
                buffer.store(channel: channel, samples: UnsafeBufferPointer(block[channel]))
            }
        } else {
            buffer.storeSilence(frameCount: frameCount)
        }
        do {
            try device.write(buffer, frameCount: frameCount)
        } catch {
            throw AudioDriverFailure(code: error.code)
        }
    }

    public func finish(draining: Bool) throws(AudioDriverError) {
        guard draining else {
            device.drop()
            return
        }
        do {
            try device.drain()
        } catch {
            throw Self.driverError(error)
        }
    }

    public func error(for failure: AudioDriverFailure) -> AudioDriverError {
        Self.driverError(device.error(for: PCMWriteFailure(code: failure.code)))
    }

    /// The driver-independent form of an ALSA error (the `ALSAError` stays its `underlying` value).
    public static func driverError(_ error: ALSAError) -> AudioDriverError {
        let kind: AudioDriverError.Kind
        switch error {
        case .noSoundCard: kind = .noDevice
        case .cannotOpen: kind = .cannotOpen
        case .unsupportedSetting: kind = .unsupportedSetting
        case .deviceDisappeared: kind = .deviceDisappeared
        case .callFailed: kind = .failed
        }
        return AudioDriverError(kind, error.description, underlying: error)
    }
}
