// Cost of each effect in nanoseconds per stereo frame, against an anchor that only copies and scales.
//
// Every kernel processes the same 60 s of stereo noise-modulated tones at 48 kHz in 512-frame blocks, in
// place. Anchor: a loop multiplying each sample by a gain (the least any in-place effect must do). The
// varispeed runs at rate 1.5, pulling its input from a buffer. Prints ns/frame, times faster than real time
// and the ratio to the anchor (best of three runs), then the whole issue chain rendered through an engine and
// the heap allocations made on the render path.
import AllocationCounter
import AudioGraph
import Effects
import Foundation
import LV2

let sampleRate = 48_000.0
let blockFrames = 512
let seconds = 60.0
let frameCount = Int(seconds * sampleRate) / blockFrames * blockFrames

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Test signal: two detuned tones under slowly swelling noise, different per channel.
func makeSignal(channel: Int) -> UnsafeMutablePointer<Float> {
    let samples = UnsafeMutablePointer<Float>.allocate(capacity: frameCount)
    var generator = SystemRandomNumberGenerator()
    for n in 0..<frameCount {
        let t = Double(n) / sampleRate
        let swell = Float(0.5 + 0.5 * sin(2 * Double.pi * 0.3 * t))
        samples[n] = 0.4 * Float(sin(2 * Double.pi * (220 + 3 * Double(channel)) * t))
            + 0.3 * Float(sin(2 * Double.pi * 331 * t)) + swell * 0.2 * Float.random(in: -1...1, using: &generator)
    }
    return samples
}

nonisolated(unsafe) let source = [makeSignal(channel: 0), makeSignal(channel: 1)]
nonisolated(unsafe) let work = [UnsafeMutablePointer<Float>.allocate(capacity: frameCount),
            UnsafeMutablePointer<Float>.allocate(capacity: frameCount)]
nonisolated(unsafe) let blockPointers = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)

/// Best-of-three time of `body` processing all blocks of fresh copies of the signal.
func time(_ body: (UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, Int) -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<3 {
        for channel in 0..<2 { work[channel].update(from: source[channel], count: frameCount) }
        let start = now()
        var offset = 0
        while offset < frameCount {
            for channel in 0..<2 { blockPointers[channel] = work[channel] + offset }
            body(blockPointers, blockFrames)
            offset += blockFrames
        }
        best = min(best, now() - start)
    }
    return best
}

func report(_ name: String, seconds elapsed: Double, anchor: Double?) {
    let nsPerFrame = elapsed / Double(frameCount) * 1e9
    let realTime = seconds / elapsed
    let ratio = anchor.map { String(format: "%7.1f× anchor", elapsed / $0) } ?? "         anchor"
    let label = name.padding(toLength: 34, withPad: " ", startingAt: 0)
    print(label + String(format: "%8.1f ns/frame %9.0f× real time  ", nsPerFrame, realTime) + ratio)
}

print("Effects, stereo 48 kHz, \(Int(seconds)) s in \(blockFrames)-frame blocks, best of 3")
nonisolated(unsafe) let anchorGain: Float = 0.8
nonisolated(unsafe) let anchor = time { channels, frames in
    for channel in 0..<channels.count {
        let samples = channels[channel]
        for i in 0..<frames { samples[i] *= anchorGain }
    }
}
report("anchor (in-place gain)", seconds: anchor, anchor: nil)

func kernelCase(_ name: String, _ kernel: some EffectKernel) {
    kernel.prepare(sampleRate: sampleRate, channelCount: 2)
    report(name, seconds: time { kernel.process($0, frameCount: $1) }, anchor: anchor)
}

let eq = EQKernel(bandCount: 4)
for (index, type) in [EQFilterType.lowShelf, .parametric, .parametric, .highShelf].enumerated() {
    eq.bands[index].filterType = type
    eq.bands[index].frequency = [120, 800, 3000, 8000][index]
    eq.bands[index].gain = [3, -2, 2, -3][index]
}
kernelCase("EQ, 4 bands", eq)
let oneBand = EQKernel(bandCount: 1)
oneBand.bands[0].gain = 3
kernelCase("EQ, 1 band", oneBand)
for preset in [ReverbPreset.smallRoom, .largeHall, .cathedral] {
    let reverb = ReverbKernel()
    reverb.preset = preset
    reverb.wetDryMix = 30
    kernelCase("reverb \(preset.rawValue)", reverb)
}
kernelCase("delay 250 ms, 40 % feedback", { let d = DelayKernel(); d.delayTime = 0.25; d.feedback = 40; return d }())
for mode in DistortionMode.allCases {
    let distortion = DistortionKernel()
    distortion.mode = mode
    distortion.preGain = 12
    kernelCase("distortion \(mode.rawValue)", distortion)
}
kernelCase("compressor −20 dB 4:1", DynamicsProcessorKernel())
kernelCase("peak limiter 5 ms look-ahead", { let l = PeakLimiterKernel(); l.preGain = 6; return l }())

// Varispeed: produces `frameCount` frames at rate 1.5 from a looping input.
for quality in [VarispeedKernel.Quality.fastest, .medium] {
    let varispeed = try VarispeedKernel(channelCount: 2, inputBlockSize: blockFrames, quality: quality)
    varispeed.rate = 1.5
    var position = 0
    varispeed.inputProvider = { channels, maximumFrames in
        if position + maximumFrames > frameCount { position = 0 }
        for channel in 0..<2 { channels[channel].update(from: source[channel] + position, count: maximumFrames) }
        position += maximumFrames
        return maximumFrames
    }
    report("varispeed ×1.5 (\(quality))", seconds: time { _ = varispeed.render(into: $0, frameCount: $1) },
           anchor: anchor)
}

// The chain through the engine, with a tone source, and the render path's allocations.
let format = AudioFormat(sampleRate: sampleRate, channelCount: 2)
let chain = try EffectChainSpec(parsing: "eq:lowshelf,120,+3;reverb:large-hall,wet=30;limiter").makeNodes()
let tone = ToneGeneratorNode(frequency: 220, amplitude: 0.8, format: format)
let engine = AudioEngine()
for node in [tone] + chain { engine.attach(node) }
engine.connect([tone] + chain + [engine.mainMixerNode])
try engine.enableManualRenderingMode(format: format, maximumFrameCount: blockFrames)
try engine.start()
for _ in 0..<4 { _ = engine.renderBlock(frameCount: blockFrames) }
seqplay_alloc_count_begin()
let start = now()
for _ in 0..<(frameCount / blockFrames) { _ = engine.renderBlock(frameCount: blockFrames) }
let elapsed = now() - start
let allocations = seqplay_alloc_count_end().allocations
report("engine: tone → eq;reverb;limiter", seconds: elapsed, anchor: anchor)
print("allocations on the render path: \(allocations)")
