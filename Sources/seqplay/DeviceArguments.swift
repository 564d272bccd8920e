import ALSA
import ALSAAudio
import ArgumentParser
import AudioGraph
import AudioOutput
import Rendering

/// The sound card playback plays to (`seqplay SONG` without `-o`).
struct DeviceArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Sound device to play to (ALSA name: default, hw:1,0, plughw:1,0, ...; null: a clock, no sound).", valueName: "name"))
    var device = "default"

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames per period of the sound device (latency: period x periods).", valueName: "frames"))
    var period = 256

    @Option(parsing: .unconditional, help: ArgumentHelp("Periods in the sound device's buffer.", valueName: "count"))
    var periods = 3

    @Option(help: ArgumentHelp("Playback: send the stereo mix to these device channels, e.g. main:3-4 (channels from 1).", valueName: "map"))
    var channelMap: String?

    @Flag(name: [.short, .long], help: "Say which device format and render-thread priority playback got, and the xrun count.")
    var verbose = false

    func validate() throws {
        try FlagRange.check(period, "--period", in: 16...8192, unit: " frames")
        try FlagRange.check(periods, "--periods", in: 2...64)
        _ = try parsedChannelMap()
    }

    private func parsedChannelMap() throws -> ChannelMap? {
        guard let channelMap else { return nil }
        do {
            return try ChannelMap(parsing: channelMap)
        } catch {
            throw ValidationError("--channel-map: \(error)")
        }
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
        if device == "null" {
            return NullOutput(sampleRate: options.sampleRate, channelCount: options.outputChannelCount, periodFrames: period)
        }
        let settings = PCMPlaybackSettings(sampleRate: options.sampleRate, channelCount: options.outputChannelCount,
                                           periodFrames: period, periodCount: periods)
        return try ALSAOutput(deviceName: device, settings: settings)
    }

    /// `openOutput` for the commands that need the sound card: exits (5) when it cannot be opened,
    /// suggesting a file when the machine has none.
    func openOutputOrExit(options: RenderOptions) -> RealtimeOutput {
        do {
            return try openOutput(options: options)
        } catch {
            if let reason = Self.noSoundCardReason(error) {
                CommandLineOutput.fail("no sound card to play to (\(reason)); render to a file instead: -o song.wav", .inputOutput)
            }
            CommandLineOutput.fail("cannot play to \(device): \(error)", .inputOutput)
        }
    }

    /// Why the machine has no sound card, when that is why `error` happened.
    static func noSoundCardReason(_ error: AudioOutputError) -> String? {
        guard case .device(let driverError) = error, driverError.kind == .noDevice else { return nil }
        if case .noSoundCard(let reason) = driverError.underlying as? ALSAError { return reason }
        return driverError.description
    }
}
