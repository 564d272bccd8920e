#if canImport(Glibc)
import Glibc
#endif
import RealtimeSupport

/// Creates the dedicated render thread: SCHED_FIFO when the system allows it (root, CAP_SYS_NICE or
/// an rtprio limit), otherwise the normal policy, silently; the caller learns which one it got.
enum RenderThread {
    /// Real-time priority asked for: above ordinary real-time helpers, below the kernel's own threads.
    static let realtimePriority: Int32 = min(70, RealtimeScheduling.maximumPriority)

    /// Starts a joinable thread running `body` once.
    static func start(_ body: @escaping () -> Void) throws(AudioOutputError) -> (pthread_t, RenderThreadScheduling) {
        var realtimeAttributes = pthread_attr_t()
        pthread_attr_init(&realtimeAttributes)
        defer { pthread_attr_destroy(&realtimeAttributes) }
        pthread_attr_setinheritsched(&realtimeAttributes, Int32(PTHREAD_EXPLICIT_SCHED))
        pthread_attr_setschedpolicy(&realtimeAttributes, SCHED_FIFO)
        var parameters = sched_param(sched_priority: realtimePriority)
        pthread_attr_setschedparam(&realtimeAttributes, &parameters)

        let refusal: CreationFailure
        switch create(body, attributes: &realtimeAttributes) {
        case .success(let thread): return (thread, .realtime(priority: realtimePriority))
        case .failure(let failure): refusal = failure
        }
        var normalAttributes = pthread_attr_t()
        pthread_attr_init(&normalAttributes)
        defer { pthread_attr_destroy(&normalAttributes) }
        switch create(body, attributes: &normalAttributes) {
        case .success(let thread):
            return (thread, .normal(reason: String(cString: strerror(refusal.code))))
        case .failure(let failure):
            throw .threadCreationFailed(code: failure.code)
        }
    }

    private struct CreationFailure: Error { let code: Int32 }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private static func create(_ body: @escaping () -> Void,
                               attributes: inout pthread_attr_t) -> Result<pthread_t, CreationFailure> {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return .failure(CreationFailure(code: result))
        }
        return .success(thread)
    }
}
