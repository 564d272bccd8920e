import Foundation
import Sampler

/// What a `SoundModuleControl` keeps in its `model` mutex: the state and what it is made from.
struct ControlModel: Sendable {
    var current: ControlState
    var songPlayer: (any SoundModuleSongPlayer)?
    var recorder: (any SoundModuleRecorder)?
    /// Per sampler, what its channels looked like at the last poll.
    var seen: [[ChannelStatusTable.Channel]]
    var seenGenerations: [UInt64]
    var presetNames: [String: FontState] = [:]
    /// The bank offset of each font loaded with one (`loadFont(at:bankOffset:)`), by id.
    var bankOffsets: [Int: Int] = [:]
    /// The samplers' completed cycles when the last command that waits for the render thread was
    /// queued; nil once `settle()` has seen it applied.
    var unsettledCycles: [UInt64]?

    /// The fonts a sampler has loaded, as states: names and presets from `presetNames` (read before),
    /// banks moved by the font's offset. With the samplers' fonts steady.
    func fontStates(of fonts: [SoundFontID]) -> [FontState] {
        fonts.map { font in
            let known = presetNames[font.path] ?? FontState(id: 0, path: font.path, name: (font.path as NSString).lastPathComponent, presets: [])
            let offset = bankOffsets[font.id] ?? 0
            let presets = known.presets.map { Preset(bank: $0.bank + offset, program: $0.program, name: $0.name, soundFont: font) }
            return FontState(id: font.id, path: font.path, name: known.name, presets: presets)
        }
    }

    /// The state's fonts made again from `fonts` (the first sampler's).
    mutating func refreshFonts(of fonts: [SoundFontID]) -> [FontState] {
        current.fonts = fontStates(of: fonts)
        return current.fonts
    }

    /// The preset name of `font`/`bank`/`program` (the bank as the font has it, before its offset).
    private func presetName(font: Int?, bank: Int, program: Int) -> String? {
        guard let font else { return nil }
        let shown = bank + (bankOffsets[font] ?? 0)
        return current.fonts.first { $0.id == font }?.presets.first { $0.bank == shown && $0.program == program }?.name
    }

    func channelState(_ index: Int, from status: ChannelStatusTable.Channel, mute: Bool) -> ChannelState {
        ChannelState(channel: index, program: status.program, bank: status.bank,
                     name: presetName(font: status.font, bank: status.bank, program: status.program),
                     volume: status.volume, pan: status.pan, mute: mute, font: status.font)
    }

    /// Keeps `value` at `keyPath` of the state, adding `event` of the state then to `events` when that changed it.
    mutating func keep<Value: Equatable & Sendable>(_ value: Value, at keyPath: WritableKeyPath<ControlState, Value>,
                                                    event: (ControlState) -> ControlEvent, in events: inout [ControlEvent]) {
        guard current[keyPath: keyPath] != value else { return }
        current[keyPath: keyPath] = value
        events.append(event(current))
    }
}
