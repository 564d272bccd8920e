// swift-tools-version:6.0
// seqplay: a MIDI sequencer and SoundFont sampler host for Linux.
//
// Twenty library modules, each one concept, following the data flow (Docs/architecture.md has the picture):
//   SeqplaySupport (real-time clock, threads and queues; output files; checked conversions; the version)
//   MIDICore (MIDI types) → MIDIFile (SMF codec, MusicSequence, TempoMap) → Player (MusicPlayer)
//   → Sampler (FluidSynth as graph nodes; fonts read by SoundFontFile) / LV2 (plugin instruments and effects)
//   → AudioGraph (engine, nodes, mixer, taps; the real-time output core) with Effects
//   → outputs (AudioFiles; the ALSA and JACK drivers) → Rendering (songs and batches to audio)
//   → Sessions (songs to ports, live sampler, recording) → Control (+ ControlHTTP) → seqplay (the command line).
// Beside them: LiveInput, NetworkMIDI, MediaLibrary, Pictures.
// C libraries sit behind thin wrappers inside those modules (the C* system libraries); nothing above a wrapper
// sees a C pointer.
import PackageDescription

let atomics = Target.Dependency.product(name: "Atomics", package: "swift-atomics")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

/// The library modules, all of them re-exported by SeqplayKit. A new library module goes here and into
/// Sources/SeqplayKit/SeqplayKit.swift.
let libraryModules = [
    "SeqplaySupport", "MIDICore", "MIDIFile", "Player", "SoundFontFile", "Sampler", "AudioGraph", "AudioFiles", "Effects",
    "LV2", "ALSA", "JACK", "LiveInput", "NetworkMIDI", "Rendering", "Sessions", "Control", "ControlHTTP",
    "MediaLibrary", "Pictures",
]

/// The modules a user may pick alone, as products of their own beside SeqplayKit: MIDI types, the
/// SMF codec with its sequence and tempo map, the player, the SoundFont file reader, the audio graph
/// and audio files. Every other module is reached through SeqplayKit; its API is checked for breaks
/// there (Scripts/check-api).
let standaloneModules = ["MIDICore", "MIDIFile", "Player", "SoundFontFile", "AudioGraph", "AudioFiles"]

let package = Package(
    name: "seqplay",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "seqplay", targets: ["seqplay"]),
        // SeqplayKit re-exports every library module: `import SeqplayKit`.
        .library(name: "SeqplayKit", targets: ["SeqplayKit"]),
    ] + standaloneModules.map { .library(name: $0, targets: [$0]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // C libraries (Debian packages installed by Scripts/setup).
        .systemLibrary(name: "CFluidSynth", pkgConfig: "fluidsynth", providers: [.apt(["libfluidsynth-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CEBUR128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CJACK", pkgConfig: "jack", providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(name: "CLiblo", pkgConfig: "liblo", providers: [.apt(["liblo-dev"])]),
        .systemLibrary(name: "CLilv", pkgConfig: "lilv-0", providers: [.apt(["liblilv-dev"])]),

        // What every layer shares: the real-time threads' monotonic clock, SCHED_FIFO, threads and lock-free
        // queues (Realtime/); where an output file's bytes go and what is refused (OutputFiles/); floating point to
        // integer conversions that cannot trap; the version of seqplay, defined once.
        .target(name: "SeqplaySupport", dependencies: [atomics]),
        // MIDI messages and the endpoint protocols every layer speaks.
        .target(name: "MIDICore"),
        // Standard MIDI Files: the bounds-checked codec, the sequence model and the tempo map.
        .target(name: "MIDIFile", dependencies: ["MIDICore", "SeqplaySupport"]),
        // Plays a sequence into a sampler at exact sample times.
        .target(name: "Player", dependencies: ["MIDICore", "MIDIFile", "SeqplaySupport", atomics]),
        // SoundFont 2/3 files read by bounds-checked code: RIFF structure, header, presets, zones, samples.
        .target(name: "SoundFontFile"),

        // The audio graph: engine, nodes, mixer, taps; the one render path for offline and real-time output, and
        // the real-time output core (Output/: an engine played through an audio driver, blocking or by callback).
        .target(name: "AudioGraph", dependencies: ["SeqplaySupport", atomics]),
        // The sampler: the thin FluidSynth wrapper (FluidSynth/: synthesizers, presets, voice limits, shared fonts)
        // and SamplerNode, FluidSynth as a node of the audio graph and a MIDI endpoint.
        .target(name: "Sampler", dependencies: [
            "CFluidSynth", "FluidSynthOpenMP", "EngineKernels", "MIDICore", "Player", "AudioGraph", "AudioFiles", "SeqplaySupport", "SoundFontFile",
            logging, atomics,
        ]),
        // The sample loops of seqplay's own SoundFont engine (Sampler/Engine): AVX2/FMA kernels chosen at run time, portable ones beside them.
        .target(name: "EngineKernels"),
        // Runs FluidSynth's one-thread OpenMP regions inline, so rendering with reverb/chorus does not allocate.
        .target(name: "FluidSynthOpenMP"),
        // Audio files through libsndfile, and the graph's file ends (Graph/: RecorderTap, AudioPlayerNode.scheduleFile).
        .target(name: "AudioFiles", dependencies: ["CSndFile", "SeqplaySupport", "AudioGraph", atomics]),
        // Effects: DSP kernels (EQ, reverb, delay, distortion, dynamics, limiter, varispeed) and their nodes.
        .target(name: "Effects", dependencies: ["AudioGraph", "CSampleRate", atomics]),
        // LV2 plugins through lilv: the world, plugin descriptions, instances with the host features; LV2
        // instruments and effects as graph nodes (Nodes/); the `--fx` chain of built-in and LV2 effects (EffectChains/).
        .target(name: "LV2", dependencies: ["CLilv", "AudioGraph", "Effects", "MIDICore", "SeqplaySupport", logging, atomics]),

        // The drivers sit together in Sources/Drivers: each C library's thin wrapper with the driver built on it.
        // ALSA: the thin alsa-lib wrapper (PCM playback and the sequencer) and ALSA as an audio driver (Audio/).
        .target(name: "ALSA", dependencies: ["CALSA", "MIDICore", "AudioGraph", "SeqplaySupport", atomics], path: "Sources/Drivers/ALSA"),
        // JACK: the thin libjack wrapper (client, ports, process callback, latency, transport, MIDI events) and the
        // driver (Driver/): audio rendered in JACK's process callback, MIDI in as a live-input producer.
        .target(name: "JACK", dependencies: ["CJACK", "AudioGraph", "LiveInput", "MIDICore", "SeqplaySupport", atomics],
                path: "Sources/Drivers/JACK"),

        // Live input: producers' lock-free queues → one clock model and held-note table → what a sampler pulls.
        .target(name: "LiveInput", dependencies: ["MIDICore", "SeqplaySupport", atomics]),
        // Network MIDI sessions: RTP-MIDI (RFC 6295) with Apple's session protocol over UDP.
        .target(name: "NetworkMIDI", dependencies: ["MIDICore", "SeqplaySupport"]),

        // A song to audio: sequence → player → sampler → effects → mixer → audio file or sound card; many songs at
        // once (Batches/: input discovery, shards, a pool of workers sharing the fonts, resume); loudness as EBU
        // R128 measures it (Loudness/, the thin libebur128 wrapper).
        .target(name: "Rendering", dependencies: [
            "MIDICore", "MIDIFile", "Player", "Sampler", "SoundFontFile", "AudioGraph", "AudioFiles", "Effects", "LV2", "SeqplaySupport", "CEBUR128",
            atomics,
        ]),
        // Sessions: a song played to its destinations (the sampler, ALSA ports on a kernel queue, network sessions,
        // a JACK MIDI port) together, in step, or driven by the JACK transport (Songs/); the live sampler: live
        // input from ALSA ports, network sessions and JACK → samplers → sound card or file (LiveSampler/); what
        // arrives at a sequencer port recorded into a MIDI file (Recording/).
        .target(name: "Sessions", dependencies: [
            "ALSA", "AudioGraph", "AudioFiles", "JACK", "LiveInput", "MIDICore", "MIDIFile", "NetworkMIDI", "Player",
            "Rendering", "Sampler", "SoundFontFile", "SeqplaySupport", "LV2", "Control", "MediaLibrary", atomics,
        ]),
        // The control model of a running sound module (live, serve): state, typed commands, change events,
        // the state file; the faces over it (FluidSynth shell over TCP, OSC over UDP through liblo in OSC/); songs
        // on request from the media library or song directories (LiveSongPlayer).
        .target(name: "Control", dependencies: ["Sampler", "SoundFontFile", "MIDICore", "MIDIFile", "Player", "MediaLibrary", "SeqplaySupport", "CLiblo"]),
        // The HTTP face of the control model: a JSON API, a WebSocket of events, levels and notes, and the web
        // page, served by FlyingFox (HTTP and WebSocket over BSD sockets and Swift concurrency; no NIO).
        .target(name: "ControlHTTP", dependencies: [
            "Control", "AudioGraph", "MIDICore", "SeqplaySupport", "Sampler", "MediaLibrary",
            .product(name: "FlyingFox", package: "FlyingFox"), .product(name: "FlyingSocks", package: "FlyingFox"),
        ]),
        // The library index: songs and SoundFonts in SQLite (GRDB), scanned on every core, and its query language.
        .target(name: "MediaLibrary", dependencies: ["MIDIFile", "SoundFontFile", "SeqplaySupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // Pictures: the thin cairo wrapper (Drawing/), then piano rolls and waveforms drawn with it.
        .target(name: "Pictures", dependencies: ["CCairo", "SeqplaySupport", "MIDIFile", "AudioFiles"]),

        // Every library module in one import.
        .target(name: "SeqplayKit", dependencies: libraryModules.map { .target(name: $0) }),

        // The command-line tool.
        .executableTarget(name: "seqplay", dependencies: [
            "MIDICore", "MIDIFile", "Player", "AudioFiles", "Rendering", "Sampler", "ALSA",
            "NetworkMIDI", "AudioGraph", "Effects", "Sessions", "SeqplaySupport", .product(name: "ArgumentParser", package: "swift-argument-parser"), logging, atomics,
            "SoundFontFile", "MediaLibrary", "Pictures", "JACK", "Control", "ControlHTTP", "LV2", "SeqplayKit",
        ]),

        // Counts malloc-family calls per thread (interposes malloc). Tests and benchmarks only, never the product.
        .target(name: "AllocationCounter"),
        // Counts lock calls per thread (interposes pthread, semaphore and GLib locks). Tests only.
        .target(name: "LockCounter"),
        // Signal measurements shared by the audio tests; songs (and a fixed list of events as a scheduled source)
        // shared by the render, sampler and LV2 tests and the benchmarks.
        .target(name: "AudioTestSupport", path: "Tests/AudioTestSupport"),
        .target(name: "RenderTestSupport", dependencies: ["MIDICore", "MIDIFile", "TestSupport"], path: "Tests/RenderTestSupport"),
        // A seeded random number generator, so stress and fuzz tests repeat exactly; the one process runner
        // (ChildProcess, runCommand), the path of the built seqplay (seqplayBinary) and a TCP line client (LineClient).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // A real JACK server (jackd, dummy driver) per test, jackd2's command-line tools, and the base of JACK test classes.
        .target(name: "JACKTestSupport", dependencies: ["JACK", "TestSupport", atomics], path: "Tests/JACKTestSupport"),

        .testTarget(name: "CheckedConversionTests", dependencies: ["SeqplaySupport"]),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDICore", "MIDIFile", "TestSupport"]),
        .testTarget(name: "PlayerTests", dependencies: ["MIDICore", "MIDIFile", "Player", "SeqplaySupport", "TestSupport", "AllocationCounter"]),
        .testTarget(name: "FluidSynthTests", dependencies: ["Sampler", "SoundFontFile", "MIDICore", "AudioTestSupport", "AllocationCounter", logging]),
        .testTarget(name: "AudioFilesTests", dependencies: ["AudioFiles", "SeqplaySupport", "TestSupport"]),
        .testTarget(name: "OutputFilesTests", dependencies: ["SeqplaySupport", "TestSupport"]),
        .testTarget(name: "AudioGraphTests", dependencies: ["AudioGraph", "AllocationCounter"]),
        .testTarget(name: "AudioGraphFilesTests", dependencies: ["AudioFiles", "AudioGraph", "TestSupport"]),
        // seqplay's own SoundFont engine (Sources/Sampler/Engine) against libfluidsynth and the fonts.
        .testTarget(name: "SamplerEngineTests", dependencies: ["Sampler", "SoundFontFile", "MIDIFile", "AudioFiles", "AudioTestSupport", "AllocationCounter", "TestSupport"]),
        .testTarget(name: "SamplerTests", dependencies: [
            "Sampler", "AudioGraph", "MIDICore", "AudioTestSupport", "RenderTestSupport", "AllocationCounter", "LockCounter", "CFluidSynth",
        ]),
        .testTarget(name: "EffectsTests", dependencies: ["Effects", "LV2", "AudioGraph", "AllocationCounter"]),
        // Renders in-process and runs the built seqplay binary.
        .testTarget(name: "RenderTests", dependencies: [
            "seqplay", "Rendering", "Player", "AudioFiles", "MIDIFile", "MIDICore", "RenderTestSupport", "AudioTestSupport",
            "Effects", "LV2", "AudioGraph", "AllocationCounter", "TestSupport", atomics,
        ]),
        .testTarget(name: "AudioOutputTests", dependencies: ["AudioGraph", "ALSA", "AudioFiles", "AllocationCounter", "TestSupport"]),
        .testTarget(name: "LiveInputTests", dependencies: ["LiveInput", "MIDICore", "SeqplaySupport", "TestSupport", "AllocationCounter"]),
        .testTarget(name: "LiveSamplerTests", dependencies: [
            "Sessions", "AudioGraph", "ALSA", "LiveInput", "MIDICore", "SeqplaySupport", "NetworkMIDI", "AudioFiles", "LV2", "Sampler", "TestSupport",
            "Control", "ControlHTTP",
        ]),
        .testTarget(name: "SequencerRecordingTests", dependencies: ["Sessions", "MIDICore", "MIDIFile"]),
        // ALSA tests run where /dev/snd/seq exists (Scripts/test-alsa runs them in the alsa-vm) and skip elsewhere.
        .testTarget(name: "SequencerTests", dependencies: ["ALSA", "Sessions", "MIDICore", "MIDIFile", "Player", "SeqplaySupport", "AllocationCounter"]),
        .testTarget(name: "NetworkMIDITests", dependencies: ["NetworkMIDI", "MIDICore", "SeqplaySupport", "TestSupport"]),
        .testTarget(name: "BatchRenderingTests", dependencies: ["seqplay", "Rendering", "RenderTestSupport", "AudioFiles", "MIDIFile", "MIDICore", "TestSupport"]),
        .testTarget(name: "SoundFontFileTests", dependencies: ["SoundFontFile", "Sampler"]),
        // The sound module's control model over a sampler rendered in-process, its state file and its faces' parsers.
        .testTarget(name: "ControlTests", dependencies: ["Control", "Sampler", "AudioGraph", "TestSupport"]),
        .testTarget(name: "MediaLibraryTests", dependencies: ["MediaLibrary", "MIDIFile", "MIDICore", "SoundFontFile", "TestSupport"]),
        .testTarget(name: "PicturesTests", dependencies: ["Pictures", "MIDIFile", "MIDICore", "AudioFiles", "TestSupport"]),
        // JACK tests start their own jackd (Scripts/test-jack runs them) and skip where it is not installed.
        .testTarget(name: "JACKTests", dependencies: [
            "JACK", "JACKTestSupport", "AudioGraph", "AllocationCounter", atomics,
        ]),
        // Following the JACK transport allocates nothing on the process thread (Scripts/test-jack).
        .testTarget(name: "JACKSongTransportTests", dependencies: [
            "JACK", "Sessions", "JACKTestSupport", "AudioGraph", "Rendering", "MIDIFile", "AllocationCounter",
        ]),
        // JACK MIDI in and out against real servers (Scripts/test-jack).
        .testTarget(name: "JACKMIDITests", dependencies: [
            "JACK", "Sessions", "JACKTestSupport", "Sampler", "RenderTestSupport",
            "AllocationCounter", "seqplay", "LiveInput", "MIDICore", "MIDIFile", "Player", "Rendering", "TestSupport", atomics,
        ]),
        // seqplay --audio-driver jack recorded by jack_rec, compared with the offline render (Scripts/test-jack).
        .testTarget(name: "JACKCLITests", dependencies: ["seqplay", "AudioFiles", "AudioTestSupport", "JACKTestSupport", "JACK", "MIDIFile", "TestSupport"]),
        // The umbrella module as a user imports it.
        .testTarget(name: "SeqplayKitTests", dependencies: ["SeqplayKit"]),
        // The HTTP face against the built seqplay: curl, headless chromium (Scripts/web-page-check.py), a network namespace.
        .testTarget(name: "ControlHTTPTests", dependencies: [
            "seqplay", "ControlHTTP", "TestSupport", "RenderTestSupport", "AllocationCounter", "AudioGraph", "AudioFiles", "Sampler", "MIDICore",
        ]),
        // LV2 hosting against the installed bundles and lilv's own host (lv2apply).
        .testTarget(name: "LV2Tests", dependencies: [
            "LV2", "Effects", "Sampler", "AudioGraph", "AudioFiles", "MIDICore", "AllocationCounter", "LockCounter", "TestSupport", "RenderTestSupport",
            "seqplay", "Rendering", "MIDIFile",
        ]),
        .testTarget(name: "SeqplayTests", dependencies: ["seqplay", "MIDICore", "MIDIFile", "Player", "Rendering", "AudioFiles", "TestSupport"]),

        // Benchmarks (run by the scripts in Benchmarks/) and the network interop probe (Scripts/test-network-interop).
        .executableTarget(name: "network-midi-probe", dependencies: ["NetworkMIDI", "MIDICore", "SeqplaySupport"]),
        .executableTarget(name: "smf-bench", dependencies: ["MIDIFile"], path: "Benchmarks/smf-bench"),
        .executableTarget(name: "AudioGraphBenchmark", dependencies: ["AudioGraph", "AllocationCounter"],
                          path: "Benchmarks/AudioGraphBenchmark"),
        .executableTarget(name: "GraphOverheadBenchmark", dependencies: ["Sampler", "AudioGraph", "MIDICore", "RenderTestSupport"],
                          path: "Benchmarks/GraphOverheadBenchmark"),
        .executableTarget(name: "EffectsBenchmark", dependencies: ["Effects", "LV2", "AudioGraph", "AllocationCounter"],
                          path: "Benchmarks/EffectsBenchmark"),
        .executableTarget(name: "RenderBenchmark", dependencies: [
            "Rendering", "AudioFiles", "MIDIFile", "RenderTestSupport", "AllocationCounter",
        ], path: "Benchmarks/RenderBenchmark"),
    ]
)
