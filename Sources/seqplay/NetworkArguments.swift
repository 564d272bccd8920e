import ArgumentParser
import Foundation
import NetworkMIDI

/// The network MIDI flags shared by the commands that open an RTP-MIDI session (`serve --network`,
/// `monitor --network`, playing with `--network-connect`), and the session they describe.
struct NetworkArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Address the network session listens on (control port; data is the next port). Default 127.0.0.1:5004; 127.0.0.1:0 when connecting to a loopback peer.", valueName: "addr:port"))
    var listen: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Milliseconds added to each received event's time to absorb network jitter; 0 plays each event at its sender's timestamp, or at once if that has passed.", valueName: "ms"))
    var networkLatency = 5.0

    @Option(help: ArgumentHelp("Who may connect: none (loopback only), listed (loopback and --network-host), anyone.", valueName: "none|listed|anyone"))
    var networkAllow: ConnectionPolicyArgument = .listed

    @Option(help: ArgumentHelp("A host (IPv4 address) --network-allow listed lets in; repeat for more.", valueName: "host"))
    var networkHost: [String] = []

    func validate() throws {
        try FlagRange.check(networkLatency, "--network-latency", atLeast: 0, atMost: 1000, unit: " ms")
        if !networkHost.isEmpty && networkAllow != .listed { throw ValidationError("--network-host needs --network-allow listed.") }
    }

    /// The session's configuration; `defaultListen` is used when `--listen` is not given.
    func configuration(name: String, defaultListen: String = "127.0.0.1:5004") throws(NetworkMIDIError) -> NetworkMIDISession.Configuration {
        var configuration = NetworkMIDISession.Configuration()
        configuration.name = name
        configuration.listenAddress = try NetworkMIDIAddress.resolve(listen ?? defaultListen)
        configuration.playoutLatency = networkLatency / 1000
        switch networkAllow {
        case .none: configuration.policy = .noOne
        case .listed: configuration.policy = .listedHosts(networkHost)
        case .anyone: configuration.policy = .anyone
        }
        configuration.onPeerEvent = { event in
            switch event {
            case .connected: CommandLineOutput.note(event.explanation)
            case .ended(_, .invitationTimedOut), .ended(_, .refused): CommandLineOutput.note(event.explanation)
            case .ended: CommandLineOutput.note(event.explanation + "; its notes were released")
            }
        }
        return configuration
    }
}

/// `--network-allow`: the connection policy by name.
enum ConnectionPolicyArgument: String, ExpressibleByArgument, CaseIterable {
    case none, listed, anyone
}
