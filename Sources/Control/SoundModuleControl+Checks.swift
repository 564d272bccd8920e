import Sampler

/// The checks a command's numbers pass before anything is queued, each failure named as the faces word it.
extension SoundModuleControl {
    /// `channel`, checked to be one of 0...15.
    static func channelIndex(_ channel: Int) throws(ControlError) -> UInt8 {
        guard (0...15).contains(channel) else { throw .noSuchChannel(channel) }
        return UInt8(channel)
    }

    static func checked(_ value: Int, _ name: String, _ range: ClosedRange<Int>) throws(ControlError) -> Int {
        guard range.contains(value) else { throw .outOfRange(name: name, value: "\(value)", range: "\(range.lowerBound)-\(range.upperBound)") }
        return value
    }

    static func checked(_ value: Double?, _ name: String, _ range: ClosedRange<Double>) throws(ControlError) {
        guard let value else { return }
        guard value.isFinite, range.contains(value) else {
            throw .outOfRange(name: name, value: "\(value)", range: "\(range.lowerBound)-\(range.upperBound)")
        }
    }

    /// `reverb` with each field `change` gives set, every number first checked against its range
    /// (SamplerSettings', FluidSynth's) and named in the error as the faces word it.
    static func applied(_ change: SamplerSettings.Reverb, to reverb: SamplerSettings.Reverb) throws(ControlError) -> SamplerSettings.Reverb {
        let ranges = SamplerSettings.ranges
        for (value, name, range) in [(change.roomSize, "room size", ranges.roomSize), (change.damping, "damping", ranges.damping),
                                     (change.width, "width", ranges.width), (change.level, "level", ranges.reverbLevel)] {
            try checked(value, name, range)
        }
        return reverb.updated(with: change)
    }

    /// `chorus` with each field `change` gives set, checked as `applied(_:to:)` checks a reverb's; the
    /// waveform cannot be changed.
    static func applied(_ change: SamplerSettings.Chorus, to chorus: SamplerSettings.Chorus) throws(ControlError) -> SamplerSettings.Chorus {
        let ranges = SamplerSettings.ranges
        guard change.type == nil || change.type == chorus.type else { throw .unsupported("changing the chorus waveform") }
        if let voices = change.voices { _ = try checked(voices, "voices", ranges.chorusVoices) }
        for (value, name, range) in [(change.level, "level", ranges.chorusLevel), (change.speed, "speed", ranges.chorusSpeed),
                                     (change.depth, "depth", ranges.chorusDepth)] {
            try checked(value, name, range)
        }
        return chorus.updated(with: change)
    }
}
