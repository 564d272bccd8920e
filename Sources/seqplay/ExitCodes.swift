import ArgumentParser

/// The exit statuses of every `seqplay` command, in one table so scripts can rely on them.
///
/// Bad command-line usage exits with ArgumentParser's `ExitCode.validationFailure` (64, EX_USAGE).
extension ExitCode {
    /// Something went wrong that no other code describes.
    static let generic = ExitCode(1)
    /// The MIDI file is not a Standard MIDI File the reader can read (or, with --strict, needs repair).
    static let badMIDIFile = ExitCode(3)
    /// The SoundFont cannot be loaded.
    static let badSoundFont = ExitCode(4)
    /// A file cannot be read or written.
    static let inputOutput = ExitCode(5)
    /// The machine has no ALSA sequencer (/dev/snd/seq), so MIDI ports cannot be used; file rendering still works.
    static let sequencerNotAvailable = ExitCode(6)
    /// Stopped by Ctrl-C (SIGINT), as shells report it: 128 + 2.
    static let interrupted = ExitCode(130)
}
