import MIDIFile
import Rendering

/// How a song sounds, as the default command's flags describe it: the song's playback flags
/// (`SongArguments`), the sampler's (`SamplerArguments`) and what the render adds around it
/// (`SoundArguments`). Every `PlaybackMode` takes these three together.
struct SongSound {
    let song: SongArguments
    let sampler: SamplerArguments
    let sound: SoundArguments

    /// The render options the flags describe for `sequence`.
    func renderOptions(for sequence: MusicSequence) throws -> RenderOptions {
        try sound.renderOptions(song: song, sequence: sequence, sampler: sampler.settings())
    }

    /// The SoundFonts to load, in the order given.
    func fontPaths() throws -> [String] { try sampler.fontPaths() }

    /// The sample rate asked for, else a song's default.
    var sampleRate: Int { sound.sampleRate }
}

/// A song played in real time (`PlaybackMode.sequencerRoute`, `.destinations`, `.jackTransport`,
/// `.soundCard`): how it sounds and the sound card, the two groups these modes share, held once.
/// `RenderCommand` builds it; each mode is a method of it (a file each) that takes the mode's own groups.
struct RealtimeSong {
    let sound: SongSound
    let device: DeviceArguments
}
