import Foundation

/// FluidSynth 2.3's chorus (fluid_chorus.c), on the engine's chorus bus: one delay line of 2048 samples read
/// by up to 99 taps ("voices"), each moved around the line's centre by its own sine or triangle (the same
/// speed, phases spread evenly over the period; updated every 5 samples, or 4 for the deepest settings)
/// and read through a first-order all-pass interpolator. The even taps make the left input of the stereo
/// unit, the odd ones the right (the last one counted twice when their number is odd and above 2), and the
/// unit mixes them crosswise at its full width into the output.
///
/// Its parameters are FluidSynth's: voices 0...99, level 0...10 (above 10: 0.1, as there), speed 0.1...5 Hz,
/// depth in ms (peak to peak, at most the line), waveform. The taps' sines run in double precision, as in
/// FluidSynth 2.3.7 (its issue 1331: a sine in single precision drifts at low speeds).
///
/// All memory is allocated at init; `addChorus` and `set` allocate nothing and take no lock.
final class EngineChorus {
    static let maximumVoices = 99
    /// The line's length, and the samples added for the interpolation.
    private static let lineSamples = 2048, size = lineSamples + 1
    /// The modulation depth (half, in samples) up to which the taps move every 5 samples; at the line's
    /// half they move every 4.
    private static let lowDepth = 176, highDepth = lineSamples / 2
    private static let lowRate = 5, highRate = 4
    /// The stereo unit's width (fixed at FluidSynth's maximum) and how much it scales the level down.
    private static let width = 10.0, widthScale = 0.2

    /// One tap: where it reads, its sine (y(n) = a1·y(n-1) − y(n-2)) and triangle, and its interpolator.
    private struct Tap {
        var readIndex = 0
        var sineA1 = 0.0, sine1 = 0.0, sine2 = 0.0, sineReset = 0.0
        var triangle = 0.0, triangleStep = 0.0
        var fraction: Float = 0
        var interpolated: Float = 0
    }

    private let line: UnsafeMutablePointer<Float>
    private let taps: UnsafeMutablePointer<Tap>
    private let sampleRate: Double
    private var writeIndex = 0
    /// Where the taps are centred, how far they move (half the depth, in samples), how often, and samples since.
    private var centre = 0.0
    private var depth = 0
    private var updateRate = EngineChorus.lowRate
    private var sinceUpdate = EngineChorus.lowRate
    private var voices = 0, level = 0.0, speed = 0.0, depthMs = 0.0
    private var waveform = SamplerSettings.Chorus.Waveform.sine
    /// The stereo unit's direct and crossed gains.
    private var wet1: Float = 0, wet2: Float = 0

    /// A chorus at `sampleRate`, its parameters `parameters` (every field given; the waveform nil is a sine).
    init(sampleRate: Double, parameters: SamplerSettings.Chorus) {
        self.sampleRate = sampleRate
        line = .allocate(capacity: Self.size)
        taps = .allocate(capacity: Self.maximumVoices)
        taps.initialize(repeating: Tap(), count: Self.maximumVoices)
        clear()
        centre = Double(Self.size - 1)
        set(parameters)
    }

    deinit {
        line.deallocate()
        taps.deinitialize(count: Self.maximumVoices)
        taps.deallocate()
    }

    /// Empties the line and the taps' interpolators, as a MIDI system reset does (fluid_chorus_reset).
    func clear() {
        line.update(repeating: 0, count: Self.size)
        for index in 0..<Self.maximumVoices {
            taps[index].fraction = 0
            taps[index].interpolated = 0
        }
    }

    /// Sets the voices, level, speed, depth and waveform `parameters` gives (those nil stay), limited as
    /// fluid_chorus_set limits them, and starts the taps again from their phases.
    func set(_ parameters: SamplerSettings.Chorus) {
        if let value = parameters.voices { voices = min(max(value, 0), Self.maximumVoices) }
        if let value = parameters.level { level = value < 0 ? 0 : value > 10 ? 0.1 : value }
        if let value = parameters.speed { speed = min(max(value, 0.1), 5) }
        if let value = parameters.depth { depthMs = max(value, 0) }
        if let value = parameters.type { waveform = value }
        startTaps()
        var wet = level
        if voices > 1 {
            wet /= 1 + Self.width * Self.widthScale
            wet1 = Float(wet * (Self.width / 2 + 0.5))
            wet2 = Float(wet * ((1 - Self.width) / 2))
        } else {
            wet1 = Float(wet)
            wet2 = Float(-wet)
        }
    }

    /// The depth in samples, the update rate, the centre (that far behind the write position) and each
    /// tap's sine and triangle at its phase (update_parameters_from_sample_rate, set_center_position).
    private func startTaps() {
        var samples = Int(depthMs / 1000 * sampleRate)
        if samples > Self.lineSamples {
            samples = Self.lineSamples
            depthMs = Double(samples * 1000) / sampleRate
        }
        depth = samples / 2
        updateRate = Self.lowRate
        if depth > Self.lowDepth { updateRate += (depth - Self.lowDepth) * (Self.highRate - Self.lowRate) / (Self.highDepth - Self.lowDepth) }
        var start = writeIndex - (1 + depth)
        if start < 0 { start += Self.size }
        centre = Double(start)
        sinceUpdate = updateRate
        // FluidSynth hands the frequency and rate over as floats.
        let frequency = Double(Float(speed * Double(updateRate))), rate = Double(Float(sampleRate))
        let w = 2 * Double.pi * frequency / rate
        let period = rate / frequency
        for index in 0..<voices {
            let tap = taps + index
            let phase = Double(Float(360 / Float(voices)) * Float(index))
            let a = 2 * Double.pi / 360 * phase
            tap.pointee.sineA1 = 2 * cos(w)
            tap.pointee.sine2 = sin(a - w)
            tap.pointee.sine1 = sin(a)
            tap.pointee.sineReset = sin(Double.pi / 2 - w)
            tap.pointee.triangleStep = 4 / period
            tap.pointee.triangle = period * Double(Float(index) / Float(voices)) * tap.pointee.triangleStep
            if tap.pointee.triangle >= 1 && tap.pointee.triangle < 3 {
                tap.pointee.triangle = 2 - tap.pointee.triangle
                tap.pointee.triangleStep = -tap.pointee.triangleStep
            } else if tap.pointee.triangle >= 3 {
                tap.pointee.triangle -= 4
            }
        }
    }

    /// The tap's waveform's next value (get_mod_sinus, get_mod_triang).
    private func nextModulation(_ tap: UnsafeMutablePointer<Tap>) -> Double {
        if waveform == .triangle {
            tap.pointee.triangle += tap.pointee.triangleStep
            if tap.pointee.triangle >= 1 { tap.pointee.triangleStep = -tap.pointee.triangleStep; return 1 }
            if tap.pointee.triangle <= -1 { tap.pointee.triangleStep = -tap.pointee.triangleStep; return -1 }
            return tap.pointee.triangle
        }
        var value = tap.pointee.sineA1 * tap.pointee.sine1 - tap.pointee.sine2
        tap.pointee.sine2 = tap.pointee.sine1
        if value >= 1 { value = 1; tap.pointee.sine2 = tap.pointee.sineReset }
        if value <= -1 { value = -1; tap.pointee.sine2 = -tap.pointee.sineReset }
        tap.pointee.sine1 = value
        return value
    }

    /// The tap's next sample: moved first when an update is due (get_mod_delay).
    private func read(_ tap: UnsafeMutablePointer<Tap>) -> Float {
        if sinceUpdate >= updateRate {
            let position = centre + nextModulation(tap) * Double(depth)
            let whole = position >= 0 ? Int(position) : Int(position - 1)
            tap.pointee.readIndex = whole >= 0 ? (whole >= Self.size ? whole - Self.size : whole) : whole + Self.size
            tap.pointee.fraction = Float(position - Double(whole))
        }
        var index = tap.pointee.readIndex
        var value = line[index]
        index += 1
        if index >= Self.size { index -= Self.size }
        tap.pointee.readIndex = index
        value += tap.pointee.fraction * (line[index] - tap.pointee.interpolated)
        tap.pointee.interpolated = value
        return value
    }

    /// Adds the chorus of the bus `input` (`count` frames) into `left` and `right` (fluid_chorus_processmix).
    func addChorus(of input: UnsafePointer<Float>, to left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, count: Int) {
        for frame in 0..<count {
            var even: Float = 0, odd: Float = 0, last: Float = 0
            sinceUpdate += 1
            for index in 0..<voices {
                last = read(taps + index)
                if index & 1 == 0 { even += last } else { odd += last }
            }
            if sinceUpdate >= updateRate {
                sinceUpdate = 0
                centre += Double(updateRate)
                if centre >= Double(Self.size) { centre -= Double(Self.size) }
            }
            if voices & 1 == 1 && voices > 2 { odd += last }
            line[writeIndex] = input[frame]
            writeIndex += 1
            if writeIndex >= Self.size { writeIndex = 0 }
            left[frame] += even * wet1 + odd * wet2
            right[frame] += odd * wet1 + even * wet2
        }
    }
}
