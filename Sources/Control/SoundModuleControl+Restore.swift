extension SoundModuleControl {
    /// Makes the module sound as `saved` says: fonts it had loaded that are not loaded now (from
    /// their files), each channel's preset, volume, pan and mute, gain, reverb and chorus. What
    /// cannot be restored (a font gone, a preset no font has) is skipped and described in the lines
    /// returned.
    @discardableResult
    public func restore(_ saved: ControlState) -> [String] {
        var problems: [String] = []
        // The commands are queued back to back and the render thread applies them together: one wait.
        defer { settle() }
        let loaded = Set(state.fonts.map(\.path))
        for font in saved.fonts where !loaded.contains(font.path) {
            do { _ = try loadFont(at: font.path) } catch { problems.append("\(error)") }
        }
        let fonts = state.fonts
        for channel in saved.channels where (0...15).contains(channel.channel) {
            if let savedFont = channel.font, let path = saved.fonts.first(where: { $0.id == savedFont })?.path,
               let font = fonts.last(where: { $0.path == path }),
               (try? performWithoutWaiting(.select(channel: channel.channel, font: font.id, bank: channel.bank,
                                                   program: channel.program))) != nil {
            } else if channel.font != nil {
                do {
                    try performWithoutWaiting(.program(channel: channel.channel, program: channel.program, bank: channel.bank))
                } catch {
                    problems.append("channel \(channel.channel + 1): \(error)")
                }
            }
            for command in [ControlCommand.volume(channel: channel.channel, value: channel.volume),
                            .pan(channel: channel.channel, value: channel.pan),
                            .mute(channel: channel.channel, muted: channel.mute)] {
                do { try performWithoutWaiting(command) } catch { problems.append("channel \(channel.channel + 1): \(error)") }
            }
        }
        for command in [ControlCommand.gain(saved.gain), .reverb(saved.reverb), .chorus(saved.chorus)] {
            do { try performWithoutWaiting(command) } catch { problems.append("\(error)") }
        }
        return problems
    }
}
