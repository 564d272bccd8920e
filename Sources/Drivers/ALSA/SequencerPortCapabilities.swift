import CALSA

/// What a sequencer port allows: being read from (it sends events), written to (it receives events),
/// and whether other clients may subscribe to it (connect it with aconnect).
public struct PortCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let read = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_READ))
    public static let write = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_WRITE))
    public static let syncRead = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SYNC_READ))
    public static let syncWrite = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SYNC_WRITE))
    public static let duplex = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_DUPLEX))
    public static let subscribeRead = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SUBS_READ))
    public static let subscribeWrite = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_SUBS_WRITE))
    public static let noExport = PortCapabilities(rawValue: UInt32(SND_SEQ_PORT_CAP_NO_EXPORT))

    /// A port others read MIDI from: `read` + `subscribeRead`.
    public static let output: PortCapabilities = [.read, .subscribeRead]
    /// A port others write MIDI to: `write` + `subscribeWrite`.
    public static let input: PortCapabilities = [.write, .subscribeWrite]

    /// Names of the set capabilities, in declaration order (for listings and JSON).
    public var names: [String] {
        Self.named.filter { contains($0.1) }.map(\.0)
    }

    private static let named: [(String, PortCapabilities)] = [
        ("read", .read), ("write", .write), ("sync-read", .syncRead), ("sync-write", .syncWrite),
        ("duplex", .duplex), ("subscribe-read", .subscribeRead), ("subscribe-write", .subscribeWrite),
        ("no-export", .noExport),
    ]
}

/// What kind of thing a sequencer port is: a MIDI device, a synthesizer, hardware or an application.
public struct PortTypes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let specific = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_SPECIFIC))
    public static let midiGeneric = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC))
    public static let midiGM = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_MIDI_GM))
    public static let midiGS = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_MIDI_GS))
    public static let midiXG = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_MIDI_XG))
    public static let midiMT32 = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_MIDI_MT32))
    public static let midiGM2 = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_MIDI_GM2))
    public static let synth = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_SYNTH))
    public static let directSample = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_DIRECT_SAMPLE))
    public static let sample = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_SAMPLE))
    public static let hardware = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_HARDWARE))
    public static let software = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_SOFTWARE))
    public static let synthesizer = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_SYNTHESIZER))
    public static let port = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_PORT))
    public static let application = PortTypes(rawValue: UInt32(SND_SEQ_PORT_TYPE_APPLICATION))

    /// Names of the set types, in declaration order (for listings and JSON).
    public var names: [String] {
        Self.named.filter { contains($0.1) }.map(\.0)
    }

    private static let named: [(String, PortTypes)] = [
        ("specific", .specific), ("midi-generic", .midiGeneric), ("midi-gm", .midiGM), ("midi-gs", .midiGS),
        ("midi-xg", .midiXG), ("midi-mt32", .midiMT32), ("midi-gm2", .midiGM2), ("synth", .synth),
        ("direct-sample", .directSample), ("sample", .sample), ("hardware", .hardware), ("software", .software),
        ("synthesizer", .synthesizer), ("port", .port), ("application", .application),
    ]
}
