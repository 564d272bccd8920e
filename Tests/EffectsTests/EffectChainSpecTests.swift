import AudioGraph
import Effects
import LV2
import XCTest

final class EffectChainSpecTests: XCTestCase {
    func testTheIssueExampleParsesWithDefaultsFilledIn() throws {
        let chain = try EffectChainSpec(parsing: "eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter")
        XCTAssertEqual(chain.effects, [
            .eq(type: .lowShelf, frequency: 120, gain: 3, bandwidth: 1),
            .reverb(preset: .largeHall, wetDryMix: 30),
            .limiter(ceiling: -1, attackTime: 0.005, releaseTime: 0.05, preGain: 0),
        ])
        XCTAssertNil(chain.varispeedRate)
        XCTAssertEqual(chain.makeNodes().count, 3)
    }

    func testEveryEffectWithKeysPositionalsAndLooseSpelling() throws {
        let chain = try EffectChainSpec(parsing: """
            EQ: Resonant_LowPass, 800, bw=0.3 ; delay:250,feedback=-40,cutoff=4000,wet=35;
            chorus:4,rate=1.5,depth=12,type=Triangle; distortion:hard-clip,pregain=12,wet=80; compressor:-18,3,attack=10,release=200,makeup=4,knee=6;
            limiter:ceiling=-0.5,attack=3;;varispeed:2
            """)
        XCTAssertEqual(chain.effects, [
            .eq(type: .resonantLowPass, frequency: 800, gain: 0, bandwidth: 0.3),
            .delay(delayTime: 0.25, feedback: -40, lowPassCutoff: 4000, wetDryMix: 35),
            .chorus(voices: 4, rate: 1.5, depth: 12, wetDryMix: 50, waveform: .triangle),
            .distortion(mode: .hardClip, preGain: 12, wetDryMix: 80),
            .compressor(threshold: -18, ratio: 3, attackTime: 0.01, releaseTime: 0.2, makeUpGain: 4, kneeWidth: 6),
            .limiter(ceiling: -0.5, attackTime: 0.003, releaseTime: 0.05, preGain: 0),
            .varispeed(rate: 2),
        ])
        XCTAssertEqual(chain.varispeedRate, 2)
        XCTAssertEqual(chain.makeNodes().count, 6, "the varispeed is not a node")
    }

    func testEveryEQTypeAndReverbPresetHasACommandLineName() throws {
        let types = try EQFilterType.allCases.map { type -> EQFilterType in
            let name = "\(type)".replacingOccurrences(of: "Pass", with: "pass")
            guard case .eq(let parsed, _, _, _) = try EffectChainSpec(parsing: "eq:\(name)").effects[0] else {
                throw XCTSkip("not an eq")
            }
            return parsed
        }
        XCTAssertEqual(types, EQFilterType.allCases)
        for preset in ReverbPreset.allCases {
            XCTAssertEqual(try EffectChainSpec(parsing: "reverb:\(preset.rawValue)").effects,
                           [.reverb(preset: preset, wetDryMix: 50)])
        }
    }

    func testMadeNodesCarryTheSettings() throws {
        let nodes = try EffectChainSpec(parsing: "eq:highshelf,6000,-4;delay:120,wet=20;chorus:5,0.8,10,70,triangle").makeNodes()
        let eq = try XCTUnwrap(nodes[0] as? EQNode)
        XCTAssertEqual(eq.bands[0].filterType, .highShelf)
        XCTAssertEqual(eq.bands[0].frequency, 6000)
        XCTAssertEqual(eq.bands[0].gain, -4)
        let delay = try XCTUnwrap(nodes[1] as? DelayNode)
        XCTAssertEqual(delay.delayTime, 0.12, accuracy: 1e-6)
        XCTAssertEqual(delay.wetDryMix, 20)
        let chorus = try XCTUnwrap(nodes[2] as? ChorusNode)
        XCTAssertEqual([chorus.voices, chorus.rate, chorus.depth, chorus.wetDryMix], [5, 0.8, 10, 70])
        XCTAssertEqual(chorus.waveform, .triangle)
    }

    func testErrorsNameTheBadToken() {
        let cases: [(String, EffectChainSpecError)] = [
            ("", .emptyChain),
            (" ; ", .emptyChain),
            ("flanger:3", .unknownEffect(name: "flanger", known: ["eq", "reverb", "delay", "chorus", "distortion",
                                                                  "compressor", "limiter", "varispeed"])),
            ("eq:wobble,100", .unknownChoice(effect: "eq", parameter: "type", token: "wobble",
                                             choices: EQFilterType.cliNames)),
            ("eq:lowshelf,12o", .notANumber(effect: "eq", parameter: "freq", token: "12o")),
            ("eq:lowshelf,120,+30", .outOfRange(effect: "eq", parameter: "gain", token: "+30", range: -96...24)),
            ("reverb:plate,wet=30,dry=3", .unknownParameter(effect: "reverb", key: "dry", known: ["preset", "wet"])),
            ("reverb:plate,30,40", .tooManyArguments(effect: "reverb", token: "40")),
            ("reverb:plate,30,wet=40", .duplicateParameter(effect: "reverb", parameter: "wet")),
            ("chorus:11", .outOfRange(effect: "chorus", parameter: "voices", token: "11", range: 1...10)),
            ("chorus:3,0.3,depth=25", .outOfRange(effect: "chorus", parameter: "depth", token: "25", range: 0...20)),
            ("chorus:type=square", .unknownChoice(effect: "chorus", parameter: "type", token: "square",
                                                  choices: ["sine", "triangle"])),
            ("varispeed:5", .outOfRange(effect: "varispeed", parameter: "rate", token: "5", range: 0.25...4)),
            ("varispeed:2;limiter", .varispeedNotLast(next: "limiter")),
            ("limiter:nan", .notANumber(effect: "limiter", parameter: "ceiling", token: "nan")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try EffectChainSpec(parsing: text), text) { error in
                XCTAssertEqual(error as? EffectChainSpecError, expected, text)
            }
        }
        XCTAssertEqual(EffectChainSpecError.notANumber(effect: "eq", parameter: "freq", token: "12o").description,
                       "eq: freq '12o' is not a number")
    }
}
