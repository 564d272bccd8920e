import Foundation

/// What one connection of the FluidSynth shell face says back to each line: requests parsed by
/// `ShellRequest`, done through a `SoundModuleControl`, answered in FluidSynth's formats where
/// scripts parse them (`fonts`, `inst N`, `channels`); a command that succeeds says nothing, one
/// that fails says one line.
public struct ShellSession: Sendable {
    public let control: SoundModuleControl

    public init(control: SoundModuleControl) { self.control = control }

    /// The answer to `line` (each line ending in a newline; empty: nothing to say) and whether the
    /// connection ends after it.
    public func answer(_ line: Substring) -> (text: String, close: Bool) {
        switch ShellRequest.parse(line) {
        case .failure(let error): return (error.message + "\n", false)
        case .success(let request):
            let name = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first.map { String($0.prefix(64)) } ?? ""
            return answer(request, named: name)
        }
    }

    /// The answer to `request`, the line's command `name`. Commands are queued without waiting for
    /// the render thread (a script's lines follow one another at once); a query first waits for the
    /// commands before it to show, so it answers as FluidSynth would.
    func answer(_ request: ShellRequest, named name: String) -> (text: String, close: Bool) {
        switch request {
        case .nothing: return ("", false)
        case .quit: return ("cheers!\n", true)
        case .echo(let text): return (text + "\n", false)
        case .help(let topic):
            if let topic, topic != "all" {
                let lines = ShellRequest.commandHelp.filter { $0.0 == topic }.map(\.1)
                return (lines.isEmpty ? "help: no such topic: \(topic.prefix(64))\n" : lines.joined(separator: "\n") + "\n", false)
            }
            return ("\n" + ShellRequest.commandHelp.map(\.1).joined(separator: "\n") + "\n\n", false)
        case .voiceCount:
            control.settle()
            return ("voice_count: \(control.samplers.map(\.activeVoiceCount).reduce(0, +))\n", false)
        case .fonts:
            let fonts = control.state.fonts
            return ("ID  Name\n" + fonts.reversed().map { String(format: "%2d  %@\n", $0.id, $0.path) }.joined(), false)
        case .instruments(let id):
            guard let font = control.state.fonts.first(where: { $0.id == id }) else {
                return ("inst: invalid font number\n", false)
            }
            return (font.presets.map { String(format: "%03d-%03d %@\n", $0.bank, $0.program, $0.name) }.joined(), false)
        case .channels(let verbose):
            control.settle()
            let lines = control.state.channels.map { channel -> String in
                guard let name = channel.name, let font = channel.font else { return "chan \(channel.channel), no preset\n" }
                return verbose ? "chan \(channel.channel), sfont \(font), bank \(channel.bank), preset \(channel.program), \(name)\n"
                               : "chan \(channel.channel), \(name)\n"
            }
            return (lines.joined(), false)
        case .load(let path, let bankOffset):
            do {
                return ("loaded SoundFont has ID \(try control.loadFont(at: path, bankOffset: bankOffset))\n", false)
            } catch {
                return ("failed to load the SoundFont: \(error)\n", false)
            }
        case .reload(let id):
            do {
                try control.reloadFont(id: id)
                return ("", false)
            } catch {
                return ("failed to reload the SoundFont: \(error)\n", false)
            }
        case .perform(let command):
            do {
                try control.performWithoutWaiting(command)
                return ("", false)
            } catch {
                switch command {
                case .unloadFont: return ("failed to unload the SoundFont: \(error)\n", false)
                default: return ("\(name): \(error)\n", false)
                }
            }
        }
    }
}
