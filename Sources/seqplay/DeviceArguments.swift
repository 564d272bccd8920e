import ALSA
import ArgumentParser
import AudioGraph
import Rendering

/// The sound card and its latency, and the sample rate: one declaration, one set of documented
/// defaults, for every command that plays to a sound card (`seqplay SONG`, `live`, `serve`).
///
/// A song is played ahead of time, so it takes a safe buffer (256 frames x 3) at the rate files are
/// rendered at (44100 Hz). A live instrument is heard as it is played: `live` and `serve` take two
/// periods of 128 frames (5.3 ms at 48 kHz, under the ~10 ms a player notices) at 48000 Hz, the rate
/// most sound cards, USB interfaces and PipeWire run at natively, so no resampler adds latency.
struct SoundCardArguments: ParsableArguments {
    /// What a command plays: a song (ahead of time) or live input (as it arrives).
    enum Use {
        case song, live

        var sampleRate: Int { self == .song ? 44_100 : 48_000 }
        var periodFrames: Int { self == .song ? 256 : 128 }
        var periodCount: Int { self == .song ? 3 : 2 }
    }

    @Option(help: ArgumentHelp("Sound device to play to (ALSA name: default, hw:1,0, plughw:1,0, ...; null, playing a song: a clock, no sound).", valueName: "name"))
    var device = "default"

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames per period of the sound device (latency: period x periods). Default 128 for live and serve, 256 playing a song.", valueName: "frames"))
    var period: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Periods in the sound device's buffer. Default 2 for live and serve, 3 playing a song.", valueName: "count"))
    var periods: Int?

    func validate() throws {
        try FlagRange.check(period, "--period", in: 16...8192, unit: " frames")
        try FlagRange.check(periods, "--periods", in: 2...64)
    }

    /// The period in frames for `use`: the one given, else the default.
    func periodFrames(for use: Use) -> Int { period ?? use.periodFrames }
    /// The periods in the buffer for `use`: the count given, else the default.
    func periodCount(for use: Use) -> Int { periods ?? use.periodCount }
}

/// The sample rate (`-r`): of the file rendered, the song played or the live session.
struct SampleRateArgument: ParsableArguments {
    @Option(name: [.customShort("r"), .long], parsing: .unconditional, help: ArgumentHelp("Sample rate in Hz, 8000 to 96000 (live and serve: to 192000). Default 48000 for live and serve, 44100 for songs and files.", valueName: "Hz"))
    var sampleRate: Int?

    /// The rate for `use`: the one given, else the default.
    func sampleRate(for use: SoundCardArguments.Use) -> Int { sampleRate ?? use.sampleRate }
}

/// The sound card playback plays to (`seqplay SONG` without `-o`).
struct DeviceArguments: ParsableArguments {
    @OptionGroup var soundCard: SoundCardArguments

    /// The ALSA device's name.
    var device: String { soundCard.device }

    @Option(help: ArgumentHelp("Playback: send the stereo mix to these device channels, e.g. main:3-4 (channels from 1).", valueName: "map"))
    var channelMap: String?

    @Flag(name: [.short, .long], help: "Say which device format and render-thread priority playback got, and the xrun count.")
    var verbose = false

    func validate() throws {
        _ = try parsedChannelMap()
    }

    private func parsedChannelMap() throws -> ChannelMap? {
        guard let channelMap else { return nil }
        return try parsedFlag("--channel-map") { try ChannelMap(parsing: channelMap) }
    }

    /// `options` with the channel map, and as many output channels as it needs.
    func mapped(_ options: RenderOptions) throws -> RenderOptions {
        var options = options
        if let map = try parsedChannelMap() {
            options.channelMap = map
            options.outputChannelCount = max(2, map.requiredChannelCount)
        }
        return options
    }

    /// Opens the device with the channels `options` needs and at its rate (a device may choose another
    /// rate); `null` is a clock-paced output that plays nothing.
    func openOutput(options: RenderOptions) throws(AudioOutputError) -> RealtimeOutput {
        try ALSAOutput.opening(deviceName: device, settings: PCMPlaybackSettings(
            sampleRate: options.sampleRate, channelCount: options.outputChannelCount,
            periodFrames: soundCard.periodFrames(for: .song), periodCount: soundCard.periodCount(for: .song)))
    }

    /// `openOutput` for the commands that need the sound card: throws (5) when it cannot be opened,
    /// suggesting a file when the machine has none.
    func openSoundCard(options: RenderOptions) throws(CommandFailure) -> RealtimeOutput {
        do {
            return try openOutput(options: options)
        } catch {
            if let reason = error.noSoundCardReason {
                throw CommandFailure("no sound card to play to (\(reason)); render to a file instead: -o song.wav", .inputOutput)
            }
            throw CommandFailure("cannot play to \(device): \(error)", .inputOutput)
        }
    }
}
