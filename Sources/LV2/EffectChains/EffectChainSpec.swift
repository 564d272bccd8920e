import AudioGraph
import Effects

/// An effect chain as written on the command line, parsed and checked.
///
/// Syntax: effects separated by `;`, applied in order after the sampler. Each effect is a name, optionally
/// followed by `:` and comma-separated arguments; an argument is either positional (filling the effect's
/// parameters in the order below) or `key=value`. Numbers may carry a leading `+`. Names of effects, types,
/// presets and modes ignore case, `-` and `_`. Empty entries are ignored.
///
///     eq:TYPE,FREQ,GAIN,BW            one EQ band. TYPE: parametric, lowpass, highpass, resonant-lowpass,
///                                     resonant-highpass, bandpass, bandstop, lowshelf, highshelf,
///                                     resonant-lowshelf, resonant-highshelf; FREQ Hz (10–24000, 1000);
///                                     GAIN dB (−96–24, 0); BW octaves (0.05–5, 1). Keys: type freq gain bw
///     reverb:PRESET,WET               PRESET: small-room, medium-room, large-room, large-room-2,
///                                     medium-chamber, large-chamber, plate, medium-hall, medium-hall-2,
///                                     medium-hall-3, large-hall, large-hall-2, cathedral (medium-hall);
///                                     WET % (0–100, 50). Keys: preset wet
///     delay:TIME,FEEDBACK,CUTOFF,WET  TIME ms (0–2000, 500); FEEDBACK % (−100–100, 50);
///                                     CUTOFF Hz (10–24000, 15000); WET % (0–100, 50).
///                                     Keys: time feedback cutoff wet
///     chorus:VOICES,RATE,DEPTH,WET,TYPE
///                                     VOICES (1–10, 3); RATE Hz (0.1–5, 0.3); DEPTH ms (0–20, 8);
///                                     WET % (0–100, 50); TYPE: sine, triangle (sine).
///                                     Keys: voices rate depth wet type
///     distortion:MODE,PREGAIN,WET     MODE: soft-clip, hard-clip, overdrive, foldback, bit-crush (soft-clip);
///                                     PREGAIN dB (−80–40, 6); WET % (0–100, 50). Keys: mode pregain wet
///     compressor:THRESHOLD,RATIO,ATTACK,RELEASE,MAKEUP,KNEE
///                                     THRESHOLD dBFS (−60–0, −20); RATIO (1–50, 4); ATTACK ms (0.1–500, 5);
///                                     RELEASE ms (5–5000, 100); MAKEUP dB (−40–40, 0); KNEE dB (0–24, 0).
///                                     Keys: threshold ratio attack release makeup knee
///     limiter:CEILING,ATTACK,RELEASE,PREGAIN
///                                     CEILING dBFS (−40–0, −1); ATTACK (look-ahead) ms (1–30, 5);
///                                     RELEASE ms (1–2000, 50); PREGAIN dB (−40–40, 0).
///                                     Keys: ceiling attack release pregain
///     varispeed:RATE                  RATE (0.25–4, 1): 2 = twice as fast, an octave up. Must be last.
///     lv2:URI[,SYMBOL=VALUE…][,preset=NAME]
///                                     an installed LV2 plugin with audio in and out (`seqplay plugins
///                                     --where effect`), its control inputs by symbol within their ranges,
///                                     after the preset named (its rdfs:label). See `LV2EffectNode`.
///
/// Example: `eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter`.
public struct EffectChainSpec: Equatable, Sendable {
    /// The effects in signal order.
    public var effects: [EffectSpec]

    /// The chain `effects`.
    public init(effects: [EffectSpec]) { self.effects = effects }

    /// Parses `text` (syntax above); throws an `EffectChainSpecError` naming the bad token.
    public init(parsing text: String) throws(EffectChainSpecError) {
        var effects: [EffectSpec] = []
        for entry in text.split(separator: ";", omittingEmptySubsequences: false) {
            let trimmed = entry.trimmingWhitespace()
            if trimmed.isEmpty { continue }
            if case .varispeed = effects.last { throw .varispeedNotLast(next: trimmed) }
            effects.append(try EffectSpec(parsing: trimmed))
        }
        if effects.isEmpty { throw .emptyChain }
        self.effects = effects
    }

    /// The rate of the chain's varispeed (its last effect), or nil when it has none. Run the engine's output
    /// through a `VarispeedRenderer` at this rate.
    public var varispeedRate: Float? {
        if case .varispeed(let rate) = effects.last { return rate }
        return nil
    }

    /// New graph nodes for every effect but the varispeed, in order, configured as specified. Connect them
    /// between the source and the mixer: `engine.connect([sampler] + nodes + [engine.mainMixerNode])`.
    public func makeNodes() -> [AudioNode] { effects.compactMap { $0.makeNode() } }
}

/// One effect of a chain with all its settings (defaults filled in), in kernel units.
public enum EffectSpec: Equatable, Sendable {
    case eq(type: EQFilterType, frequency: Float, gain: Float, bandwidth: Float)
    case reverb(preset: ReverbPreset, wetDryMix: Float)
    /// `delayTime` in seconds.
    case delay(delayTime: Float, feedback: Float, lowPassCutoff: Float, wetDryMix: Float)
    /// `depth` in milliseconds, `rate` in Hz.
    case chorus(voices: Float, rate: Float, depth: Float, wetDryMix: Float, waveform: ChorusWaveform)
    case distortion(mode: DistortionMode, preGain: Float, wetDryMix: Float)
    /// Times in seconds.
    case compressor(threshold: Float, ratio: Float, attackTime: Float, releaseTime: Float, makeUpGain: Float,
                    kneeWidth: Float)
    /// Times in seconds.
    case limiter(ceiling: Float, attackTime: Float, releaseTime: Float, preGain: Float)
    case varispeed(rate: Float)
    /// An LV2 plugin (`lv2:URI,…`).
    case lv2(LV2PluginSettings)

    /// Parses one `name:args` entry.
    init(parsing entry: String) throws(EffectChainSpecError) {
        let (name, argumentText) = entry.splitOnce(":")
        if name.normalisedName == "lv2" {
            do throws(LV2Error) {
                self = .lv2(try LV2PluginSettings(parsing: argumentText ?? "", role: .effect))
            } catch {
                throw .lv2(error)
            }
            return
        }
        guard let schema = EffectSchema.named(name) else {
            throw .unknownEffect(name: name, known: EffectSchema.all.map(\.name))
        }
        let values = try schema.parse(arguments: argumentText)
        func number(_ key: String) -> Float { values.numbers[key] ?? schema.defaultNumber(key) }
        func choice(_ key: String) -> String { values.choices[key] ?? schema.defaultChoice(key) }
        switch schema.name {
        case "eq":
            self = .eq(type: EQFilterType.byCLIName[choice("type")]!, frequency: number("freq"),
                       gain: number("gain"), bandwidth: number("bw"))
        case "reverb":
            self = .reverb(preset: ReverbPreset.byCLIName[choice("preset")]!, wetDryMix: number("wet"))
        case "delay":
            self = .delay(delayTime: number("time") / 1000, feedback: number("feedback"),
                          lowPassCutoff: number("cutoff"), wetDryMix: number("wet"))
        case "chorus":
            self = .chorus(voices: number("voices"), rate: number("rate"), depth: number("depth"),
                           wetDryMix: number("wet"), waveform: ChorusWaveform(rawValue: choice("type"))!)
        case "distortion":
            self = .distortion(mode: DistortionMode.byCLIName[choice("mode")]!, preGain: number("pregain"),
                               wetDryMix: number("wet"))
        case "compressor":
            self = .compressor(threshold: number("threshold"), ratio: number("ratio"),
                               attackTime: number("attack") / 1000, releaseTime: number("release") / 1000,
                               makeUpGain: number("makeup"), kneeWidth: number("knee"))
        case "limiter":
            self = .limiter(ceiling: number("ceiling"), attackTime: number("attack") / 1000,
                            releaseTime: number("release") / 1000, preGain: number("pregain"))
        default:
            self = .varispeed(rate: number("rate"))
        }
    }

    /// A configured node for this effect; nil for the varispeed, which is not a node (see `VarispeedRenderer`).
    public func makeNode() -> AudioNode? {
        switch self {
        case .eq(let type, let frequency, let gain, let bandwidth):
            let node = EQNode(numberOfBands: 1)
            let band = node.bands[0]
            band.filterType = type
            band.frequency = frequency
            band.gain = gain
            band.bandwidth = bandwidth
            return node
        case .reverb(let preset, let wetDryMix):
            return ReverbNode(preset: preset, wetDryMix: wetDryMix)
        case .delay(let delayTime, let feedback, let lowPassCutoff, let wetDryMix):
            return DelayNode().setting((\.delayTime, delayTime), (\.feedback, feedback), (\.lowPassCutoff, lowPassCutoff),
                                       (\.wetDryMix, wetDryMix))
        case .chorus(let voices, let rate, let depth, let wetDryMix, let waveform):
            let node = ChorusNode().setting((\.voices, voices), (\.rate, rate), (\.depth, depth), (\.wetDryMix, wetDryMix))
            node.waveform = waveform
            return node
        case .distortion(let mode, let preGain, let wetDryMix):
            return DistortionNode(mode: mode).setting((\.preGain, preGain), (\.wetDryMix, wetDryMix))
        case .compressor(let threshold, let ratio, let attackTime, let releaseTime, let makeUpGain, let kneeWidth):
            return DynamicsProcessorNode().setting((\.threshold, threshold), (\.ratio, ratio), (\.attackTime, attackTime),
                                                   (\.releaseTime, releaseTime), (\.makeUpGain, makeUpGain),
                                                   (\.kneeWidth, kneeWidth))
        case .limiter(let ceiling, let attackTime, let releaseTime, let preGain):
            return PeakLimiterNode().setting((\.ceiling, ceiling), (\.attackTime, attackTime), (\.releaseTime, releaseTime),
                                             (\.preGain, preGain))
        case .varispeed:
            return nil
        case .lv2(let settings):
            return LV2EffectNode(settings: settings)
        }
    }
}

extension EffectNode {
    /// The node with its kernel's parameters set, in order: `DelayNode().setting((\.feedback, 30))`.
    func setting(_ parameters: (ReferenceWritableKeyPath<Kernel, Float>, Float)...) -> EffectNode {
        for (keyPath, value) in parameters { kernel[keyPath: keyPath] = value }
        return self
    }
}

extension EQFilterType {
    /// Command-line names, in the order help lists them.
    public static let cliNames: [String] = [
        "parametric", "lowpass", "highpass", "resonant-lowpass", "resonant-highpass", "bandpass", "bandstop",
        "lowshelf", "highshelf", "resonant-lowshelf", "resonant-highshelf",
    ]

    /// The type a (normalised) command-line name stands for.
    static let byCLIName = Dictionary(uniqueKeysWithValues: zip(cliNames.map(\.normalisedName), allCases))
}

extension ReverbPreset {
    /// The preset a (normalised) command-line name stands for.
    static let byCLIName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue.normalisedName, $0) })
}

extension DistortionMode {
    /// The mode a (normalised) command-line name stands for.
    static let byCLIName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue.normalisedName, $0) })
}
