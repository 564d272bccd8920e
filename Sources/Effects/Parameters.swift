import Atomics
import AudioGraph

/// A counter bumped after every parameter change, so the render thread recomputes derived values
/// (filter coefficients, delay lengths) only when something changed.
final class ParameterGeneration: Sendable {
    private let counter = ManagedAtomic<UInt64>(1)

    /// Marks the parameters as changed; call after storing the new values.
    func bump() { counter.wrappingIncrement(ordering: .releasing) }

    /// True (and updates `seen`) when parameters changed since the generation in `seen`.
    func changed(since seen: inout UInt64) -> Bool {
        let current = counter.load(ordering: .acquiring)
        if current == seen { return false }
        seen = current
        return true
    }
}

/// A Float parameter with a legal range: stores clamped values and bumps its kernel's generation.
final class FloatParameter: Sendable {
    let range: ClosedRange<Float>
    private let storage: AtomicFloat
    private let generation: ParameterGeneration

    init(_ value: Float, range: ClosedRange<Float>, generation: ParameterGeneration) {
        self.range = range
        self.generation = generation
        storage = AtomicFloat(min(max(value, range.lowerBound), range.upperBound))
    }

    var value: Float {
        get { storage.value }
        set {
            storage.value = newValue.isNaN ? range.lowerBound : min(max(newValue, range.lowerBound), range.upperBound)
            generation.bump()
        }
    }
}

/// A small integer parameter (an enum's raw value, a flag) with the same lock-free semantics as FloatParameter.
final class IntParameter: Sendable {
    private let storage: ManagedAtomic<Int>
    private let generation: ParameterGeneration

    init(_ value: Int, generation: ParameterGeneration) {
        self.generation = generation
        storage = ManagedAtomic(value)
    }

    var value: Int {
        get { storage.load(ordering: .relaxed) }
        set {
            storage.store(newValue, ordering: .relaxed)
            generation.bump()
        }
    }
}

/// Fixed-size storage for render-thread state, allocated once in `prepare` and zeroed in `reset`.
/// Freed when the owner lets go of it; never resized while rendering.
final class SampleBuffer {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    init(count: Int) {
        self.count = max(count, 1)
        pointer = .allocate(capacity: self.count)
        pointer.initialize(repeating: 0, count: self.count)
    }

    func zero() { pointer.update(repeating: 0, count: count) }

    deinit { pointer.deallocate() }
}
