import Effects
import Foundation

/// Test signals and measurements shared by the effect tests.
enum Signals {
    static let sampleRate = 48_000.0

    /// `seconds` of a sine at `frequency` Hz and peak `amplitude`.
    static func sine(frequency: Double, seconds: Double, amplitude: Float = 0.5) -> [Float] {
        (0..<Int(seconds * sampleRate)).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / sampleRate)) }
    }

    /// A unit impulse followed by silence, `frames` long.
    static func impulse(frames: Int) -> [Float] {
        var samples = [Float](repeating: 0, count: frames)
        samples[0] = 1
        return samples
    }

    /// Runs `channels` through `kernel` in place, in blocks of `blockSize` frames.
    static func process(_ kernel: some EffectKernel, _ channels: inout [[Float]], blockSize: Int = 512) {
        let frameCount = channels[0].count
        let pointers = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: channels.count)
        defer { pointers.deallocate() }
        let storage = channels.map { samples -> UnsafeMutablePointer<Float> in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: samples.count)
            pointer.initialize(from: samples, count: samples.count)
            return pointer
        }
        defer { storage.forEach { $0.deallocate() } }
        var start = 0
        while start < frameCount {
            let count = min(blockSize, frameCount - start)
            for (index, pointer) in storage.enumerated() { pointers[index] = pointer + start }
            kernel.process(pointers, frameCount: count)
            start += count
        }
        for index in channels.indices {
            channels[index] = Array(UnsafeBufferPointer(start: storage[index], count: frameCount))
        }
    }

    /// One mono channel through `kernel` (prepared here at `sampleRate`).
    static func processMono(_ kernel: some EffectKernel, _ samples: [Float]) -> [Float] {
        kernel.prepare(sampleRate: sampleRate, channelCount: 1)
        var channels = [samples]
        process(kernel, &channels)
        return channels[0]
    }

    /// The amplitude of the `frequency` component of `samples[range]` (single-bin DFT).
    static func amplitude(of samples: [Float], at frequency: Double, in range: Range<Int>) -> Double {
        var re = 0.0, im = 0.0
        for n in range {
            let phase = 2 * Double.pi * frequency * Double(n) / sampleRate
            re += Double(samples[n]) * cos(phase)
            im += Double(samples[n]) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(range.count)
    }

    /// Frequency of the strongest component between `low` and `high` Hz, by a fine DFT scan.
    static func dominantFrequency(of samples: [Float], low: Double, high: Double, step: Double = 0.25) -> Double {
        let range = samples.indices
        var best = low, bestAmplitude = 0.0
        var frequency = low
        while frequency <= high {
            let a = amplitude(of: samples, at: frequency, in: range)
            if a > bestAmplitude { (best, bestAmplitude) = (frequency, a) }
            frequency += step
        }
        return best
    }

    /// RT60 of an impulse response: Schroeder backward integration, a least-squares line through the decay
    /// curve from −5 to −35 dB, extrapolated to −60 dB.
    static func reverberationTime(impulseResponse: [Float]) -> Double {
        var energy = [Double](repeating: 0, count: impulseResponse.count)
        var sum = 0.0
        for n in stride(from: impulseResponse.count - 1, through: 0, by: -1) {
            sum += Double(impulseResponse[n]) * Double(impulseResponse[n])
            energy[n] = sum
        }
        let total = energy[0]
        var xs: [Double] = [], ys: [Double] = []
        for (n, e) in energy.enumerated() {
            let level = 10 * log10(e / total)
            if level <= -5 && level >= -35 { xs.append(Double(n) / sampleRate); ys.append(level) }
        }
        let meanX = xs.reduce(0, +) / Double(xs.count), meanY = ys.reduce(0, +) / Double(ys.count)
        let covariance = zip(xs, ys).map { ($0 - meanX) * ($1 - meanY) }.reduce(0, +)
        let variance = xs.map { ($0 - meanX) * ($0 - meanX) }.reduce(0, +)
        let slope = covariance / variance  // dB per second (negative)
        return -60 / slope
    }
}
