import AudioGraph

extension AudioEngine {
    /// A started offline engine (manual rendering in `format`, blocks of up to 256 frames) that plays
    /// `source` into `destination` (the main mixer unless given).
    static func started(playing source: AudioNode, into destination: (AudioEngine) -> AudioNode = { $0.mainMixerNode },
                        format: AudioFormat = .standard) throws -> AudioEngine {
        let engine = AudioEngine()
        engine.attach(source)
        engine.connect(source, to: destination(engine))
        try engine.enableManualRenderingMode(format: format, maximumFrameCount: 256)
        try engine.start()
        return engine
    }
}
