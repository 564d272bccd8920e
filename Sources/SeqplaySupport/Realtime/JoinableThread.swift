#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX thread started to run one closure and joined by its owner (`pthread_join`): the render
/// thread, the sequencer's input thread.
package enum JoinableThread {
    /// `pthread_create` refused the thread: its error code.
    package struct CreationError: Error {
        package let code: Int32
    }

    /// Starts a joinable thread, made with `attributes` (nil: the defaults), that runs `body` once.
    /// `body` is kept alive until it returns.
    package static func start(attributes: UnsafePointer<pthread_attr_t>? = nil,
                              _ body: @escaping () -> Void) throws(CreationError) -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, attributes, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw CreationError(code: result)
        }
        return thread
    }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}
