import AudioGraph

extension ALSAOutput {
    /// The output for the ALSA device `deviceName` with `settings` (a device may choose another rate),
    /// or, for `null`, a clock-paced output that plays nothing at the settings' rate, channels and period.
    public static func opening(deviceName: String, settings: PCMPlaybackSettings) throws(AudioOutputError) -> RealtimeOutput {
        if deviceName == "null" {
            return NullOutput(sampleRate: settings.sampleRate, channelCount: settings.channelCount, periodFrames: settings.periodFrames)
        }
        return try ALSAOutput(deviceName: deviceName, settings: settings)
    }
}
