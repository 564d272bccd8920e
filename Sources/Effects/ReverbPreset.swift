/// The rooms a `ReverbKernel` models, after AVAudioUnitReverbPreset.
public enum ReverbPreset: String, Sendable, CaseIterable {
    case smallRoom = "small-room"
    case mediumRoom = "medium-room"
    case largeRoom = "large-room"
    case largeRoom2 = "large-room-2"
    case mediumChamber = "medium-chamber"
    case largeChamber = "large-chamber"
    case plate
    case mediumHall = "medium-hall"
    case mediumHall2 = "medium-hall-2"
    case mediumHall3 = "medium-hall-3"
    case largeHall = "large-hall"
    case largeHall2 = "large-hall-2"
    case cathedral

    /// The acoustic design of one preset.
    public struct Design: Sendable {
        /// Time for the tail to fall by 60 dB at low frequencies, in seconds.
        public var decayTime: Double
        /// Scale of the delay-line lengths (1 ≈ a 30–80 ms room); larger rooms have sparser early echoes.
        public var size: Double
        /// High-frequency damping inside the feedback loop, 0 (bright) ... 1 (dark).
        public var damping: Double
        /// Gap before the tail starts, in seconds.
        public var preDelay: Double
    }

    /// `allCases`, made once: reading `allCases` builds a new array each time, which the render thread must not.
    static let table = allCases

    /// The largest `size` of any preset: the reverb allocates its lines for it.
    static let maximumSize = 2.0

    /// This preset's design values.
    public var design: Design {
        switch self {
        case .smallRoom: Design(decayTime: 0.35, size: 0.35, damping: 0.45, preDelay: 0.002)
        case .mediumRoom: Design(decayTime: 0.6, size: 0.55, damping: 0.4, preDelay: 0.005)
        case .largeRoom: Design(decayTime: 0.9, size: 0.8, damping: 0.35, preDelay: 0.008)
        case .largeRoom2: Design(decayTime: 1.1, size: 0.9, damping: 0.25, preDelay: 0.01)
        case .mediumChamber: Design(decayTime: 1.0, size: 0.7, damping: 0.3, preDelay: 0.008)
        case .largeChamber: Design(decayTime: 1.4, size: 0.9, damping: 0.3, preDelay: 0.012)
        case .plate: Design(decayTime: 1.5, size: 0.5, damping: 0.1, preDelay: 0)
        case .mediumHall: Design(decayTime: 1.6, size: 1.1, damping: 0.3, preDelay: 0.015)
        case .mediumHall2: Design(decayTime: 1.9, size: 1.2, damping: 0.25, preDelay: 0.018)
        case .mediumHall3: Design(decayTime: 2.2, size: 1.25, damping: 0.35, preDelay: 0.02)
        case .largeHall: Design(decayTime: 2.6, size: 1.5, damping: 0.3, preDelay: 0.025)
        case .largeHall2: Design(decayTime: 3.2, size: 1.6, damping: 0.25, preDelay: 0.03)
        case .cathedral: Design(decayTime: 5.0, size: 2.0, damping: 0.35, preDelay: 0.04)
        }
    }
}
