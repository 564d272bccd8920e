import SeqplayKit

let song = try MIDIFileReader.read(contentsOf: "Songs/bach-prelude-c.mid").sequence
let engine = AudioEngine()
try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: 512)  // 44.1 kHz stereo
let sampler = try SamplerNode()  // plays at the engine's rate
try sampler.loadSoundFont(at: "SoundFonts/seqplay-gm.sf2")
let reverb = ReverbNode(preset: .largeHall, wetDryMix: 30)
engine.attach(sampler)
engine.attach(reverb)
engine.connect([sampler, reverb, engine.mainMixerNode])
nonisolated(unsafe) var peak: Float = 0
engine.mainMixerNode.installTap { buffer, _ in peak = max(peak, buffer.peak) }  // on the render thread
let player = try MusicPlayer(sequence: song, sampleRate: Int(engine.outputFormat.sampleRate))
sampler.eventSource = player
try engine.start()
let file = try AudioFileWriter(path: "bach.wav", format: engine.outputFormat)
let frames = try engine.render(to: file, frameCount: player.durationInSamples, untilSilent: 3)
print("bach.wav: \(frames) frames, peak \(peak)")
