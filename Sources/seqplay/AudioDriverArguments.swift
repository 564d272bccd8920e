import ArgumentParser
import JACK

/// Which audio driver plays to the sound card.
enum AudioDriverName: String, ExpressibleByArgument, CaseIterable {
    /// An ALSA PCM device (`--device`).
    case alsa
    /// A JACK server (jackd2, or PipeWire through `pw-jack`): seqplay's ports, connected where asked.
    case jack
}

/// The flags that choose and set up the audio driver, wherever seqplay plays to a sound card
/// (songs, `live`, `serve`): `-a/--audio-driver alsa|jack` and the JACK client's name and connections.
struct AudioDriverArguments: ParsableArguments {
    @Option(name: [.customShort("a"), .long], help: ArgumentHelp("Play through ALSA (--device) or a JACK server (jackd2, or PipeWire with pw-jack); with JACK the server sets the sample rate and block size.", valueName: "alsa|jack"))
    var audioDriver: AudioDriverName = .alsa

    @Option(help: ArgumentHelp("JACK client name.", valueName: "name"))
    var jackName = "seqplay"

    @Option(help: ArgumentHelp("Connect the JACK output ports to the ports matching this regular expression (in order), or 'none'; default: the physical playback ports.", valueName: "pattern|none"))
    var jackConnect: String?

    @Flag(help: "JACK: also one stereo pair per MIDI channel (ch01_L, ch01_R … ch16_R) beside out_L/out_R, each channel's own sampler; --jack-connect connects the mix only.")
    var jackMulti = false

    func validate() throws {
        if audioDriver != .jack && (jackConnect != nil || jackMulti) {
            throw ValidationError("--jack-connect and --jack-multi need --audio-driver jack.")
        }
        if jackName.isEmpty { throw ValidationError("--jack-name must not be empty.") }
    }

    var usesJACK: Bool { audioDriver == .jack }

    /// What messages call the output: the ALSA device's name, or the JACK client.
    func outputName(device: String) -> String { usesJACK ? "JACK (\(jackName))" : device }

    /// Where the output ports go.
    var jackConnection: JACKConnection { JACKConnection(naming: jackConnect) }

    /// The output ports: the mix, then with --jack-multi a pair per MIDI channel.
    var jackPortNames: [String] { JACKOutputSettings.songPortNames(perChannel: jackMulti) }

    /// Opens the JACK output with one port per name; without a server, says how to start one and
    /// exits 5.
    func openJACKOutput(portNames: [String] = ["out_L", "out_R"]) throws(CommandFailure) -> JACKOutput {
        do {
            return try JACKOutput(settings: JACKOutputSettings(clientName: jackName, portNames: portNames,
                                                                    connection: jackConnection))
        } catch .noServer {
            throw CommandFailure("no JACK server is running: start one (jackd -d alsa, or qjackctl; under PipeWire "
                                   + "run seqplay with pw-jack) or play through ALSA with --audio-driver alsa", .inputOutput)
        } catch {
            throw CommandFailure("cannot use the JACK server: \(error)", .inputOutput)
        }
    }
}
