import Foundation

/// Plays songs for a `SoundModuleControl` (`playSong`/`stopSong`), where the host can.
public protocol SoundModuleSongPlayer: AnyObject, Sendable {
    /// Starts playing the song at `path` (stopping one playing).
    func play(path: String) throws
    /// Stops the song.
    func stop()
}

/// Records what a sound module plays for a `SoundModuleControl` (`startRecording`/`stopRecording`).
public protocol SoundModuleRecorder: AnyObject, Sendable {
    func startRecording(path: String) throws
    func stopRecording()
}
