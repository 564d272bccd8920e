/// A fixed-capacity circular delay of `length` samples over storage owned elsewhere (a `SampleBuffer`).
/// Reading `output` then calling `push` gives the sample pushed `length` calls earlier.
struct DelayLine {
    let storage: UnsafeMutablePointer<Float>
    let capacity: Int
    private(set) var length: Int
    private var index = 0

    init(buffer: SampleBuffer, length: Int) {
        storage = buffer.pointer
        capacity = buffer.count
        self.length = min(max(length, 1), capacity)
    }

    /// The sample pushed `length` pushes ago.
    var output: Float { storage[index] }

    /// Stores `sample` and advances.
    mutating func push(_ sample: Float) {
        storage[index] = sample
        index += 1
        if index >= length { index = 0 }
    }

    /// Changes the delay (kept within 1...capacity) without clearing the stored samples.
    mutating func setLength(_ newLength: Int) {
        length = min(max(newLength, 1), capacity)
        if index >= length { index = 0 }
    }
}

/// A Schroeder all-pass diffuser: flat magnitude, smeared phase.
struct AllPassFilter {
    var line: DelayLine
    var gain: Float

    mutating func process(_ input: Float) -> Float {
        let delayed = line.output
        let w = input + gain * delayed
        line.push(w)
        return delayed - gain * w
    }
}
