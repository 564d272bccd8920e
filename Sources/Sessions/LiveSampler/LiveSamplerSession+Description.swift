import ALSA
import Foundation
import NetworkMIDI

extension LiveSamplerSession {
    /// What the started session serves, in one line: "seqplay serve: serving on ports 128:0 128:1;
    /// immediate; network session at 127.0.0.1:5004; default at 48000 Hz, period 128, buffer 5.3 ms"
    /// (the ports and their delivery, the network session, the other inputs, the output).
    public var servingDescription: String {
        var parts: [String] = []
        if let ports {
            parts.append("ports " + ports.ports.map { "\($0.address)" }.joined(separator: " "))
            if case .timestamped(let frames) = portDelivery {
                parts.append(String(format: "timestamped, look-ahead %.1f ms", Double(frames) / Double(output.sampleRate) * 1000))
            } else {
                parts.append("immediate")
            }
        }
        if let network { parts.append("network session at \(network.session.controlAddress)") }
        parts += configuration.inputs.map(\.name)
        let rate = output.sampleRate
        switch configuration.output {
        case .soundCard(let device, _):
            let latency = (output as? ALSAOutput).map { Double($0.device.bufferFrames) / Double(rate) * 1000 } ?? 0
            parts.append(String(format: "%@ at %d Hz, period %d, buffer %.1f ms", device, rate, output.periodFrames, latency))
        case .recording(let path, _):
            parts.append("recording to \(path) at \(rate) Hz")
        case .opened:
            parts.append("JACK at \(rate) Hz, block \(output.periodFrames)")
        }
        return "\(configuration.clientName): serving on " + parts.joined(separator: "; ")
    }

    /// `source` as the session's messages and the control model name it: "20:0 (USB Keyboard: Port 1)",
    /// with its client's and port's names when the sequencer knows them.
    public func describe(_ source: PortAddress) -> String {
        source.description + (ports?.client.portInfo(source).map { " (\($0.clientName): \($0.name))" } ?? "")
    }

    /// The summary's counts as `live` and `serve` print them: "late events: 0, underruns: 0", the renders' times
    /// ("renders longer than their period: 0 (by their work alone: 0; longest 0.41 ms, longest work 0.38 ms,
    /// mean 0.12 ms)") and, once measured, the output clock's drift against the system clock.
    public static func describe(_ summary: Summary) -> String {
        let times = summary.renderTimes
        return "late events: \(summary.lateEvents), underruns: \(summary.underruns), "
            + String(format: "renders longer than their period: %d (by their work alone: %d; longest %.2f ms, longest work %.2f ms, mean %.2f ms)",
                     times.longerThanPeriod, times.workLongerThanPeriod, times.longest * 1e3, times.longestWork * 1e3, times.mean * 1e3)
            + (summary.outputClockPPM.map { String(format: ", output clock %+.1f ppm against the system clock", $0) } ?? "")
    }
}

extension NetworkALSABridge.PortChange: CustomStringConvertible {
    /// The change as a log line: "network peer NAME is ALSA port 129:0", "… removed", "no ALSA port for …".
    public var description: String {
        switch self {
        case .added(let peer, let port): return "network peer \(peer.displayName) is ALSA port \(port)"
        case .removed(let peer, let port): return "ALSA port \(port) of network peer \(peer.displayName) removed"
        case .failed(let peer, let error): return "no ALSA port for network peer \(peer.displayName): \(error)"
        }
    }
}
