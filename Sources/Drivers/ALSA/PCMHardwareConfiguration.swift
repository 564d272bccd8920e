import CALSA

/// Negotiates the hardware parameters of an open PCM: interleaved read/write access, the first
/// supported format of the caller's list, the exact channel count, and the nearest rate, period size
/// and period count. Holds what the device agreed to.
struct PCMHardwareConfiguration {
    let sampleFormat: PCMSampleFormat
    let sampleRate: Int
    let periodFrames: Int
    let periodCount: Int
    let bufferFrames: Int

    init(pcm: OpaquePointer, deviceName: String, settings: PCMPlaybackSettings) throws(ALSAError) {
        var allocated: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&allocated) == 0, let params = allocated else {
            throw .callFailed(device: deviceName, call: "snd_pcm_hw_params_malloc", reason: "out of memory")
        }
        defer { snd_pcm_hw_params_free(params) }

        func require(_ result: Int32, _ setting: @autoclosure () -> String) throws(ALSAError) {
            if result < 0 {
                throw .unsupportedSetting(device: deviceName, setting: setting(), reason: alsaReason(result))
            }
        }
        try require(snd_pcm_hw_params_any(pcm, params), "any configuration")
        try require(snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")

        guard let format = settings.sampleFormats.first(where: {
            snd_pcm_hw_params_test_format(pcm, params, $0.alsaFormat) == 0
        }) else {
            let asked = settings.sampleFormats.map(\.rawValue).joined(separator: ", ")
            throw .unsupportedSetting(device: deviceName, setting: "sample format \(asked)",
                                      reason: "none of them is offered; try a plughw: device")
        }
        try require(snd_pcm_hw_params_set_format(pcm, params, format.alsaFormat), "sample format \(format.rawValue)")
        try require(snd_pcm_hw_params_set_channels(pcm, params, UInt32(settings.channelCount)),
                    "\(settings.channelCount) channels (a plughw: device converts)")

        var rate = UInt32(settings.sampleRate)
        try require(snd_pcm_hw_params_set_rate_near(pcm, params, &rate, nil), "rate \(settings.sampleRate) Hz")
        var period = snd_pcm_uframes_t(settings.periodFrames)
        try require(snd_pcm_hw_params_set_period_size_near(pcm, params, &period, nil),
                    "period size \(settings.periodFrames)")
        var periods = UInt32(settings.periodCount)
        try require(snd_pcm_hw_params_set_periods_near(pcm, params, &periods, nil),
                    "\(settings.periodCount) periods")
        try require(snd_pcm_hw_params(pcm, params), "the negotiated configuration")

        var buffer: snd_pcm_uframes_t = 0
        try require(snd_pcm_hw_params_get_period_size(params, &period, nil), "reading the period size")
        try require(snd_pcm_hw_params_get_buffer_size(params, &buffer), "reading the buffer size")
        sampleFormat = format
        sampleRate = Int(rate)
        periodFrames = Int(period)
        periodCount = Int(buffer) / Int(period)
        bufferFrames = Int(buffer)
    }
}
