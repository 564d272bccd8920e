// The FluidSynth shell's lines (fluidsynth -s, port 9800) parsed into requests. Standard library
// and SamplerSettings only: Scripts/fuzz.sh compiles this file with ControlCommand.swift alone (and
// FluidSynth's SamplerSettings.swift, the commands' reverb and chorus).

import Sampler

/// One line of FluidSynth's shell protocol, parsed (`ShellRequest.parse`). Channels are FluidSynth's
/// 0-based ones on the line and 1-based in the `ControlCommand`s.
public enum ShellRequest: Equatable, Sendable {
    /// A command for the control model.
    case perform(ControlCommand)
    /// `fonts`: the loaded fonts.
    case fonts
    /// `inst FONT`: the presets of font id FONT.
    case instruments(font: Int)
    /// `channels [-verbose]`: each channel's preset.
    case channels(verbose: Bool)
    /// `help [TOPIC]`.
    case help(topic: String?)
    /// `voice_count`.
    case voiceCount
    /// `echo TEXT`.
    case echo(String)
    /// `load FILE [RESET] [BANKOFFSET]`: a font on top, its banks moved by the offset; answered with its id.
    case load(path: String, bankOffset: Int)
    /// `reload ID`: the font loaded again from its file, keeping its id.
    case reload(font: Int)
    /// `quit`: the connection ends.
    case quit
    /// An empty line or a comment (`#`): no answer.
    case nothing

    /// The longest line read; a longer one is answered with one error and skipped.
    public static let maximumLineLength = 65_536

    /// The commands understood, with FluidSynth's help lines.
    public static let commandHelp: [(String, String)] = [
        ("help", "help                       Shows help topics ('help TOPIC' for more info)"),
        ("quit", "quit                       Quit the synthesizer"),
        ("noteon", "noteon chan key vel        Sends noteon"),
        ("noteoff", "noteoff chan key           Sends noteoff"),
        ("pitch_bend", "pitch_bend chan offset     Bends pitch"),
        ("cc", "cc chan ctrl value         Sends control-change message"),
        ("prog", "prog chan num              Sends program-change message"),
        ("select", "select chan sfont bank prog  Combination of bank-select and program-change"),
        ("load", "load file [reset] [bankofs] Loads SoundFont (reset=0|1, def 1; bankofs=n, def 0)"),
        ("unload", "unload id [reset]          Unloads SoundFont by ID (reset=0|1, default 1)"),
        ("reload", "reload id                  Reload the SoundFont with the specified ID"),
        ("fonts", "fonts                      Display the list of loaded SoundFonts"),
        ("inst", "inst font                  Print out the available instruments for the font"),
        ("channels", "channels [-verbose]        Print out preset of all channels"),
        ("rev_setroomsize", "rev_setroomsize [group] num Set room size of all or one reverb group to num"),
        ("rev_setdamp", "rev_setdamp [group] num     Set damping of all or one reverb group to num"),
        ("rev_setwidth", "rev_setwidth [group] num    Set width of all or one reverb group to num"),
        ("rev_setlevel", "rev_setlevel [group] num    Set output level of all or one reverb group to num"),
        ("reverb", "reverb [group] 0|1|on|off   Turn all or one reverb group on or off"),
        ("cho_set_nr", "cho_set_nr [group] n        Set n delay lines (default 3) in all or one chorus group"),
        ("cho_set_level", "cho_set_level [group] num   Set output level of all or one chorus group to num"),
        ("cho_set_speed", "cho_set_speed [group] num   Set mod speed of all or one chorus group to num (Hz)"),
        ("cho_set_depth", "cho_set_depth [group] num   Set modulation depth of all or one chorus group to num (ms)"),
        ("chorus", "chorus [group] 0|1|on|off   Turn all or one chorus group on or off"),
        ("gain", "gain value                 Set the master gain (0 < gain < 5)"),
        ("voice_count", "voice_count                Get number of active synthesis voices"),
        ("reset", "reset                      System reset (all notes off, reset controllers)"),
        ("panic", "panic                      All sounds off on every channel (seqplay)"),
        ("mute", "mute chan 0|1|on|off       Mutes or unmutes a channel (seqplay)"),
        ("play", "play file                  Plays a MIDI file (the media library's, or in a --song-dir) (seqplay)"),
        ("player_stop", "player_stop                Stops the song playing"),
        ("echo", "echo arg                   Print arg"),
    ]

    /// Parses one line (without its newline). Errors are the one line answered, as FluidSynth
    /// words them where it has words for them.
    public static func parse(_ line: Substring) -> Result<ShellRequest, ShellError> {
        var words: [Substring] = []
        for word in line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) {
            words.append(word)
            if words.count > 8 { break }
        }
        guard let first = words.first, !first.hasPrefix("#") else { return .success(.nothing) }
        let name = String(first.prefix(64))
        if name == "play" {
            // The rest of the line is the file (spaces and all).
            let rest = line.drop { $0 == " " || $0 == "\t" }.dropFirst(4).drop { $0 == " " || $0 == "\t" }
            let file = String(rest.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
            guard !file.isEmpty else { return .failure(ShellError("play: too few arguments")) }
            return .success(.perform(.playSong(path: file)))
        }
        let arguments = Array(words.dropFirst())
        do {
            return .success(try request(name, arguments))
        } catch {
            return .failure(error)
        }
    }

    /// The fewest arguments a command takes (fewer: "too few arguments", as FluidSynth says).
    private static let leastArguments = ["inst": 1, "noteon": 3, "noteoff": 2, "pitch_bend": 2, "cc": 3, "prog": 2, "select": 4,
                                         "load": 1, "unload": 1, "reload": 1, "gain": 1, "mute": 2, "echo": 1]

    /// FluidSynth's words for too few arguments: the command's name (`select` says `preset`), and a
    /// full stop after a few.
    static func tooFewArguments(_ name: String) -> ShellError {
        switch name {
        case "select": return ShellError("preset: too few arguments")
        case "gain", "echo": return ShellError("\(name): too few arguments.")
        default: return ShellError("\(name): too few arguments")
        }
    }

    private static func request(_ name: String, _ a: [Substring]) throws(ShellError) -> ShellRequest {
        func needs(_ count: Int) throws(ShellError) {
            guard a.count >= count else { throw tooFewArguments(name) }
        }
        func channel(_ index: Int) throws(ShellError) -> Int {
            let value = try number(a[index], "channel")
            guard (0...15).contains(value) else { throw ShellError("\(name): channel \(a[index].prefix(32)) is out of range (0-15)") }
            return value
        }
        func number(_ word: Substring, _ what: String) throws(ShellError) -> Int {
            guard word.count <= 12, let value = Int(word) else { throw ShellError("\(name): \(what) \(word.prefix(32)) is not a number") }
            return value
        }
        func real(_ word: Substring) throws(ShellError) -> Double {
            guard word.count <= 32, let value = Double(word), value.isFinite else { throw ShellError("\(name): \(word.prefix(32)) is not a number") }
            return value
        }
        /// FluidSynth's `[group] value`: the last of one or two arguments.
        func groupedArgument() throws(ShellError) -> Substring {
            guard a.count == 1 || a.count == 2 else { throw ShellError("\(name): needs 1 or 2 arguments") }
            return a[a.count - 1]
        }
        func effectValue() throws(ShellError) -> Double {
            try needs(1)
            return try real(groupedArgument())
        }
        func onOff(_ word: Substring) throws(ShellError) -> Bool {
            switch word.lowercased() {
            case "1", "on": return true
            case "0", "off": return false
            default: throw ShellError("\(name): expects 0, 1, on or off")
            }
        }
        try needs(Self.leastArguments[name] ?? 0)
        switch name {
        case "help": return .help(topic: a.first.map(String.init))
        case "quit", "exit": return .quit
        case "fonts": return .fonts
        case "channels": return .channels(verbose: a.first == "-verbose")
        case "voice_count": return .voiceCount
        case "echo": return .echo(a.map(String.init).joined(separator: " "))
        case "inst": return .instruments(font: try number(a[0], "font"))
        case "noteon":
            return .perform(.noteOn(channel: try channel(0), key: try number(a[1], "key"), velocity: try number(a[2], "velocity")))
        case "noteoff": return .perform(.noteOff(channel: try channel(0), key: try number(a[1], "key")))
        case "pitch_bend": return .perform(.pitchBend(channel: try channel(0), value: try number(a[1], "offset")))
        case "cc":
            return .perform(.controlChange(channel: try channel(0), controller: try number(a[1], "control"), value: try number(a[2], "value")))
        case "prog": return .perform(.program(channel: try channel(0), program: try number(a[1], "program")))
        case "select":
            return .perform(.select(channel: try channel(0), font: try number(a[1], "font"), bank: try number(a[2], "bank"),
                                    program: try number(a[3], "program")))
        case "load":
            if a.count > 1 { _ = try number(a[1], "reset") }
            return .load(path: String(a[0]), bankOffset: a.count > 2 ? try number(a[2], "bank offset") : 0)
        case "unload": return .perform(.unloadFont(id: try number(a[0], "id")))
        case "reload": return .reload(font: try number(a[0], "id"))
        case "gain":
            let gain = try real(a[0])
            guard (0...5).contains(gain) else { throw ShellError("gain: value should be between '0' and '5'.") }
            return .perform(.gain(gain))
        case "reverb": return .perform(.reverb(SamplerSettings.Reverb(isEnabled: try onOff(groupedArgument()))))
        case "chorus": return .perform(.chorus(SamplerSettings.Chorus(isEnabled: try onOff(groupedArgument()))))
        case "rev_setroomsize": return .perform(.reverb(SamplerSettings.Reverb(roomSize: try effectValue())))
        case "rev_setdamp": return .perform(.reverb(SamplerSettings.Reverb(damping: try effectValue())))
        case "rev_setwidth": return .perform(.reverb(SamplerSettings.Reverb(width: try effectValue())))
        case "rev_setlevel": return .perform(.reverb(SamplerSettings.Reverb(level: try effectValue())))
        case "cho_set_nr":
            let value = try effectValue()
            guard value == value.rounded(), abs(value) < 1000 else { throw ShellError("\(name): \(value) is not a whole number") }
            return .perform(.chorus(SamplerSettings.Chorus(voices: Int(value))))
        case "cho_set_level": return .perform(.chorus(SamplerSettings.Chorus(level: try effectValue())))
        case "cho_set_speed": return .perform(.chorus(SamplerSettings.Chorus(speed: try effectValue())))
        case "cho_set_depth": return .perform(.chorus(SamplerSettings.Chorus(depth: try effectValue())))
        case "reset": return .perform(.reset)
        case "panic": return .perform(.panic)
        case "player_stop": return .perform(.stopSong)
        case "mute": return .perform(.mute(channel: try channel(0), muted: try onOff(a[1])))
        default:
            throw ShellError("unknown command: \(name) (try help)")
        }
    }
}

/// A shell line that cannot be done: the one line answered.
public struct ShellError: Error, Equatable, Sendable {
    public var message: String

    public init(_ message: String) { self.message = message }
}
