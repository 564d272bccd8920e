import Sampler

/// An OSC message to the sound module, parsed (`OSCRequest.parse`). The address space:
///
///     /seqplay/channel/N/program i [i bank]    N 1-16; program 0-127
///     /seqplay/channel/N/volume f|i            f 0.0-1.0, or i 0-127 (CC 7)
///     /seqplay/channel/N/pan f|i               f 0.0-1.0 (0.5 centre), or i 0-127 (CC 10)
///     /seqplay/channel/N/mute i|T|F            1 muted, 0 not
///     /seqplay/channel/N/cc i i                controller, value
///     /seqplay/channel/N/note i i              key, velocity (0: note off)
///     /seqplay/gain f                          0-10
///     /seqplay/reverb i   /seqplay/chorus i    on (1) or off (0)
///     /seqplay/reverb/roomsize|damping|width|level f
///     /seqplay/chorus/voices i   /seqplay/chorus/level|speed|depth f
///     /seqplay/font/load s   /seqplay/font/unload i
///     /seqplay/panic   /seqplay/reset
///     /seqplay/record s file   /seqplay/record/stop    record what is played (where the host can)
///     /seqplay/song s file   /seqplay/song/stop        play a song (the media library's, or in a --song-dir)
///     /seqplay/state [i port]                  the state is sent back to the sender (or to that port of its host)
///     /seqplay/subscribe [i port]              the sender (or that port of its host) gets every change
///     /seqplay/unsubscribe [i port]
public enum OSCRequest: Equatable, Sendable {
    case perform(ControlCommand)
    /// Send the whole state to the sender (or to `replyPort` on its host).
    case state(replyPort: UInt16?)
    case subscribe(replyPort: UInt16?)
    case unsubscribe(replyPort: UInt16?)

    /// The request `message` makes, or the one line saying why it makes none.
    public static func parse(_ message: OSCMessage) -> Result<OSCRequest, ShellError> {
        do {
            return .success(try request(message))
        } catch {
            return .failure(error)
        }
    }

    private static func request(_ message: OSCMessage) throws(ShellError) -> OSCRequest {
        let path = message.path
        let a = message.arguments
        func fail(_ why: String) -> ShellError { ShellError("\(path.prefix(128)): \(why)") }
        func number(_ index: Int) throws(ShellError) -> Double {
            guard index < a.count else { throw fail("too few arguments") }
            guard let value = a[index].number, value.isFinite else { throw fail("argument \(index + 1) is not a number") }
            return value
        }
        func integer(_ index: Int) throws(ShellError) -> Int {
            let value = try number(index)
            guard value == value.rounded(.towardZero), abs(value) <= 9.0e15 else { throw fail("argument \(index + 1) is not a whole number") }
            return Int(value)
        }
        /// f 0...1 as 0...127, i as it is.
        func level(_ index: Int) throws(ShellError) -> Int {
            let value = try number(index)
            if a[index].isReal {
                guard (0...1).contains(value) else { throw fail("\(value) is out of range (0.0-1.0)") }
                return Int((value * 127).rounded())
            }
            return try integer(index)
        }
        func flag(_ index: Int) throws(ShellError) -> Bool { try number(index) != 0 }
        func replyPort() throws(ShellError) -> UInt16? {
            guard !a.isEmpty else { return nil }
            let port = try integer(0)
            guard (1...65535).contains(port) else { throw fail("port \(port) is out of range (1-65535)") }
            return UInt16(port)
        }

        guard path.hasPrefix("/seqplay/"), path.utf8.count <= 256 else { throw fail("not in seqplay's address space (/seqplay/...)") }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
        switch Array(parts) {
        case ["state"]: return .state(replyPort: try replyPort())
        case ["subscribe"]: return .subscribe(replyPort: try replyPort())
        case ["unsubscribe"]: return .unsubscribe(replyPort: try replyPort())
        case ["panic"]: return .perform(.panic)
        case ["reset"]: return .perform(.reset)
        case ["gain"]: return .perform(.gain(try number(0)))
        case ["reverb"]: return .perform(.reverb(SamplerSettings.Reverb(isEnabled: try flag(0))))
        case ["chorus"]: return .perform(.chorus(SamplerSettings.Chorus(isEnabled: try flag(0))))
        case ["reverb", "roomsize"]: return .perform(.reverb(SamplerSettings.Reverb(roomSize: try number(0))))
        case ["reverb", "damping"]: return .perform(.reverb(SamplerSettings.Reverb(damping: try number(0))))
        case ["reverb", "width"]: return .perform(.reverb(SamplerSettings.Reverb(width: try number(0))))
        case ["reverb", "level"]: return .perform(.reverb(SamplerSettings.Reverb(level: try number(0))))
        case ["chorus", "voices"]: return .perform(.chorus(SamplerSettings.Chorus(voices: try integer(0))))
        case ["chorus", "level"]: return .perform(.chorus(SamplerSettings.Chorus(level: try number(0))))
        case ["chorus", "speed"]: return .perform(.chorus(SamplerSettings.Chorus(speed: try number(0))))
        case ["chorus", "depth"]: return .perform(.chorus(SamplerSettings.Chorus(depth: try number(0))))
        case ["font", "load"]:
            guard case .string(let file)? = a.first else { throw fail("needs a file name (s)") }
            return .perform(.loadFont(path: file))
        case ["font", "unload"]: return .perform(.unloadFont(id: try integer(0)))
        case ["record"]:
            guard case .string(let file)? = a.first, !file.isEmpty else { throw fail("needs a file name (s)") }
            return .perform(.startRecording(path: file))
        case ["record", "stop"]: return .perform(.stopRecording)
        case ["song"]:
            guard case .string(let file)? = a.first, !file.isEmpty else { throw fail("needs a file name (s)") }
            return .perform(.playSong(path: file))
        case ["song", "stop"]: return .perform(.stopSong)
        default: break
        }
        guard parts.count == 3, parts[parts.startIndex] == "channel" else { throw fail("no such address") }
        let what = parts[parts.startIndex + 2]
        let numberText = parts[parts.startIndex + 1]
        guard numberText.count <= 3, let number = Int(numberText) else { throw fail("channel \(numberText.prefix(16)) is not a number") }
        let channel = number - 1  // the address's N is 1...16
        switch what {
        case "program":
            return .perform(.program(channel: channel, program: try integer(0), bank: a.count > 1 ? try integer(1) : nil))
        case "volume": return .perform(.volume(channel: channel, value: try level(0)))
        case "pan": return .perform(.pan(channel: channel, value: try level(0)))
        case "mute": return .perform(.mute(channel: channel, muted: try flag(0)))
        case "cc": return .perform(.controlChange(channel: channel, controller: try integer(0), value: try integer(1)))
        case "note":
            let key = try integer(0), velocity = try integer(1)
            return .perform(velocity == 0 ? .noteOff(channel: channel, key: key) : .noteOn(channel: channel, key: key, velocity: velocity))
        default: throw fail("no such address")
        }
    }

    /// The messages that show `event` in the address space (what subscribers get).
    public static func messages(for event: ControlEvent) -> [OSCMessage] {
        switch event {
        case .channel(let channel): return messages(for: channel)
        case .fonts(let fonts): return fonts.map { OSCMessage("/seqplay/font", [.int32(Int32(clamping: $0.id)), .string($0.path), .string($0.name)]) }
        case .gain(let gain): return [OSCMessage("/seqplay/gain", [.float(Float(gain))])]
        case .reverb(let reverb):
            return messages("/seqplay/reverb", [("", reverb.isEnabled.map(flagValue)), ("/roomsize", reverb.roomSize.map(floatValue)),
                                                ("/damping", reverb.damping.map(floatValue)), ("/width", reverb.width.map(floatValue)),
                                                ("/level", reverb.level.map(floatValue))])
        case .chorus(let chorus):
            return messages("/seqplay/chorus", [("", chorus.isEnabled.map(flagValue)),
                                                ("/voices", chorus.voices.map { .int32(Int32(clamping: $0)) }),
                                                ("/level", chorus.level.map(floatValue)), ("/speed", chorus.speed.map(floatValue)),
                                                ("/depth", chorus.depth.map(floatValue))])
        case .inputs(let inputs): return [OSCMessage("/seqplay/inputs", inputs.map { .string($0.name) })]
        case .song(let song): return [OSCMessage("/seqplay/song", song.map { [.string($0.path), .int32($0.playing ? 1 : 0)] } ?? [])]
        case .recording(let recording):
            return [OSCMessage("/seqplay/recording", recording.map { [.string($0.path), .int32($0.active ? 1 : 0)] } ?? [])]
        case .panic: return [OSCMessage("/seqplay/panic")]
        case .reset: return [OSCMessage("/seqplay/reset")]
        case .note: return []  // a face's note is not sent to subscribers
        }
    }

    /// One message a field given (not nil) of an effect at `address`, in order: on/off at `address`
    /// itself, each parameter at `address` + its suffix.
    private static func messages(_ address: String, _ fields: [(suffix: String, value: OSCValue?)]) -> [OSCMessage] {
        fields.compactMap { field in field.value.map { OSCMessage(address + field.suffix, [$0]) } }
    }

    private static func flagValue(_ on: Bool) -> OSCValue { .int32(on ? 1 : 0) }
    private static func floatValue(_ value: Double) -> OSCValue { .float(Float(value)) }

    /// A channel's program (program, bank, name), volume and pan (0.0-1.0) and mute.
    public static func messages(for channel: ChannelState) -> [OSCMessage] {
        let prefix = "/seqplay/channel/\(channel.channel + 1)/"
        return [OSCMessage(prefix + "program", [.int32(Int32(clamping: channel.program)), .int32(Int32(clamping: channel.bank)),
                                                .string(channel.name ?? "")]),
                OSCMessage(prefix + "volume", [.float(Float(channel.volume) / 127)]),
                OSCMessage(prefix + "pan", [.float(Float(channel.pan) / 127)]),
                OSCMessage(prefix + "mute", [.int32(channel.mute ? 1 : 0)])]
    }

    /// The whole state as messages, ending with `/seqplay/state/end`.
    public static func messages(for state: ControlState) -> [OSCMessage] {
        var result = state.channels.flatMap { messages(for: $0) }
        result += messages(for: .fonts(state.fonts))
        result += messages(for: .gain(state.gain))
        result += messages(for: .reverb(state.reverb))
        result += messages(for: .chorus(state.chorus))
        result += messages(for: .inputs(state.inputs))
        result += messages(for: .song(state.song))
        result += messages(for: .recording(state.recording))
        result.append(OSCMessage("/seqplay/state/end"))
        return result
    }
}
