/// One connection in an engine: output bus `sourceBus` of `source` feeds input bus
/// `destinationBus` of `destination`.
public struct AudioConnection: CustomStringConvertible {
    public let source: AudioNode
    public let sourceBus: Int
    public let destination: AudioNode
    public let destinationBus: Int
    /// The format the caller said this connection carries; nil to take whatever the source produces.
    /// When given, a source producing anything else is a start error.
    public let format: AudioFormat?

    /// E.g. `'tone' bus 0 → 'mixer' bus 1`.
    public var description: String {
        "'\(source.name)' bus \(sourceBus) → '\(destination.name)' bus \(destinationBus)"
    }
}
