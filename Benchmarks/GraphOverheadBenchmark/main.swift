// The audio graph's overhead over bare FluidSynth: the same song rendered by a `Synthesizer` in a
// hand-written loop, and by a SamplerNode → main mixer → output node through
// `AudioEngine.renderOffline` (no effects). Both take MIDI the same way (each 64-frame block asks for
// the events before its middle) and both fill a buffer of about a second per call, so the difference is
// what the graph adds: the render plan walk, the mixer and the copy out. Prints both times (best of
// five runs), the overhead in per cent (target ≤ 5 %) and whether the two outputs are identical.
//
// The song is generated here (the MusicPlayer is not on this branch): 120 s at 120 BPM of a
// four-voice piano chord per bar, an eighth-note piano arpeggio, a bass line and a drum groove,
// played with SoundFonts/seqplay-gm.sf2.
import AudioGraph
import Sampler
import Foundation
import MIDICore
import RenderTestSupport

let sampleRate = 44_100.0
let blockFrames = 64
let chunkFrames = 44_160 // about a second, whole 64-frame blocks
let cycleFrames = 512
let songSeconds = 120
let fontPath = CommandLine.arguments.dropFirst().first ?? "SoundFonts/seqplay-gm.sf2"

/// The song's MIDI messages at sample times, sorted.
func makeSong() -> [(sampleTime: Int64, message: MIDIMessage)] {
    var events: [(sampleTime: Int64, message: MIDIMessage)] = [
        (0, .programChange(channel: 0, program: 0)), (0, .programChange(channel: 1, program: 33)),
    ]
    func note(_ channel: UInt8, _ key: UInt8, at beat: Double, length: Double, velocity: UInt8) {
        let samplesPerBeat = sampleRate / 2 // 120 BPM
        events.append((Int64(beat * samplesPerBeat), .noteOn(channel: channel, note: key, velocity: velocity)))
        events.append((Int64((beat + length) * samplesPerBeat), .noteOff(channel: channel, note: key, velocity: 0)))
    }
    let roots: [UInt8] = [48, 45, 41, 43] // C, A, F, G
    for bar in 0..<(songSeconds / 2) {
        let root = roots[bar % roots.count]
        let chord = [root, root + (root == 45 ? 3 : 4), root + 7, root + 12]
        let start = Double(bar * 4)
        for key in chord { note(0, key + 12, at: start, length: 3.9, velocity: 70) }
        for step in 0..<8 { note(0, chord[step % 4] + 24, at: start + Double(step) / 2, length: 0.45, velocity: 90) }
        for beat in 0..<4 { note(1, root - 12 + (beat == 2 ? 7 : 0), at: start + Double(beat), length: 0.9, velocity: 100) }
        for step in 0..<8 {
            note(9, 42, at: start + Double(step) / 2, length: 0.1, velocity: 80)
            if step % 4 == 0 { note(9, 36, at: start + Double(step) / 2, length: 0.2, velocity: 110) }
            if step % 4 == 2 { note(9, 38, at: start + Double(step) / 2, length: 0.2, velocity: 100) }
        }
    }
    return events.sorted { $0.sampleTime < $1.sampleTime }
}

let song = makeSong()
let totalFrames = songSeconds * chunkFrames
let settings = SamplerSettings()

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Bare FluidSynth: 64-frame blocks straight into the output buffer.
func renderBare() throws -> (seconds: Double, output: [Float]) {
    let synthesizer = try Synthesizer(settings: settings, sampleRate: sampleRate)
    try synthesizer.loadSoundFont(at: fontPath)
    let events = ScheduledEventList(song)
    let buffer = AudioBuffer(format: .standard, frameCapacity: chunkFrames)
    buffer.frameLength = chunkFrames
    var kept: [Float] = []
    let start = now()
    var time: Int64 = 0
    while time < Int64(totalFrames) {
        let left = buffer[0].baseAddress!, right = buffer[1].baseAddress!
        var done = 0
        while done < chunkFrames {
            events.deliverEvents(before: time + Int64(blockFrames / 2), to: synthesizer)
            synthesizer.render(frameCount: blockFrames, left: left + done, right: right + done)
            done += blockFrames
            time += Int64(blockFrames)
        }
        kept.append(buffer[0][chunkFrames / 2])
    }
    return (now() - start, kept)
}

/// The graph: SamplerNode → main mixer → output, `renderOffline` about a second at a time.
func renderGraph() throws -> (seconds: Double, output: [Float]) {
    let engine = AudioEngine()
    let sampler = try SamplerNode(settings: settings, sampleRate: sampleRate)
    try sampler.loadSoundFont(at: fontPath)
    sampler.eventSource = ScheduledEventList(song)
    engine.attach(sampler)
    engine.connect(sampler, to: engine.mainMixerNode)
    try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: cycleFrames)
    try engine.start()
    let buffer = AudioBuffer(format: .standard, frameCapacity: chunkFrames)
    var kept: [Float] = []
    let start = now()
    var done = 0
    while done < totalFrames {
        done += try engine.renderOffline(frames: chunkFrames, into: buffer)
        kept.append(buffer[0][chunkFrames / 2])
    }
    return (now() - start, kept)
}

guard FileManager.default.fileExists(atPath: fontPath) else {
    FileHandle.standardError.write(Data("no SoundFont at \(fontPath); run from the package root\n".utf8))
    exit(1)
}
var bareRuns: [(seconds: Double, output: [Float])] = []
var graphRuns: [(seconds: Double, output: [Float])] = []
for _ in 0..<5 { // interleaved, so a busy spell on the shared machine hits both
    bareRuns.append(try renderBare())
    graphRuns.append(try renderGraph())
}
let bare = bareRuns.min { $0.seconds < $1.seconds }!
let graph = graphRuns.min { $0.seconds < $1.seconds }!
let overhead = (graph.seconds / bare.seconds - 1) * 100
print("song: \(String(format: "%.1f", Double(totalFrames) / sampleRate)) s, \(song.count) MIDI events, \(URL(fileURLWithPath: fontPath).lastPathComponent), "
      + "44.1 kHz stereo, \(cycleFrames)-frame graph cycles, best of 5")
print(String(format: "bare FluidSynth render loop : %.3f s  (%.0fx real time)", bare.seconds, Double(totalFrames) / sampleRate / bare.seconds))
print(String(format: "SamplerNode → mixer → engine: %.3f s  (%.0fx real time)", graph.seconds, Double(totalFrames) / sampleRate / graph.seconds))
print(String(format: "graph overhead: %+.1f %%  (target ≤ 5 %%)  %@", overhead, overhead <= 5 ? "OK" : "OVER TARGET"))
print("outputs identical (a sample per second compared, \(bare.output.count { $0 != 0 }) of \(bare.output.count) non-zero): "
      + (bare.output == graph.output ? "yes" : "NO"))
