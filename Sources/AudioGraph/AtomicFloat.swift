import Atomics

/// A Float that one thread may set while the render thread reads it, without locks (a parameter of a
/// node: volume, pan, an effect's mix). Copies share the same storage.
public struct AtomicFloat: Sendable {
    private let bits: ManagedAtomic<UInt32>

    public init(_ value: Float) { bits = ManagedAtomic(value.bitPattern) }

    public var value: Float {
        get { Float(bitPattern: bits.load(ordering: .relaxed)) }
        nonmutating set { bits.store(newValue.bitPattern, ordering: .relaxed) }
    }
}
