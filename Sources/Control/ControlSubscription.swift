/// A handle for a subscription to a `SoundModuleControl`'s events; `cancel()` (or the control going
/// away) ends it.
public final class ControlSubscription: Sendable {
    private weak let control: SoundModuleControl?
    let id: Int

    init(control: SoundModuleControl, id: Int) {
        self.control = control
        self.id = id
    }

    /// No more events for this subscriber (events already being delivered may still arrive).
    public func cancel() { control?.unsubscribe(id) }
}
