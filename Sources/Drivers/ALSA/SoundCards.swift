import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// The ALSA sound cards this machine has, and the one-time library set-up every ALSA user needs.
public enum SoundCards {
    /// Directory of the kernel's ALSA device nodes; missing when the kernel has no sound support.
    public static let deviceDirectory = "/dev/snd"

    /// Indices of the cards alsa-lib can see, in ascending order (empty without sound support).
    public static func indices() -> [Int] {
        var card: Int32 = -1
        var found: [Int] = []
        while snd_card_next(&card) == 0, card >= 0 {
            found.append(Int(card))
        }
        return found
    }

    /// Throws `ALSAError.noSoundCard` saying why when the machine has no card.
    public static func requireAny() throws(ALSAError) {
        if access(deviceDirectory, F_OK) != 0 {
            throw .noSoundCard(reason: "\(deviceDirectory) does not exist: the kernel has no sound support")
        }
        if indices().isEmpty {
            throw .noSoundCard(reason: "\(deviceDirectory) lists no card")
        }
    }

    /// Stops alsa-lib printing its own messages to stderr; its errors still arrive as return codes,
    /// which this module turns into `ALSAError`. Runs once per process.
    static func silenceLibraryMessages() {
        _ = libraryMessagesSilenced
    }

    private static let libraryMessagesSilenced: Bool = seqplay_alsa_silence_library_errors() == 0
}
