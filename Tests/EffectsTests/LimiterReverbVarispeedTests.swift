import Effects
import XCTest

final class PeakLimiterTests: XCTestCase {
    func testHotInputNeverExceedsTheCeiling() {
        let limiter = PeakLimiterKernel()
        limiter.ceiling = -1
        limiter.preGain = 12
        // Stereo, +12 dB of gain on a full-scale sine plus random spikes up to 4× full scale.
        var generator = SystemRandomNumberGenerator()
        let frames = 96_000
        let left = Signals.sine(frequency: 220, seconds: 2, amplitude: 1).enumerated().map { index, sample in
            index % 997 == 0 ? Float.random(in: -4...4, using: &generator) : sample
        }
        let right = (0..<frames).map { _ in Float.random(in: -1...1, using: &generator) }
        limiter.prepare(sampleRate: Signals.sampleRate, channelCount: 2)
        var channels = [left, right]
        Signals.process(limiter, &channels, blockSize: 300)
        let ceiling = powf(10, -1 / 20)
        let loudest = channels.flatMap { $0 }.map(abs).max()!
        print("Limiter: ceiling \(ceiling), loudest output \(loudest) (input peaks up to \(4 * powf(10, 12 / 20)))")
        XCTAssertLessThanOrEqual(loudest, ceiling)
        XCTAssertGreaterThan(loudest, 0.9 * ceiling, "the limiter still lets audio through near the ceiling")
    }

    func testQuietAudioPassesUnchangedAfterTheLookAheadDelay() {
        let limiter = PeakLimiterKernel()
        limiter.attackTime = 0.005
        let quiet = Signals.sine(frequency: 440, seconds: 0.2, amplitude: 0.25)
        let output = Signals.processMono(limiter, quiet)
        let latency = limiter.latencyFrames
        XCTAssertEqual(latency, 240)
        for frame in latency..<quiet.count {
            XCTAssertEqual(output[frame], quiet[frame - latency], accuracy: 1e-6)
        }
    }

    func testGainRecoversAfterAPeakWithTheReleaseTime() {
        let limiter = PeakLimiterKernel()
        limiter.ceiling = -6
        limiter.releaseTime = 0.02
        var input = Signals.sine(frequency: 440, seconds: 0.5, amplitude: 0.25)
        input[1000] = 1
        let output = Signals.processMono(limiter, input)
        let latency = limiter.latencyFrames
        XCTAssertLessThan(abs(output[1000 + latency]), 0.502)
        // Gain right after the peak is reduced; ten release times later it is back to unity.
        let late = 1000 + latency + 10 * 960
        XCTAssertEqual(output[late], input[late - latency], accuracy: 1e-3)
    }
}

final class ReverbTests: XCTestCase {
    private func impulseResponse(_ preset: ReverbPreset) -> [Float] {
        let reverb = ReverbKernel()
        reverb.preset = preset
        reverb.wetDryMix = 100
        let seconds = preset.design.decayTime * 1.5 + 0.3
        return Signals.processMono(reverb, Signals.impulse(frames: Int(seconds * Signals.sampleRate)))
    }

    func testDecayTimesAreOrderedBySizeAndNearTheirDesign() {
        var measured: [ReverbPreset: Double] = [:]
        for preset in ReverbPreset.allCases {
            let rt60 = Signals.reverberationTime(impulseResponse: impulseResponse(preset))
            measured[preset] = rt60
            print("Reverb \(preset.rawValue): RT60 \(String(format: "%.2f", rt60)) s (design \(preset.design.decayTime) s)")
            XCTAssertEqual(rt60, preset.design.decayTime, accuracy: preset.design.decayTime * 0.25, "\(preset)")
        }
        let ordered: [ReverbPreset] = [.smallRoom, .mediumRoom, .largeRoom, .mediumHall, .largeHall, .cathedral]
        for (smaller, larger) in zip(ordered, ordered.dropFirst()) {
            XCTAssertLessThan(measured[smaller]!, measured[larger]!, "\(smaller) < \(larger)")
        }
    }

    func testDryMixPassesInputAndStereoOutputsDiffer() {
        let reverb = ReverbKernel()
        reverb.wetDryMix = 0
        let tone = Signals.sine(frequency: 300, seconds: 0.1)
        XCTAssertEqual(Signals.processMono(reverb, tone), tone)

        reverb.wetDryMix = 100
        reverb.prepare(sampleRate: Signals.sampleRate, channelCount: 2)
        var channels = [Signals.impulse(frames: 9600), Signals.impulse(frames: 9600)]
        Signals.process(reverb, &channels)
        XCTAssertNotEqual(channels[0], channels[1], "left and right tails are decorrelated")
        XCTAssertGreaterThan(channels[0].map(abs).max()!, 0.01)
    }

    func testPresetChangeWhilePlayingChangesTheTail() {
        let reverb = ReverbKernel()
        reverb.wetDryMix = 100
        reverb.preset = .cathedral
        reverb.prepare(sampleRate: Signals.sampleRate, channelCount: 1)
        var channels = [Signals.impulse(frames: 4800)]
        Signals.process(reverb, &channels)
        reverb.preset = .smallRoom
        var tail = [[Float](repeating: 0, count: 96_000)]
        Signals.process(reverb, &tail)
        // A small room's tail is 60 dB down within well under a second.
        XCTAssertLessThan(tail[0][48_000...].map(abs).max()!, 1e-4)
    }
}

final class VarispeedTests: XCTestCase {
    /// Runs `input` (mono) through a varispeed at `rate` until the input ends and the converter drains.
    private func varispeed(_ input: [Float], rate: Float) throws -> [Float] {
        let kernel = try VarispeedKernel(channelCount: 1, inputBlockSize: 256)
        kernel.rate = rate
        var position = 0
        kernel.inputProvider = { channels, maximumFrames in
            let count = min(maximumFrames, input.count - position)
            for frame in 0..<count { channels[0][frame] = input[position + frame] }
            position += count
            return count
        }
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 1000)
        defer { block.deallocate() }
        var pointers = [block]
        var output: [Float] = []
        while true {
            let produced = pointers.withUnsafeMutableBufferPointer { kernel.render(into: $0, frameCount: 1000) }
            output += UnsafeBufferPointer(start: block, count: produced)
            if produced < 1000 { break }
        }
        return output
    }

    /// 440 Hz for `seconds` through a varispeed at `rate`: the output is 1/rate times as long (to
    /// 0.1 %) and sounds at 440 × rate Hz (to 1 Hz), measured over `window` between `low` and `high` Hz.
    private func assertVarispeed(rate: Float, seconds: Double, window: Range<Int>, low: Double, high: Double,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let tone = Signals.sine(frequency: 440, seconds: seconds)
        let output = try varispeed(tone, rate: rate)
        let frequency = Signals.dominantFrequency(of: Array(output[window]), low: low, high: high)
        print("Varispeed \(rate): \(tone.count) frames of 440 Hz → \(output.count) frames, \(frequency) Hz")
        let expectedCount = Double(tone.count) / Double(rate)
        XCTAssertEqual(Double(output.count), expectedCount, accuracy: expectedCount / 1000, file: file, line: line)
        XCTAssertEqual(frequency, 440 * Double(rate), accuracy: 1, file: file, line: line)
    }

    func testRateTwoHalvesTheLengthAndDoublesTheFrequency() throws {
        try assertVarispeed(rate: 2, seconds: 1, window: 2000..<22_000, low: 800, high: 960)
    }

    func testRateHalfDoublesTheLengthAndHalvesTheFrequency() throws {
        try assertVarispeed(rate: 0.5, seconds: 0.5, window: 2000..<46_000, low: 180, high: 260)
    }

    func testRateIsClampedToItsRange() throws {
        let kernel = try VarispeedKernel(channelCount: 2)
        kernel.rate = 10
        XCTAssertEqual(kernel.rate, 4)
        kernel.rate = 0.01
        XCTAssertEqual(kernel.rate, 0.25)
    }
}
