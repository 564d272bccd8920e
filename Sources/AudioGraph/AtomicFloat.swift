import Atomics

/// A Float that one thread may set while the render thread reads it, without locks.
struct AtomicFloat: Sendable {
    private let bits: ManagedAtomic<UInt32>

    init(_ value: Float) { bits = ManagedAtomic(value.bitPattern) }

    var value: Float {
        get { Float(bitPattern: bits.load(ordering: .relaxed)) }
        nonmutating set { bits.store(newValue.bitPattern, ordering: .relaxed) }
    }
}
