import Foundation

/// FluidSynth 2.3's reverb (fluid_rev.c), on the engine's reverb bus: a feedback delay network of eight
/// delay lines after a tone-correcting input filter. Each line is read through a tap that a sine moves
/// ±4 samples at 1 Hz (updated every 50 samples, first-order all-pass interpolated) and a damping
/// low-pass; the lines feed each other through a Householder matrix (each line's input is the next
/// line's output plus the input, minus 2/8 of all the outputs), and their outputs, summed with
/// alternating signs, are the two channels, mixed by the width. The input is scaled by 0.1 and carries
/// a 1e-8 offset against denormals, taken off the output, as there.
///
/// Its parameters are FluidSynth's: the room size sets the low-frequency decay time (0.7 s at 0 to
/// 12.5 s at 1, on Freeverb's curve), the damping shortens it towards high frequencies, the level and
/// width set the two output gains. The lines have the lengths libfluidsynth gives them: sized for the
/// highest sample rate its settings allow (96 kHz), whatever rate is played.
///
/// All memory is allocated at init; `addReverb` and `set` allocate nothing and take no lock.
final class EngineReverb {
    static let lineCount = 8
    /// The lines' nominal lengths at 44.1 kHz (FluidSynth's DELAY_L0...L7).
    private static let nominalLengths: [Double] = [601, 691, 773, 839, 919, 997, 1061, 1129]
    /// Modulation: how often the taps move (samples) and the sine's frequency (Hz).
    private static let modulationRate = 50, modulationFrequency = 1.0
    /// The range of the low-frequency decay time (s) the room size spans.
    private static let shortestDecay = 0.7, longestDecay = 12.5
    /// The offset against denormals, the input gain and the output scale.
    private static let offset: Float = 1e-8, inputGain: Float = 0.1, wetScale = 5.0, widthScale = 0.2
    /// The highest sample rate FluidSynth's settings take: it sizes the lines for it.
    private static let highestSampleRate = 96_000.0

    /// One line: its points and positions (indexes into its `size` points), its tap's sine, interpolator
    /// and damping low-pass (y = b0·x − a1·y(n-1)), and its output's gain into each channel.
    private struct Line {
        var points: UnsafeMutablePointer<Float>
        var size: Int
        var writeIndex = 0
        var readIndex = 0
        /// Where the tap is centred (moves by `modulationRate` with every update).
        var centre = 0.0
        /// The tap's sine, y(n) = a1·y(n-1) − y(n-2) (FluidSynth's sinus_modulator), in double as there.
        var sine1 = 0.0, sine2 = 0.0
        /// The tap's fractional position and the all-pass interpolator's last output.
        var fraction: Float = 0, interpolated: Float = 0
        var dampingB0: Float = 0, dampingA1: Float = 0, damped: Float = 0
        var leftGain: Float = 0, rightGain: Float = 0
    }

    private let lines: UnsafeMutablePointer<Line>
    /// Each line's damped output of the current sample, before the lines are fed.
    private let outputs: UnsafeMutablePointer<Float>
    private let storage: UnsafeMutablePointer<Float>
    private let storageCount: Int
    private let sampleRate: Double
    /// How far the sine moves the taps, in samples.
    private let depth: Int
    /// The sines' coefficient (the same for every line) and the value they restart from at a peak.
    private var sineA1 = 0.0, sineReset = 0.0
    /// Samples since the taps moved.
    private var sinceUpdate = 0
    /// The tone corrector (y = b1·x − b2·x(n-1)).
    private var toneB1: Float = 1, toneB2: Float = 0, toneLast: Float = 0
    /// The second wet gain over the first (the first is in the lines' gains).
    private var crossGain: Float = 0
    /// The parameters as last set (limited as FluidSynth limits them).
    private var roomSize = 0.0, damping = 0.0, width = 0.0, level = 0.0

    /// A reverb at `sampleRate`, its parameters `parameters` (every field given).
    init(sampleRate: Double, parameters: SamplerSettings.Reverb) {
        self.sampleRate = sampleRate
        // new_fluid_revmodel(96000, rate): lengths and depth for the highest rate; the depth used, for the rate played.
        let sizingRate = max(sampleRate, Self.highestSampleRate)
        let sizingDepth = 4 * sizingRate / 44_100, lengthFactor = 2 * sizingRate / 44_100
        depth = Int(4 * max(sampleRate / 44_100, 1))
        let sizes = Self.nominalLengths.map { Int(Double(Int($0 * lengthFactor)) + sizingDepth + 1) }
        storageCount = sizes.reduce(0, +)
        storage = .allocate(capacity: storageCount)
        lines = .allocate(capacity: Self.lineCount)
        outputs = .allocate(capacity: Self.lineCount)
        outputs.initialize(repeating: 0, count: Self.lineCount)
        var start = 0
        for (index, size) in sizes.enumerated() {
            (lines + index).initialize(to: Line(points: storage + start, size: size))
            start += size
        }
        startModulation()
        set(parameters)
    }

    deinit {
        lines.deinitialize(count: Self.lineCount)
        lines.deallocate()
        outputs.deallocate()
        storage.deallocate()
    }

    /// Fills the lines with the offset, and starts the taps and their sines (initialize_mod_delay_lines).
    private func startModulation() {
        clear()
        let w = 2 * Double.pi * Self.modulationFrequency * Double(Self.modulationRate) / sampleRate
        sineA1 = 2 * cos(w)
        sineReset = sin(Double.pi / 2 - w)
        for index in 0..<Self.lineCount {
            let phase = 2 * Double.pi / 360 * (360 / Double(Self.lineCount) * Double(index))
            lines[index].writeIndex = 0
            lines[index].readIndex = 1
            lines[index].centre = Double(1 + depth)
            lines[index].sine2 = sin(phase - w)
            lines[index].sine1 = sin(phase)
            lines[index].fraction = 0
            lines[index].interpolated = 0
            lines[index].damped = 0
        }
        sinceUpdate = Self.modulationRate
    }

    /// Empties the lines (to the offset), as a MIDI system reset does (fluid_revmodel_reset); the filters keep their state.
    func clear() {
        storage.update(repeating: Self.offset, count: storageCount)
    }

    /// Sets the room size, damping, width and level `parameters` gives (those nil stay), as fluid_revmodel_set:
    /// room size, damping and level limited to 0...1.
    func set(_ parameters: SamplerSettings.Reverb) {
        if let value = parameters.roomSize { roomSize = min(max(value, 0), 1) }
        if let value = parameters.damping { damping = min(max(value, 0), 1) }
        if let value = parameters.width { width = value }
        if let value = parameters.level { level = min(max(value, 0), 1) }
        updateGains()
        updateDecay()
    }

    /// The output gains from the level and width (fluid_revmodel_update, update_stereo_coefficient).
    private func updateGains() {
        let wet = level * Self.wetScale / (1 + width * Self.widthScale)
        let wet1 = wet * (width / 2 + 0.5)
        var wet2 = wet * ((1 - width) / 2)
        for index in 0..<Self.lineCount {
            lines[index].leftGain = Float(index & 1 == 0 ? wet1 : -wet1)
            lines[index].rightGain = Float(index & 2 == 0 ? wet1 : -wet1)
        }
        if wet1 > 0 { wet2 /= wet1 }
        crossGain = Float(wet2)
    }

    /// The lines' damping filters and the tone corrector from the room size and damping (update_rev_time_damping).
    private func updateDecay() {
        let period = 1 / sampleRate
        func length(_ index: Int) -> Double { Double(lines[index].size - depth - 1) }
        let longest = length(Self.lineCount - 1)
        let giMax = pow(10, -3 * longest / Self.longestDecay * period), giMin = pow(10, -3 * longest / Self.shortestDecay * period)
        let gi = giMin + roomSize * (giMax - giMin)
        let decayTime = -3 * M_LN10 * longest * period / log(gi)
        let alpha2 = 1 / (1 - damping / (20.0 / 80 * log(gi)))
        let alpha = alpha2.squareRoot()
        let beta = (1 - alpha) / (1 + alpha)
        toneB1 = Float(1 / (1 - beta))
        toneB2 = Float(beta / (1 - beta))
        toneLast = 0
        for index in 0..<Self.lineCount {
            let lineGain = pow(10, -3 * length(index) * period / decayTime)
            let feedback = 20.0 / 80 * log(lineGain) * (1 - 1 / alpha2)
            lines[index].dampingB0 = Float(lineGain * (1 - feedback))
            lines[index].dampingA1 = Float(-feedback)
        }
    }

    /// Moves every tap: its sine's next value around its centre, the centre on by `modulationRate` (get_mod_delay).
    private func moveTaps() {
        sinceUpdate = 0
        for index in 0..<Self.lineCount {
            let line = lines + index
            var sine = sineA1 * line.pointee.sine1 - line.pointee.sine2
            line.pointee.sine2 = line.pointee.sine1
            if sine >= 1 { sine = 1; line.pointee.sine2 = sineReset }
            if sine <= -1 { sine = -1; line.pointee.sine2 = -sineReset }
            line.pointee.sine1 = sine
            let position = line.pointee.centre + sine * Double(depth)
            let whole = position >= 0 ? Int(position) : Int(position - 1)
            line.pointee.readIndex = whole >= 0 ? (whole >= line.pointee.size ? whole - line.pointee.size : whole) : whole + line.pointee.size
            line.pointee.fraction = Float(position - Double(whole))
            line.pointee.centre += Double(Self.modulationRate)
            if line.pointee.centre >= Double(line.pointee.size) { line.pointee.centre -= Double(line.pointee.size) }
        }
    }

    /// Adds the reverb of the bus `input` (`count` frames) into `left` and `right` (fluid_revmodel_processmix).
    /// Plain loops over the eight lines: each reads its own line at its own place, and the rest is a few
    /// multiply-adds a line (eight-lane vectors gained nothing, and cost much in debug builds).
    func addReverb(of input: UnsafePointer<Float>, to left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
        for frame in 0..<count {
            let x = input[frame] * Self.inputGain + Self.offset
            let toned = x * toneB1 - toneB2 * toneLast
            toneLast = x
            sinceUpdate += 1
            if sinceUpdate >= Self.modulationRate { moveTaps() }
            var sum: Float = 0, outLeft: Float = 0, outRight: Float = 0
            for index in 0..<Self.lineCount {
                let line = lines + index
                var read = line.pointee.readIndex
                let current = line.pointee.points[read]
                read += 1
                if read >= line.pointee.size { read -= line.pointee.size }
                line.pointee.readIndex = read
                let interpolated = current + line.pointee.fraction * (line.pointee.points[read] - line.pointee.interpolated)
                line.pointee.interpolated = interpolated
                let damped = interpolated * line.pointee.dampingB0 - line.pointee.damped * line.pointee.dampingA1
                line.pointee.damped = damped
                outputs[index] = damped
                sum += damped
                outLeft += line.pointee.leftGain * damped
                outRight += line.pointee.rightGain * damped
            }
            // Each line takes the next line's output (the last takes the first's), plus the input, minus 2/8 of all.
            let feedback = sum * (-2 / Float(Self.lineCount)) + toned
            for index in 0..<Self.lineCount {
                let line = lines + index
                line.pointee.points[line.pointee.writeIndex] = outputs[(index + 1) % Self.lineCount] + feedback
                line.pointee.writeIndex += 1
                if line.pointee.writeIndex >= line.pointee.size { line.pointee.writeIndex = 0 }
            }
            outLeft -= Self.offset
            outRight -= Self.offset
            left[frame] += outLeft + outRight * crossGain
            right[frame] += outRight + outLeft * crossGain
        }
    }
}
