/// What is wrong with an effect-chain string; every case names the offending token.
public enum EffectChainSpecError: Error, Equatable, CustomStringConvertible {
    /// The string holds no effect.
    case emptyChain
    /// `name` is not an effect; `known` lists the effects.
    case unknownEffect(name: String, known: [String])
    /// `key=` is not a parameter of `effect`; `known` lists its parameters.
    case unknownParameter(effect: String, key: String, known: [String])
    /// `token` is a positional argument beyond the last parameter of `effect`.
    case tooManyArguments(effect: String, token: String)
    /// `parameter` was given twice (positionally and by key, or twice by key).
    case duplicateParameter(effect: String, parameter: String)
    /// `token` is not a number, as `parameter` needs.
    case notANumber(effect: String, parameter: String, token: String)
    /// `token` is outside `parameter`'s range.
    case outOfRange(effect: String, parameter: String, token: String, range: ClosedRange<Float>)
    /// `token` is not one of `parameter`'s choices.
    case unknownChoice(effect: String, parameter: String, token: String, choices: [String])
    /// The varispeed is followed by `next`: it changes the rate at the engine's output, so it must come last.
    case varispeedNotLast(next: String)
    /// An `lv2:` entry names a plugin, port, value or preset that cannot be used (the error names the choices).
    case lv2(LV2Error)

    public var description: String {
        switch self {
        case .emptyChain:
            "effect chain is empty"
        case .unknownEffect(let name, let known):
            "unknown effect '\(name)' (effects: \(known.joined(separator: ", ")))"
        case .unknownParameter(let effect, let key, let known):
            "\(effect): unknown parameter '\(key)' (parameters: \(known.joined(separator: ", ")))"
        case .tooManyArguments(let effect, let token):
            "\(effect): too many arguments at '\(token)'"
        case .duplicateParameter(let effect, let parameter):
            "\(effect): parameter '\(parameter)' given twice"
        case .notANumber(let effect, let parameter, let token):
            "\(effect): \(parameter) '\(token)' is not a number"
        case .outOfRange(let effect, let parameter, let token, let range):
            "\(effect): \(parameter) '\(token)' is outside \(range.lowerBound)...\(range.upperBound)"
        case .unknownChoice(let effect, let parameter, let token, let choices):
            "\(effect): unknown \(parameter) '\(token)' (choices: \(choices.joined(separator: ", ")))"
        case .varispeedNotLast(let next):
            "varispeed must be the last effect (it is followed by '\(next)')"
        case .lv2(let error):
            error.description
        }
    }
}
