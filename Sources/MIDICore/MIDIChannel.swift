/// Facts about MIDI channels as seqplay numbers and names them. Channels are 0-based in code
/// (channel 10, the GM drum channel, is 9) and 1-based wherever a person reads them.
public enum MIDIChannel {
    /// The short name of `channel` (0-based) in file and port names: "ch01" … "ch16". Stems,
    /// per-channel outputs and `--jack-multi` ports are named with it.
    public static func name<Channel: BinaryInteger>(_ channel: Channel) -> String {
        (channel < 9 ? "ch0" : "ch") + "\(channel + 1)"
    }
}
