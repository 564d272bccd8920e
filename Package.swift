// swift-tools-version:6.0
// seqplay: a MIDI sequencer and SoundFont sampler host for Linux.
//
// Modules follow the data flow:
//   MIDICore (MIDI types) → MIDIFile (SMF codec, MusicSequence, TempoMap) → Player (MusicPlayer)
//   → MIDI endpoints (Sampler over FluidSynth) → AudioGraph (engine, mixer, taps) → outputs (AudioFiles)
//   → seqplay (the command-line tool).
// C libraries sit behind thin wrapper modules (C* system libraries, then FluidSynth / SoundFile);
// nothing above those wrappers sees a C pointer.
import PackageDescription

let package = Package(
    name: "seqplay",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "seqplay", targets: ["seqplay"]),
        .library(name: "SeqplayKit", targets: ["MIDICore", "MIDIFile"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
    ],
    targets: [
        // C libraries (system packages installed by Scripts/setup).
        .systemLibrary(name: "CFluidSynth", pkgConfig: "fluidsynth", providers: [.apt(["libfluidsynth-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),

        // MIDI messages and the endpoint protocols every layer speaks.
        .target(name: "MIDICore"),
        // Standard MIDI Files: the bounds-checked codec, the sequence model and the tempo map.
        .target(name: "MIDIFile", dependencies: ["MIDICore"]),

        // Thin Swift wrappers over the C libraries.
        .target(name: "FluidSynth", dependencies: [
            "CFluidSynth", "MIDICore", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "AudioFiles", dependencies: ["CSndFile"]),
        // The audio graph: engine, nodes, mixer, taps; the one render path for offline and real-time output.
        .target(name: "AudioGraph", dependencies: [.product(name: "Atomics", package: "swift-atomics")]),
        // Counts malloc-family calls per thread (interposes malloc). Tests and benchmarks only, never the product.
        .target(name: "AllocationCounter"),
        // Times the SMF reader for Benchmarks/smf-load.sh (not a user-facing tool).
        .executableTarget(name: "smf-bench", dependencies: ["MIDIFile"], path: "Benchmarks/smf-bench"),

        // Plays a sequence into a sampler at exact sample times.
        .target(name: "Player", dependencies: [
            "MIDICore", "MIDIFile",
            .product(name: "Atomics", package: "swift-atomics"),
        ]),

        // FluidSynth as a node of the audio graph and a MIDI endpoint.
        .target(name: "Sampler", dependencies: ["FluidSynth", "MIDICore", "AudioGraph"]),

        // Offline rendering of a song: sequence → player → sampler → mixer → audio file.
        .target(name: "Rendering", dependencies: ["MIDIFile", "Player", "Sampler", "FluidSynth", "AudioGraph", "AudioFiles"]),

        // The command-line tool.
        .executableTarget(name: "seqplay", dependencies: [
            "MIDICore", "MIDIFile", "Player", "AudioFiles", "Rendering",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Signal measurements shared by the audio tests.
        .target(name: "AudioTestSupport", path: "Tests/AudioTestSupport"),
        .testTarget(name: "FluidSynthTests", dependencies: [
            "FluidSynth", "MIDICore", "AudioTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "AudioFilesTests", dependencies: ["AudioFiles"]),
        .testTarget(name: "AudioGraphTests", dependencies: ["AudioGraph", "AllocationCounter"]),
        .testTarget(name: "SamplerTests", dependencies: ["Sampler", "AudioGraph", "MIDICore", "AudioTestSupport", "AllocationCounter"]),

        // Benchmarks (run by the scripts in Benchmarks/).
        .executableTarget(name: "RenderBenchmark", dependencies: [
            "Rendering", "AudioFiles", "MIDIFile", "RenderTestSupport", "AllocationCounter",
        ], path: "Benchmarks/RenderBenchmark"),
        .executableTarget(name: "AudioGraphBenchmark", dependencies: ["AudioGraph", "AllocationCounter"],
                          path: "Benchmarks/AudioGraphBenchmark"),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDICore", "MIDIFile"]),
        .testTarget(name: "PlayerTests", dependencies: ["MIDICore", "MIDIFile", "Player"]),
        // Runs the built seqplay binary.
        // Songs and measurements shared by the render tests and the render benchmark.
        .target(name: "RenderTestSupport", dependencies: ["MIDICore", "MIDIFile"], path: "Tests/RenderTestSupport"),
        // Renders in-process and runs the built seqplay binary.
        .testTarget(name: "RenderTests", dependencies: [
            "seqplay", "Rendering", "Player", "AudioFiles", "MIDIFile", "MIDICore", "RenderTestSupport", "AudioTestSupport",
        ]),
        .testTarget(name: "SeqplayTests", dependencies: ["seqplay", "MIDICore", "MIDIFile"]),
    ]
)
