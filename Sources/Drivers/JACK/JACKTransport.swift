import CJACK
#if canImport(Glibc)
import Glibc
#endif

/// The state of the JACK transport.
package enum JACKTransportState: Equatable, Sendable {
    case stopped, rolling, starting, other

    init(_ state: jack_transport_state_t) {
        switch state {
        case JackTransportStopped: self = .stopped
        case JackTransportRolling: self = .rolling
        case JackTransportStarting: self = .starting
        default: self = .other
        }
    }
}

/// Where the JACK transport is: the frame, and bar:beat:tick with tempo and metre when a timebase
/// master provides them (`hasBarBeatTick`). Bars and beats count from 1, as in JACK.
package struct JACKPosition: Equatable, Sendable {
    package var frame: Int
    package var frameRate: Int
    package var hasBarBeatTick: Bool
    package var bar: Int
    package var beat: Int
    package var tick: Int
    package var barStartTick: Double
    package var beatsPerBar: Float
    package var beatType: Float
    package var ticksPerBeat: Double
    package var beatsPerMinute: Double

    init(_ position: jack_position_t) {
        frame = Int(position.frame)
        frameRate = Int(position.frame_rate)
        hasBarBeatTick = position.valid.rawValue & JackPositionBBT.rawValue != 0
        bar = Int(position.bar)
        beat = Int(position.beat)
        tick = Int(position.tick)
        barStartTick = position.bar_start_tick
        beatsPerBar = position.beats_per_bar
        beatType = position.beat_type
        ticksPerBeat = position.ticks_per_beat
        beatsPerMinute = position.beats_per_minute
    }

    /// Writes the bar:beat:tick fields (and marks them valid) into libjack's position.
    func store(into position: inout jack_position_t) {
        guard hasBarBeatTick else { return }
        position.valid = jack_position_bits_t(rawValue: position.valid.rawValue | JackPositionBBT.rawValue)
        position.bar = Int32(bar)
        position.beat = Int32(beat)
        position.tick = Int32(tick)
        position.bar_start_tick = barStartTick
        position.beats_per_bar = beatsPerBar
        position.beat_type = beatType
        position.ticks_per_beat = ticksPerBeat
        position.beats_per_minute = beatsPerMinute
    }
}

extension JACKClient {
    /// The transport's state and position now. Real-time safe.
    package func transportQuery() -> (state: JACKTransportState, position: JACKPosition) {
        var position = jack_position_t()
        let state = jack_transport_query(handle, &position)
        return (JACKTransportState(state), JACKPosition(position))
    }

    /// Asks the transport to move to `frame` (takes effect at a later cycle). Real-time safe.
    package func transportLocate(frame: Int) throws(JACKError) {
        let result = jack_transport_locate(handle, jack_nframes_t(clamping: frame))
        guard result == 0 else { throw .callFailed(call: "jack_transport_locate", code: result) }
    }

    /// Starts the transport rolling. Real-time safe.
    package func transportStart() { jack_transport_start(handle) }

    /// Stops the transport. Real-time safe.
    package func transportStop() { jack_transport_stop(handle) }

    /// Makes this client the timebase master: `handler` fills bar:beat:tick each cycle. With
    /// `conditional`, fails with `.timebaseMasterTaken` when another client is master.
    package func becomeTimebaseMaster(_ handler: any JACKTimebaseHandler, conditional: Bool = false) throws(JACKError) {
        callbacks.timebase = handler
        let context = Unmanaged.passUnretained(callbacks).toOpaque()
        let result = jack_set_timebase_callback(handle, conditional ? 1 : 0, { state, frames, position, isNew, context in
            guard let context, let position else { return }
            let callbacks = Unmanaged<JACKCallbackContext>.fromOpaque(context).takeUnretainedValue()
            guard let handler = callbacks.timebase else { return }
            var value = JACKPosition(position.pointee)
            handler.updatePosition(&value, state: JACKTransportState(state), frameCount: Int(frames), isNewPosition: isNew != 0)
            value.store(into: &position.pointee)
        }, context)
        if result == EBUSY { throw .timebaseMasterTaken }
        guard result == 0 else { throw .callFailed(call: "jack_set_timebase_callback", code: result) }
    }

    /// Gives up being timebase master.
    package func releaseTimebase() {
        jack_release_timebase(handle)
    }

    /// Makes this a slow-sync client: the transport waits for `handler` to be ready before rolling.
    package func setSyncHandler(_ handler: any JACKSyncHandler) throws(JACKError) {
        callbacks.sync = handler
        let context = Unmanaged.passUnretained(callbacks).toOpaque()
        let result = jack_set_sync_callback(handle, { state, position, context in
            guard let context, let position else { return 1 }
            let callbacks = Unmanaged<JACKCallbackContext>.fromOpaque(context).takeUnretainedValue()
            guard let handler = callbacks.sync else { return 1 }
            return handler.isReady(state: JACKTransportState(state), position: JACKPosition(position.pointee)) ? 1 : 0
        }, context)
        guard result == 0 else { throw .callFailed(call: "jack_set_sync_callback", code: result) }
    }
}
