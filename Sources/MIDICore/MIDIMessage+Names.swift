/// The one vocabulary seqplay names MIDI messages with, in text and JSON alike: mido's (the Python MIDI
/// library's) type and field names, so a listing from `seqplay info --events` or `seqplay monitor` reads
/// as mido prints the same message and a script written for mido reads ours.
extension MIDIMessage {
    /// mido's name for the message's type: note_on, note_off, polytouch, control_change,
    /// program_change, aftertouch, pitchwheel, sysex, quarter_frame, songpos, song_select,
    /// tune_request, clock, start, continue, stop, active_sensing, reset.
    public var typeName: String {
        switch self {
        case .noteOff: "note_off"
        case .noteOn: "note_on"
        case .polyPressure: "polytouch"
        case .controlChange: "control_change"
        case .programChange: "program_change"
        case .channelPressure: "aftertouch"
        case .pitchBend: "pitchwheel"
        case .systemExclusive: "sysex"
        case .timeCodeQuarterFrame: "quarter_frame"
        case .songPosition: "songpos"
        case .songSelect: "song_select"
        case .tuneRequest: "tune_request"
        case .timingClock: "clock"
        case .start: "start"
        case .continue: "continue"
        case .stop: "stop"
        case .activeSensing: "active_sensing"
        case .systemReset: "reset"
        }
    }

    /// The message's numbers under mido's field names (the channel apart, SysEx bytes apart): note and
    /// velocity, note and value (polytouch), control and value, program, value (aftertouch), pitch
    /// (-8192...8191), frame_type and frame_value, pos, song.
    public var namedValues: [String: Int] {
        switch self {
        case .noteOff(_, let note, let velocity), .noteOn(_, let note, let velocity):
            ["note": Int(note), "velocity": Int(velocity)]
        case .polyPressure(_, let note, let pressure): ["note": Int(note), "value": Int(pressure)]
        case .controlChange(_, let control, let value): ["control": Int(control), "value": Int(value)]
        case .programChange(_, let program): ["program": Int(program)]
        case .channelPressure(_, let pressure): ["value": Int(pressure)]
        case .pitchBend(_, let value): ["pitch": Int(value) - 8192]
        case .timeCodeQuarterFrame(let byte): ["frame_type": Int(byte >> 4), "frame_value": Int(byte & 0x0F)]
        case .songPosition(let position): ["pos": Int(position)]
        case .songSelect(let song): ["song": Int(song)]
        case .systemExclusive, .tuneRequest, .timingClock, .start, .continue, .stop, .activeSensing, .systemReset: [:]
        }
    }

    /// mido's field names, in the order mido prints them.
    public static let fieldNames = ["note", "velocity", "control", "value", "program", "pitch", "frame_type", "frame_value", "pos", "song"]
}
