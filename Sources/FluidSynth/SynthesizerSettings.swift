/// How a `Synthesizer` is configured when it is created: the values FluidSynth reads from its
/// settings object before the synth exists.
public struct SynthesizerSettings: Sendable, Equatable {
    /// How bank-select controllers (CC 0 / CC 32) choose a bank, as in FluidSynth's
    /// `synth.midi-bank-select`.
    public enum BankSelectMode: String, Sendable, CaseIterable {
        /// General MIDI: bank select is ignored.
        case gm
        /// Roland GS: CC 0 selects the bank, CC 32 is ignored (FluidSynth's default).
        case gs
        /// Yamaha XG: CC 0 = 120/127 selects drums, CC 32 selects the bank.
        case xg
        /// MIDI Manufacturers Association: bank = CC 0 × 128 + CC 32.
        case mma
    }

    /// Output sample rate in Hz (FluidSynth accepts 8000...96000).
    public var sampleRate: Double
    /// The most voices that sound at once; further notes steal the quietest voice.
    public var polyphony: Int
    /// Master gain applied to the rendered output (FluidSynth's default is 0.2).
    public var gain: Float
    /// Whether the reverb effect is on.
    public var reverbEnabled: Bool
    /// Whether the chorus effect is on.
    public var chorusEnabled: Bool
    /// How bank-select controllers are interpreted.
    public var bankSelectMode: BankSelectMode

    public init(
        sampleRate: Double = 44_100,
        polyphony: Int = 256,
        gain: Float = 0.2,
        reverbEnabled: Bool = true,
        chorusEnabled: Bool = true,
        bankSelectMode: BankSelectMode = .gs
    ) {
        self.sampleRate = sampleRate
        self.polyphony = polyphony
        self.gain = gain
        self.reverbEnabled = reverbEnabled
        self.chorusEnabled = chorusEnabled
        self.bankSelectMode = bankSelectMode
    }
}
