/// Why an ALSA sequencer operation failed.
public enum SequencerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The machine has no ALSA sequencer (no /dev/snd/seq: no sound support, or snd-seq not loaded).
    case notAvailable(reason: String)
    /// A port address that names no existing client or port (`"99:0"`, `"No Such Synth"`).
    case unknownPort(address: String, reason: String)
    /// A port address that cannot be read at all (`"14:"`, `""`).
    case invalidAddress(String)
    /// A connection that cannot be made or removed (already connected, not connected, not allowed).
    case connectionFailed(source: PortAddress, destination: PortAddress, reason: String)
    /// A message the sequencer cannot carry, e.g. a System Exclusive message without its 0xF0 / 0xF7 frame.
    case unsendableMessage(String)
    /// Any other failed alsa-lib call.
    case callFailed(call: String, reason: String)

    public var description: String {
        switch self {
        case .notAvailable(let reason):
            return "ALSA sequencer not available (\(reason))"
        case .unknownPort(let address, let reason):
            return "no ALSA sequencer port '\(address)': \(reason)"
        case .invalidAddress(let text):
            return "'\(text)' is not a sequencer port address (write 14:0, 'Midi Through:0' or a client name)"
        case .connectionFailed(let source, let destination, let reason):
            return "cannot connect/disconnect \(source) → \(destination): \(reason)"
        case .unsendableMessage(let what):
            return "cannot send to the ALSA sequencer: \(what)"
        case .callFailed(let call, let reason):
            return "ALSA sequencer: \(call) failed: \(reason)"
        }
    }
}

/// Throws `SequencerError.callFailed` when an alsa-lib call returned a negative error code.
@discardableResult
func checkSequencerCall(_ result: Int32, _ call: String) throws(SequencerError) -> Int32 {
    guard result >= 0 else { throw .callFailed(call: call, reason: alsaReason(result)) }
    return result
}
