import Effects

/// The parameters one command-line effect takes, in positional order, with their defaults and ranges.
struct EffectSchema: Sendable {
    /// One parameter: a number in a range, or one of a set of names.
    struct Parameter: Sendable {
        enum Kind: Sendable {
            case number(range: ClosedRange<Float>, default: Float)
            /// `names` as help shows them; input and `default` are compared normalised.
            case choice(names: [String], default: String)
        }
        let key: String
        let kind: Kind
    }

    /// The parsed arguments of one effect, by parameter key (choices normalised).
    struct Values {
        var numbers: [String: Float] = [:]
        var choices: [String: String] = [:]
    }

    let name: String
    let parameters: [Parameter]

    static let all: [EffectSchema] = [
        EffectSchema(name: "eq", parameters: [
            .init(key: "type", kind: .choice(names: EQFilterType.cliNames, default: "parametric")),
            .init(key: "freq", kind: .number(range: 10...24_000, default: 1000)),
            .init(key: "gain", kind: .number(range: -96...24, default: 0)),
            .init(key: "bw", kind: .number(range: 0.05...5, default: 1)),
        ]),
        EffectSchema(name: "reverb", parameters: [
            .init(key: "preset", kind: .choice(names: ReverbPreset.allCases.map(\.rawValue),
                                               default: "mediumhall")),
            .init(key: "wet", kind: .number(range: 0...100, default: 50)),
        ]),
        EffectSchema(name: "delay", parameters: [
            .init(key: "time", kind: .number(range: 0...2000, default: 500)),
            .init(key: "feedback", kind: .number(range: -100...100, default: 50)),
            .init(key: "cutoff", kind: .number(range: 10...24_000, default: 15_000)),
            .init(key: "wet", kind: .number(range: 0...100, default: 50)),
        ]),
        EffectSchema(name: "chorus", parameters: [
            .init(key: "voices", kind: .number(range: 1...10, default: 3)),
            .init(key: "rate", kind: .number(range: 0.1...5, default: 0.3)),
            .init(key: "depth", kind: .number(range: 0...ChorusKernel.maximumDepth, default: 8)),
            .init(key: "wet", kind: .number(range: 0...100, default: 50)),
            .init(key: "type", kind: .choice(names: ChorusWaveform.allCases.map(\.rawValue), default: "sine")),
        ]),
        EffectSchema(name: "distortion", parameters: [
            .init(key: "mode", kind: .choice(names: DistortionMode.allCases.map(\.rawValue),
                                             default: "softclip")),
            .init(key: "pregain", kind: .number(range: -80...40, default: 6)),
            .init(key: "wet", kind: .number(range: 0...100, default: 50)),
        ]),
        EffectSchema(name: "compressor", parameters: [
            .init(key: "threshold", kind: .number(range: -60...0, default: -20)),
            .init(key: "ratio", kind: .number(range: 1...50, default: 4)),
            .init(key: "attack", kind: .number(range: 0.1...500, default: 5)),
            .init(key: "release", kind: .number(range: 5...5000, default: 100)),
            .init(key: "makeup", kind: .number(range: -40...40, default: 0)),
            .init(key: "knee", kind: .number(range: 0...24, default: 0)),
        ]),
        EffectSchema(name: "limiter", parameters: [
            .init(key: "ceiling", kind: .number(range: -40...0, default: -1)),
            .init(key: "attack", kind: .number(range: 1...30, default: 5)),
            .init(key: "release", kind: .number(range: 1...2000, default: 50)),
            .init(key: "pregain", kind: .number(range: -40...40, default: 0)),
        ]),
        EffectSchema(name: "varispeed", parameters: [
            .init(key: "rate", kind: .number(range: 0.25...4, default: 1)),
        ]),
    ]

    /// The schema called `name` (normalised), if any.
    static func named(_ name: String) -> EffectSchema? {
        all.first { $0.name == name.normalisedName }
    }

    func defaultNumber(_ key: String) -> Float {
        guard case .number(_, let value) = parameters.first(where: { $0.key == key })!.kind else { return 0 }
        return value
    }

    func defaultChoice(_ key: String) -> String {
        guard case .choice(_, let value) = parameters.first(where: { $0.key == key })!.kind else { return "" }
        return value
    }

    /// Parses the comma-separated arguments after `name:` (nil when there was no `:`).
    func parse(arguments text: String?) throws(EffectChainSpecError) -> Values {
        var values = Values()
        var given: Set<String> = []
        var nextPositional = 0
        for rawToken in text.map({ $0.split(separator: ",", omittingEmptySubsequences: false) }) ?? [] {
            let token = String(rawToken).trimmingWhitespace()
            let (keyOrValue, valueAfterEquals) = token.splitOnce("=")
            let parameter: Parameter
            let valueText: String
            if let valueAfterEquals {
                guard let named = parameters.first(where: { $0.key == keyOrValue.lowercased() }) else {
                    throw .unknownParameter(effect: name, key: keyOrValue, known: parameters.map(\.key))
                }
                (parameter, valueText) = (named, valueAfterEquals)
            } else {
                guard nextPositional < parameters.count else { throw .tooManyArguments(effect: name, token: token) }
                (parameter, valueText) = (parameters[nextPositional], token)
                nextPositional += 1
            }
            guard given.insert(parameter.key).inserted else {
                throw .duplicateParameter(effect: name, parameter: parameter.key)
            }
            switch parameter.kind {
            case .number(let range, _):
                let digits = valueText.hasPrefix("+") ? String(valueText.dropFirst()) : valueText
                guard let number = Float(digits), number.isFinite else {
                    throw .notANumber(effect: name, parameter: parameter.key, token: valueText)
                }
                guard range.contains(number) else {
                    throw .outOfRange(effect: name, parameter: parameter.key, token: valueText, range: range)
                }
                values.numbers[parameter.key] = number
            case .choice(let names, _):
                guard names.contains(where: { $0.normalisedName == valueText.normalisedName }) else {
                    throw .unknownChoice(effect: name, parameter: parameter.key, token: valueText, choices: names)
                }
                values.choices[parameter.key] = valueText.normalisedName
            }
        }
        return values
    }
}

extension StringProtocol {
    /// Lower case without `-`, `_` or spaces: how names are compared.
    var normalisedName: String { lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " } }

    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// The text before the first `separator` (trimmed) and the text after it (nil when there is none).
    func splitOnce(_ separator: Character) -> (String, String?) {
        guard let index = firstIndex(of: separator) else { return (trimmingWhitespace(), nil) }
        return (self[..<index].trimmingWhitespace(), self[self.index(after: index)...].trimmingWhitespace())
    }
}
