import ALSA
import AudioGraph

/// Real-time output to an ALSA playback device (`default`, `hw:1,0`, `plughw:…`): each period the
/// engine renders is converted to the device's sample format, interleaved and written; underruns are
/// recovered and counted; a device that disappears ends playback with `.failed(.deviceDisappeared)`.
public final class ALSAOutput: RealtimeOutput, @unchecked Sendable {
    /// The device name, negotiated format, rate and period layout.
    public let device: PCMPlaybackDevice

    /// Opens `deviceName` with `settings`. Throws `.device(.noSoundCard)` on a machine without sound
    /// card, other `.device` errors when this device cannot play as asked.
    public init(deviceName: String = "default", settings: PCMPlaybackSettings = PCMPlaybackSettings()) throws(AudioOutputError) {
        let device: PCMPlaybackDevice
        do {
            device = try PCMPlaybackDevice(name: deviceName, settings: settings)
        } catch {
            throw .device(error)
        }
        self.device = device
        super.init(sink: DeviceSink(device: device))
    }

    /// The device buffer (period × periods): a sample written now is heard that much later.
    override public var latencyFrames: Int { device.bufferFrames }
}

/// Converts each period into a preallocated interleaved buffer and writes it to the device.
final class DeviceSink: PeriodSink {
    let device: PCMPlaybackDevice
    private let buffer: InterleavedPCMBuffer

    init(device: PCMPlaybackDevice) {
        self.device = device
        buffer = device.makePeriodBuffer()
    }

    var sampleRate: Int { device.sampleRate }
    var channelCount: Int { device.channelCount }
    var periodFrames: Int { device.periodFrames }
    var xrunCount: Int { device.xrunCount }

    func begin() {}

    func deliver(_ block: AudioBuffer?, frameCount: Int) throws(PCMWriteFailure) {
        if let block {
            for channel in 0..<channelCount {
                buffer.store(channel: channel, samples: UnsafeBufferPointer(block[channel]))
            }
        } else {
            buffer.storeSilence(frameCount: frameCount)
        }
        try device.write(buffer, frameCount: frameCount)
    }

    func finish(draining: Bool) -> ALSAError? {
        guard draining else {
            device.drop()
            return nil
        }
        do {
            try device.drain()
            return nil
        } catch {
            return error
        }
    }

    func error(for failure: PCMWriteFailure) -> ALSAError { device.error(for: failure) }
}
