import AudioGraph

/// Real-time output to a JACK server: a `RealtimeOutput` on a `JACKAudioDriver`, so the engine renders
/// in JACK's process callback into `out_L`/`out_R` (or the ports `settings` names).
///
/// ```swift
/// let output = try JACKOutput(settings: JACKOutputSettings(clientName: "seqplay"))
/// try output.start(engine: engine)      // the server's rate: output.sampleRate
/// ```
// Why unchecked: restates RealtimeOutput's contract (its subclass adds no state).
public final class JACKOutput: RealtimeOutput, @unchecked Sendable {
    /// The driver: its client (name, transport, more ports) and output ports.
    public let jack: JACKAudioDriver

    /// Connects to the server and registers the ports. Throws `.noServer` when no server is running.
    public init(settings: JACKOutputSettings = JACKOutputSettings()) throws(JACKError) {
        jack = try JACKAudioDriver(settings: settings)
        super.init(driver: jack)
    }
}
