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

        // The audio graph: engine, nodes, mixer, taps; the one render path for offline and real-time output.
        .target(name: "AudioGraph", dependencies: [.product(name: "Atomics", package: "swift-atomics")]),
        // Counts malloc-family calls per thread (interposes malloc). Tests and benchmarks only, never the product.
        .target(name: "AllocationCounter"),
        // Thin Swift wrapper over alsa-lib (CALSA): PCM playback devices and the MIDI sequencer; nothing above it sees a C pointer.
        .target(name: "ALSA", dependencies: ["CALSA", "MIDICore"]),
        // Real-time output: render thread driving an AudioEngine into an ALSA device or a clock.
        .target(name: "AudioOutput", dependencies: [
            "AudioGraph", "ALSA", .product(name: "Atomics", package: "swift-atomics"),
        ]),

        // Times the SMF reader for Benchmarks/smf-load.sh (not a user-facing tool).
        .executableTarget(name: "smf-bench", dependencies: ["MIDIFile"], path: "Benchmarks/smf-bench"),

        // Plays a sequence into a sampler at exact sample times.
        .target(name: "Player", dependencies: [
            "MIDICore", "MIDIFile",
            .product(name: "Atomics", package: "swift-atomics"),
        ]),

        // Plays a sequence to ALSA sequencer ports on a kernel queue, timed by the exact tempo map.
        .target(name: "SequencerPlayback", dependencies: ["ALSA", "MIDICore", "MIDIFile"]),

        // The command-line tool.
        .executableTarget(name: "seqplay", dependencies: [
            "MIDICore", "MIDIFile", "ALSA", "SequencerPlayback",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .testTarget(name: "AudioGraphTests", dependencies: ["AudioGraph", "AllocationCounter"]),
        .testTarget(name: "AudioOutputTests", dependencies: ["AudioOutput", "ALSA", "AudioGraph", "AllocationCounter"]),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDICore", "MIDIFile"]),
        .testTarget(name: "PlayerTests", dependencies: ["MIDICore", "MIDIFile", "Player"]),
        // Run where /dev/snd/seq exists (Scripts/test-alsa runs them in the alsa-vm); skip elsewhere.
        .testTarget(name: "SequencerTests", dependencies: ["ALSA", "SequencerPlayback", "MIDICore", "MIDIFile", "AllocationCounter"]),
    ]
)
