#if canImport(Glibc)
import Glibc
#endif
import SeqplaySupport

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

        let refusal: Int32
        do throws(JoinableThread.CreationError) {
            return (try JoinableThread.start(attributes: &realtimeAttributes, body), .realtime(priority: realtimePriority))
        } catch {
            refusal = error.code
        }
        var normalAttributes = pthread_attr_t()
        pthread_attr_init(&normalAttributes)
        defer { pthread_attr_destroy(&normalAttributes) }
        do throws(JoinableThread.CreationError) {
            return (try JoinableThread.start(attributes: &normalAttributes, body), .normal(reason: String(cString: strerror(refusal))))
        } catch {
            throw .threadCreationFailed(code: error.code)
        }
    }
}
