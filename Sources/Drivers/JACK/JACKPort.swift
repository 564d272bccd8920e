import CJACK

/// What a port carries.
package enum JACKPortType: Sendable {
    /// 32-bit float mono audio.
    case audio
    /// Raw MIDI events with frame offsets.
    case midi

    var typeName: UnsafePointer<CChar> {
        switch self {
        case .audio: return seqplay_jack_audio_type()
        case .midi: return seqplay_jack_midi_type()
        }
    }
}

/// Which way data flows through a port, seen from its client.
package enum JACKPortDirection: Sendable {
    /// The client reads what others write here (a playback port of the system is an input).
    case input
    /// The client writes here for others to read (a capture port of the system is an output).
    case output

    var flag: JackPortFlags { self == .input ? JackPortIsInput : JackPortIsOutput }
}

/// A range of latency in frames, as `jack_port_get_latency_range` reports it.
package struct JACKLatencyRange: Equatable, Sendable {
    package var minimum: Int
    package var maximum: Int
}

/// Which latency a port's range describes: from the capture side, or to the playback side.
package enum JACKLatencyMode: Sendable {
    case capture, playback

    var mode: jack_latency_callback_mode_t { self == .capture ? JackCaptureLatency : JackPlaybackLatency }
}

/// A port registered by a `JACKClient`. Its buffers are valid only inside the process callback,
/// for the cycle's frame count.
package class JACKPort {
    let handle: OpaquePointer
    /// The port's short name, as registered (`out_L`).
    package let shortName: String
    /// The port's full name (`seqplay:out_L`), as other clients connect to it.
    package let name: String
    package let direction: JACKPortDirection

    init(handle: OpaquePointer, shortName: String, direction: JACKPortDirection) {
        self.handle = handle
        self.shortName = shortName
        self.name = String(cString: jack_port_name(handle))
        self.direction = direction
    }

    /// Whether any port is connected to this one. Real-time safe.
    package var isConnected: Bool { jack_port_connected(handle) > 0 }

    /// The full names of the ports this port is connected to.
    package var connections: [String] { JACKPortList.take(jack_port_get_connections(handle)) }

    /// The latency range of the signal path through this port (see `JACKLatencyMode`).
    package func latencyRange(_ mode: JACKLatencyMode) -> JACKLatencyRange {
        var range = jack_latency_range_t()
        jack_port_get_latency_range(handle, mode.mode, &range)
        return JACKLatencyRange(minimum: Int(range.min), maximum: Int(range.max))
    }

    /// Sets this port's latency range (call from a latency callback or before activating).
    package func setLatencyRange(_ range: JACKLatencyRange, _ mode: JACKLatencyMode) {
        var value = jack_latency_range_t(min: jack_nframes_t(range.minimum), max: jack_nframes_t(range.maximum))
        jack_port_set_latency_range(handle, mode.mode, &value)
    }
}

/// A mono audio port.
package final class JACKAudioPort: JACKPort {
    /// This cycle's samples: `frameCount` must be the frame count the process callback was given.
    /// Real-time safe.
    @inline(__always)
    package func buffer(frameCount: Int) -> UnsafeMutableBufferPointer<Float> {
        let raw = jack_port_get_buffer(handle, jack_nframes_t(frameCount))
        return UnsafeMutableBufferPointer(start: raw?.assumingMemoryBound(to: Float.self), count: raw == nil ? 0 : frameCount)
    }
}

/// One MIDI event of a cycle: its frame offset in the cycle and its bytes (valid for the cycle only).
package struct JACKMIDIEvent {
    package let frame: Int
    package let bytes: UnsafeBufferPointer<UInt8>
}

/// A MIDI port. Read an input port's events, or write an output port's, inside the process callback.
package final class JACKMIDIPort: JACKPort {
    /// This cycle's events of an input port, in frame order. Real-time safe.
    package func events(frameCount: Int) -> JACKMIDIInputEvents {
        JACKMIDIInputEvents(buffer: jack_port_get_buffer(handle, jack_nframes_t(frameCount)))
    }

    /// This cycle's buffer of an output port, emptied. Real-time safe.
    package func outputBuffer(frameCount: Int) -> JACKMIDIOutputBuffer {
        let buffer = jack_port_get_buffer(handle, jack_nframes_t(frameCount))
        if let buffer { jack_midi_clear_buffer(buffer) }
        return JACKMIDIOutputBuffer(buffer: buffer)
    }
}

/// The MIDI events an input port received this cycle.
package struct JACKMIDIInputEvents: RandomAccessCollection {
    let buffer: UnsafeMutableRawPointer?
    package let startIndex = 0
    package let endIndex: Int

    init(buffer: UnsafeMutableRawPointer?) {
        self.buffer = buffer
        endIndex = buffer.map { Int(jack_midi_get_event_count($0)) } ?? 0
    }

    package subscript(index: Int) -> JACKMIDIEvent {
        var event = jack_midi_event_t()
        jack_midi_event_get(&event, buffer, UInt32(index))
        return JACKMIDIEvent(frame: Int(event.time), bytes: UnsafeBufferPointer(start: event.buffer, count: event.size))
    }
}

/// An output port's MIDI buffer for one cycle; events must be written in frame order.
package struct JACKMIDIOutputBuffer {
    let buffer: UnsafeMutableRawPointer?

    /// Writes `bytes` (one complete MIDI message) at frame `frame` of the cycle. Returns false when
    /// the buffer is full or the frame is before the last written one. Real-time safe.
    @discardableResult
    package func write(_ bytes: UnsafeBufferPointer<UInt8>, atFrame frame: Int) -> Bool {
        guard let buffer, let base = bytes.baseAddress else { return false }
        return jack_midi_event_write(buffer, jack_nframes_t(frame), base, bytes.count) == 0
    }

    /// Events lost this cycle because the buffer was full.
    package var lostEventCount: Int { buffer.map { Int(jack_midi_get_lost_event_count($0)) } ?? 0 }
}

/// Turns a NULL-terminated port name array from libjack into Swift strings and frees it.
enum JACKPortList {
    static func take(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        defer { jack_free(list) }
        var names: [String] = []
        var index = 0
        while let name = list[index] {
            names.append(String(cString: name))
            index += 1
        }
        return names
    }
}
