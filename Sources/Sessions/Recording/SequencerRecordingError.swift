import ALSA
import MIDIFile

/// Why a recording stopped: the sequencer failed, or the take cannot be written.
public enum SequencerRecordingError: Error, CustomStringConvertible {
    case sequencer(SequencerError)
    case cannotSave(MIDIFileWriteError)

    public var description: String {
        switch self {
        case .sequencer(let cause as any Error), .cannotSave(let cause as any Error): return "\(cause)"
        }
    }
}
