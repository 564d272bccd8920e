import AudioGraph

extension AudioOutputError {
    /// Why the machine has no sound card, when that is why the output could not open (the driver found
    /// no device: `ALSAError.noSoundCard`'s reason, or the driver's own words); nil for any other failure.
    public var noSoundCardReason: String? {
        guard case .device(let driverError) = self, driverError.kind == .noDevice else { return nil }
        if case .noSoundCard(let reason) = driverError.underlying as? ALSAError { return reason }
        return driverError.description
    }
}
