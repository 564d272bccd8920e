/// What runs once per JACK cycle, on JACK's real-time thread: read and write the ports' buffers
/// for `frameCount` frames. It must not allocate, lock, log or do I/O. Return false only on a fatal
/// error (JACK then drops the client).
package protocol JACKProcessHandler: AnyObject {
    func process(frameCount: Int) -> Bool
}

/// The timebase master's part of each cycle, on JACK's real-time thread: fill `position`'s
/// bar:beat:tick fields for `position.frame` (a relocation when `isNewPosition`). Real-time rules apply.
package protocol JACKTimebaseHandler: AnyObject {
    func updatePosition(_ position: inout JACKPosition, state: JACKTransportState, frameCount: Int, isNewPosition: Bool)
}

/// A slow-sync client's answer to "are you ready to roll from `position`?", asked on JACK's
/// real-time thread when the transport starts or relocates, until it says yes (or the server's
/// timeout passes). Real-time rules apply.
package protocol JACKSyncHandler: AnyObject {
    func isReady(state: JACKTransportState, position: JACKPosition) -> Bool
}

/// The objects and closures the C callbacks reach through their context pointer. Kept alive by
/// the client; each slot is set before `activate` and not changed while active.
final class JACKCallbackContext {
    var process: (any JACKProcessHandler)?
    var timebase: (any JACKTimebaseHandler)?
    var sync: (any JACKSyncHandler)?
    var shutdown: (@Sendable (String) -> Void)?
    var freewheel: (@Sendable (Bool) -> Void)?
    var bufferSize: (@Sendable (Int) -> Void)?
    var xrun: (@Sendable () -> Void)?
}
