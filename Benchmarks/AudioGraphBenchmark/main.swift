// Render throughput of the audio graph against a hand-written loop doing the same arithmetic.
//
// Graph: 16 sine ToneGeneratorNodes → main mixer (each input panned) → modify tap (gain) → output,
// rendered offline in 512-frame cycles. Anchor: one loop computing the same sines, equal-power pans
// and gain straight into two channel arrays. Prints the time of each, how many times faster than
// real time (best of three runs), the graph/anchor ratio, and the heap allocations made while the
// graph rendered.
import AllocationCounter
import AudioGraph
import Foundation

let sampleRate = 44_100.0
let blockFrames = 512
let seconds = 120.0
let voiceCount = 16
let cycles = Int(seconds * sampleRate) / blockFrames
let frequencies = (0..<voiceCount).map { Float(110 * pow(2, Double($0) / 4)) }
let pans = (0..<voiceCount).map { Float($0) / Float(voiceCount - 1) * 2 - 1 }
let amplitude: Float = 0.05
let tapGain: Float = 0.8

/// Scales the audio in place.
final class GainTap: ProcessingTap {
    func process(_ buffer: AudioBuffer, context: RenderContext) {
        for channel in 0..<buffer.channelCount {
            let samples = buffer[channel]
            for i in samples.indices { samples[i] *= tapGain }
        }
    }
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func renderGraph() throws -> (seconds: Double, allocations: Int, checksum: Float) {
    let engine = AudioEngine()
    for (voice, frequency) in frequencies.enumerated() {
        let tone = ToneGeneratorNode(frequency: frequency, amplitude: amplitude)
        engine.attach(tone)
        engine.connect(tone, to: engine.mainMixerNode)
        engine.mainMixerNode.setPan(pans[voice], forInput: voice)
    }
    engine.mainMixerNode.installTap(GainTap(), at: .output(bus: 0))
    try engine.enableManualRenderingMode(format: .standard, maximumFrameCount: blockFrames)
    try engine.start()
    // Warm-up cycle (runtime caches), then back to sample time 0 so both renders compute the same audio.
    _ = engine.renderBlock(frameCount: blockFrames)
    engine.stop()
    try engine.reset()
    try engine.start()
    var checksum: Float = 0
    let start = now()
    seqplay_alloc_count_begin()
    for _ in 0..<cycles {
        guard let block = engine.renderBlock(frameCount: blockFrames) else { break }
        checksum += block[0][blockFrames - 1] + block[1][blockFrames - 1]
    }
    let counts = seqplay_alloc_count_end()
    return (now() - start, counts.allocations, checksum)
}

func renderAnchor() -> (seconds: Double, checksum: Float) {
    var left = [Float](repeating: 0, count: blockFrames), right = left
    var phases = [Double](repeating: 0, count: voiceCount)
    let steps = frequencies.map { 2 * Double.pi * Double($0) / sampleRate }
    let leftGains = pans.map { cos(($0 + 1) * .pi / 4) * tapGain }
    let rightGains = pans.map { sin(($0 + 1) * .pi / 4) * tapGain }
    var checksum: Float = 0
    let start = now()
    for _ in 0..<cycles {
        for i in 0..<blockFrames { left[i] = 0; right[i] = 0 }
        for voice in 0..<voiceCount {
            var phase = phases[voice]
            for i in 0..<blockFrames {
                let sample = amplitude * Float(sin(phase))
                left[i] += sample * leftGains[voice]
                right[i] += sample * rightGains[voice]
                phase += steps[voice]
            }
            phases[voice] = phase.truncatingRemainder(dividingBy: 2 * .pi)
        }
        checksum += left[blockFrames - 1] + right[blockFrames - 1]
    }
    return (now() - start, checksum)
}

// Best of three runs each: the machine is shared, so the fastest run is the least disturbed.
let graphRuns = try (0..<3).map { _ in try renderGraph() }
let anchorRuns = (0..<3).map { _ in renderAnchor() }
let graph = graphRuns.min { $0.seconds < $1.seconds }!
let anchor = anchorRuns.min { $0.seconds < $1.seconds }!
let audioSeconds = Double(cycles * blockFrames) / sampleRate
print("audio rendered: \(String(format: "%.1f", audioSeconds)) s, \(voiceCount) voices, \(blockFrames)-frame cycles")
print(String(format: "graph : %.3f s  (%.0fx real time)  allocations while rendering: %d",
             graph.seconds, audioSeconds / graph.seconds, graphRuns.map(\.allocations).max()!))
print(String(format: "anchor: %.3f s  (%.0fx real time)  hand-written loop, same arithmetic",
             anchor.seconds, audioSeconds / anchor.seconds))
print(String(format: "graph/anchor time ratio: %.2f  (checksums %.4f / %.4f)",
             graph.seconds / anchor.seconds, graph.checksum, anchor.checksum))
