import Foundation

/// The unit conversions and curves of the engine, as FluidSynth 2.3 computes them (fluid_conv.c). Its
/// tables are made once (`shared`) and never freed; an engine holds a copy of this value, so the render
/// thread reads them through the engine, without a lazily made global's check at every use.
// Why unchecked: the tables are written once, in init, and only read after.
struct SynthMath: @unchecked Sendable {
    /// The tables, made at the first use.
    static let shared = SynthMath()

    /// 10^(-i/200) for whole centibels 0...1440 (FluidSynth's cb2amp table).
    let amplitudeTable: UnsafeMutablePointer<Float>
    /// 6.875 Hz × 2^(i/1200) for the cents within an octave (fluid_ct2hz_tab).
    let centsTable: UnsafeMutablePointer<Float>
    /// The concave and convex curves of the modulators (128 points, FluidSynth's "as on SF2.01 page 73").
    let concaveTable: UnsafeMutablePointer<Float>
    let convexTable: UnsafeMutablePointer<Float>

    private init() {
        amplitudeTable = .allocate(capacity: 1441)
        for i in 0..<1441 { (amplitudeTable + i).initialize(to: Float(pow(10.0, Double(i) / -200.0))) }
        centsTable = .allocate(capacity: 1200)
        for i in 0..<1200 { (centsTable + i).initialize(to: Float(6.875 * pow(2.0, Double(i) / 1200))) }
        concaveTable = .allocate(capacity: 128)
        concaveTable.initialize(repeating: 0, count: 128)
        convexTable = .allocate(capacity: 128)
        convexTable.initialize(repeating: 0, count: 128)
        concaveTable[127] = 1
        convexTable[127] = 1
        for i in 1..<127 {
            concaveTable[127 - i] = Float(-(200.0 * 2 / 960) * log10(Double(i) / 127))
            convexTable[i] = Float(1 + (200.0 * 2 / 960) * log10(Double(i) / 127))
        }
    }

    /// Centibels of attenuation to amplitude, FluidSynth's table: whole centibels, 0 and below is 1,
    /// 1441 and above is silence.
    @inline(__always) func cb2amp(_ cb: Float) -> Float {
        if cb <= 0 { return 1 }
        if cb >= 1441 { return 0 }
        return amplitudeTable[Int(cb)]
    }

    /// Absolute cents to Hz (8.176 Hz at 0) as FluidSynth 2.3's fluid_ct2hz_real: whole cents from its
    /// table at and above 0, the exact curve below.
    @inline(__always) func ct2hzReal(_ cents: Float) -> Float {
        if cents < 0 { return Float(8.1757989156437073 * pow(2.0, Double(cents) / 1200)) }
        let whole = Int(min(cents, 38000)) + 300
        return Float(1 << (whole / 1200)) * centsTable[whole % 1200]
    }

    /// Absolute cents to Hz for the filter: cents limited to 1500...13500.
    @inline(__always) func ct2hz(_ cents: Float) -> Float { ct2hzReal(min(max(cents, 1500), 13500)) }

    /// Timecents to seconds for delays (-32768 and below is 0; -12000...5000).
    static func tc2secDelay(_ tc: Float) -> Float {
        if tc <= -32768 { return 0 }
        return exp2(min(max(tc, -12000), 5000) / 1200)
    }

    /// Timecents to seconds for attacks and releases (-32768 and below is 0; -12000...8000).
    static func tc2secAttack(_ tc: Float) -> Float {
        if tc <= -32768 { return 0 }
        return exp2(min(max(tc, -12000), 8000) / 1200)
    }

    /// FluidSynth's pan law: a quarter sine over -500...500 (tenths of a percent), truncated to whole steps.
    static func pan(_ c: Float, left: Bool) -> Float {
        let c = left ? -c : c
        if c <= -500 { return 0 }
        if c >= 500 { return 1 }
        return Float(sin(Double(Int(c) + 500) * Double.pi / 2 / 1000))
    }

    @inline(__always) func curve(_ table: UnsafeMutablePointer<Float>, _ value: Float) -> Float {
        if value < 0 { return 0 }
        let index = Int(value)
        if index >= 127 { return table[127] }
        return table[index] + (table[index + 1] - table[index]) * (value - Float(index))
    }
    @inline(__always) func concave(_ value: Float) -> Float { curve(concaveTable, value) }
    @inline(__always) func convex(_ value: Float) -> Float { curve(convexTable, value) }

    /// A modulator source value (already read from the channel) mapped by its curve, direction and polarity
    /// (`sfModSrcOper` bits 8...15), over `range` (128 for 7-bit values, 16384 for the pitch wheel).
    func transform(_ value: Float, source: UInt16, range: Float) -> Float {
        let norm = value / range
        let negative = source & 0x100 != 0, bipolar = source & 0x200 != 0
        switch source >> 10 {
        case 0:  // linear
            if bipolar { return negative ? 1 - 2 * norm : -1 + 2 * norm }
            return negative ? 1 - norm : norm
        case 1, 2:  // concave, convex
            let table = source >> 10 == 1 ? concaveTable : convexTable
            if bipolar {
                let magnitude = norm > 0.5 ? curve(table, 127 * 2 * (norm - 0.5)) : -curve(table, 127 * 2 * (0.5 - norm))
                return negative ? -magnitude : magnitude
            }
            return negative ? curve(table, 127 * (1 - norm)) : curve(table, 127 * norm)
        case 3:  // switch
            let on = norm >= 0.5
            if bipolar { return (on != negative) ? 1 : -1 }
            return (on != negative) ? 1 : 0
        default:
            return 0
        }
    }
}

/// One DAHDSR envelope as FluidSynth runs it: seven sections (delay, attack, hold, decay, sustain,
/// release, finished), each a count of 64-sample blocks and a linear step `value = coeff × value + incr`
/// bounded by min and max. The volume envelope's value maps to amplitude linearly in the attack and
/// as 96 dB × (1 − value) after it (so decay and release are exponential in amplitude).
struct Envelope {
    static let delay = 0, attack = 1, hold = 2, decay = 3, sustain = 4, release = 5, finished = 6
    var counts = SIMD8<Int32>(repeating: Int32.max)
    var coeffs = SIMD8<Float>(repeating: 1)
    var increments = SIMD8<Float>(repeating: 0)
    var minimums = SIMD8<Float>(repeating: -1)
    var maximums = SIMD8<Float>(repeating: 2)
    var section = 0
    var count: Int32 = 0
    var value: Float = 0

    mutating func set(_ section: Int, count: Int, coeff: Float, increment: Float, min: Float, max: Float) {
        counts[section] = Int32(clamping: count); coeffs[section] = coeff; increments[section] = increment
        minimums[section] = min; maximums[section] = max
    }

    /// One block's step (fluid_adsr_env_calc).
    @inline(__always) mutating func step() {
        while section < Envelope.finished && count >= counts[section] {
            if section == Envelope.decay { value = minimums[section] * coeffs[section] }
            section += 1
            count = 0
        }
        if section >= Envelope.finished { return }
        let x = coeffs[section] * value + increments[section]
        if x < minimums[section] {
            value = minimums[section]; section += 1; count = 0
        } else if x > maximums[section] {
            value = maximums[section]; section += 1; count = 0
        } else {
            value = x; count += 1
        }
    }

    mutating func enter(_ section: Int) { self.section = section; count = 0 }
}

/// A triangle LFO stepped once per 64-sample block from 0, after its delay (fluid_lfo_calc).
struct LFO {
    var value: Float = 0
    var increment: Float = 0
    var delay = 0

    @inline(__always) mutating func step(ticks: Int) {
        if ticks < delay { return }
        value += increment
        if value > 1 { increment = -increment; value = 2 - value } else if value < -1 { increment = -increment; value = -2 - value }
    }
}

/// FluidSynth's resonant low-pass: a biquad whose coefficients glide over one block when the cutoff
/// moves, with Q from centibels (minus 3.01 dB, so 0 is Butterworth) and gain 1/√Q. The control side's
/// half: the coefficients at the next block's start and their glide; the history is the sample side's.
struct LowPassFilter {
    var qLinear: Float = 0
    var gain: Float = 1
    var lastFres: Float = -1
    var a1: Float = 0, a2: Float = 0, b02: Float = 0, b1: Float = 0
    var a1Incr: Float = 0, a2Incr: Float = 0, b02Incr: Float = 0, b1Incr: Float = 0
    var incrCount = 0
    var compensate = false
    var startup = true
    /// The coefficients the glide ends on.
    var targetA1: Float = 0, targetA2: Float = 0, targetB02: Float = 0, targetB1: Float = 0

    mutating func setQ(centibels: Float) {
        let dB = min(max(centibels / 10, 0), 96) - 3.01
        qLinear = pow(10, dB / 20)
        gain = 1 / qLinear.squareRoot()
        lastFres = -1
    }

    /// New coefficients when the cutoff `cents` (modulation included) moved (fluid_iir_filter_calc).
    mutating func update(cents: Float, sampleRate: Float, math: SynthMath) {
        var fres = math.ct2hz(cents)
        if fres > 0.45 * sampleRate { fres = 0.45 * sampleRate } else if fres < 5 { fres = 5 }
        guard abs(fres - lastFres) > 0.01 else { return }
        lastFres = fres
        let omega = 2 * Float.pi * (fres / sampleRate)
        let sinCoeff = sin(omega), cosCoeff = cos(omega)
        let alpha = sinCoeff / (2 * qLinear)
        let a0Inverse = 1 / (1 + alpha)
        let newA1 = -2 * cosCoeff * a0Inverse, newA2 = (1 - alpha) * a0Inverse
        let newB1 = (1 - cosCoeff) * a0Inverse * gain, newB02 = newB1 * 0.5
        compensate = false
        if startup {
            a1 = newA1; a2 = newA2; b02 = newB02; b1 = newB1; incrCount = 0; startup = false
        } else {
            let steps: Float = 64
            a1Incr = (newA1 - a1) / steps; a2Incr = (newA2 - a2) / steps
            b02Incr = (newB02 - b02) / steps; b1Incr = (newB1 - b1) / steps
            if abs(b02) > 0.0001 {
                let quota = newB02 / b02
                compensate = quota < 0.5 || quota > 2
            }
            incrCount = 64
            targetA1 = newA1; targetA2 = newA2; targetB02 = newB02; targetB1 = newB1
        }
    }

    /// After a block: the coefficients are where the glide ended.
    mutating func endGlide() {
        guard incrCount > 0 else { return }
        a1 = targetA1; a2 = targetA2; b02 = targetB02; b1 = targetB1
        incrCount = 0
    }
}
