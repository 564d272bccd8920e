import Foundation
import Sampler
import Synchronization

/// Loading and reloading fonts: files read through before any lock, then loaded on every sampler.
extension SoundModuleControl {
    /// Loads the font at `path` on top (`ControlCommand.loadFont`), its banks moved by `bankOffset`
    /// (FluidSynth's `load FILE 1 OFFSET`), and returns its id once the state shows it. Only a
    /// regular file is opened (a FIFO or a device is refused before anything reads it), and the file
    /// is read through before any lock is taken, so a slow disk holds up no other face: the
    /// synthesizer then loads it from the page cache.
    public func loadFont(at path: String, bankOffset: Int = 0) throws(ControlError) -> Int {
        guard (-16383...16383).contains(bankOffset) else {
            throw .outOfRange(name: "bank offset", value: "\(bankOffset)", range: "-16383-16383")
        }
        if let problem = RegularFile.readThrough(path) { throw .fontFailed(path: path, reason: problem) }
        let described = Self.describeFont(at: path)
        commandLock.lock()
        let cycles = samplers.map { $0.channelStatus.completedCycles }
        var loaded: [SoundFontID] = []
        for sampler in samplers {
            do {
                loaded.append(try sampler.loadSoundFont(at: path))
            } catch {
                // Samplers that loaded it already give it up again, so they all keep the same fonts.
                for (index, font) in loaded.enumerated() { samplers[index].unloadSoundFont(font) }
                commandLock.unlock()
                throw .fontFailed(path: path, reason: "\(error)")
            }
        }
        if bankOffset != 0 { for (sampler, font) in zip(samplers, loaded) { sampler.setBankOffset(bankOffset, of: font) } }
        model.withLock { model in
            model.presetNames[path] = described
            if bankOffset != 0 { model.bankOffsets[loaded[0].id] = bankOffset }
            emit([.fonts(model.refreshFonts(of: samplers[0].soundFonts))])
        }
        commandLock.unlock()
        awaitRender(after: cycles)
        settle()
        return loaded[0].id
    }

    /// Loads the fonts with these ids again from their files, each keeping its id and place
    /// (FluidSynth's `reload ID`; SIGHUP reloads them all); channels keep their programs where the
    /// new contents have them. Returns once the state shows it.
    public func reloadFont(id: Int) throws(ControlError) {
        try reloadFonts([id])
    }

    func reloadFonts(_ ids: [Int]) throws(ControlError) {
        let fonts = samplers[0].soundFonts.filter { ids.contains($0.id) }
        for id in ids where !fonts.contains(where: { $0.id == id }) { throw .noSuchFont(id) }
        for font in fonts {
            if let problem = RegularFile.readThrough(font.path) { throw .fontFailed(path: font.path, reason: problem) }
        }
        let described = fonts.map { Self.describeFont(at: $0.path) }
        commandLock.lock()
        let cycles = samplers.map { $0.channelStatus.completedCycles }
        var failure: ControlError?
        for font in fonts {
            guard let index = samplers[0].soundFonts.firstIndex(of: font) else { continue }
            for sampler in samplers where index < sampler.soundFonts.count {
                do {
                    try sampler.reloadSoundFont(sampler.soundFonts[index])
                } catch {
                    failure = failure ?? .fontFailed(path: font.path, reason: "\(error)")
                }
            }
        }
        model.withLock { model in
            for state in described { model.presetNames[state.path] = state }
            emit([.fonts(model.refreshFonts(of: samplers[0].soundFonts))])
        }
        commandLock.unlock()
        awaitRender(after: cycles)
        settle()
        if let failure { throw failure }
    }
}
