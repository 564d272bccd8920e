import CALSA

/// Why an ALSA operation failed: which device, what was being done, and alsa-lib's own explanation.
public enum ALSAError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The machine has no ALSA sound card at all (no /dev/snd, or no card in it).
    case noSoundCard(reason: String)
    /// The device could not be opened: unknown name, busy, or no permission.
    case cannotOpen(device: String, reason: String)
    /// The device cannot do a setting that was asked for (format, channel count, rate, period).
    case unsupportedSetting(device: String, setting: String, reason: String)
    /// The device went away while in use (unplugged, driver unbound, card removed).
    case deviceDisappeared(device: String, reason: String)
    /// Any other failed alsa-lib call.
    case callFailed(device: String, call: String, reason: String)

    public var description: String {
        switch self {
        case .noSoundCard(let reason):
            return "no ALSA sound card found (\(reason)); render to a file with -o song.wav"
        case .cannotOpen(let device, let reason):
            return "cannot open ALSA device '\(device)': \(reason)"
        case .unsupportedSetting(let device, let setting, let reason):
            return "ALSA device '\(device)' does not support \(setting): \(reason)"
        case .deviceDisappeared(let device, let reason):
            return "ALSA device '\(device)' disappeared during playback: \(reason)"
        case .callFailed(let device, let call, let reason):
            return "ALSA device '\(device)': \(call) failed: \(reason)"
        }
    }
}

/// alsa-lib's text for a negative error code.
func alsaReason(_ code: Int32) -> String {
    String(cString: snd_strerror(code))
}
