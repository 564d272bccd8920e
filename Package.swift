// swift-tools-version:6.0
// seqplay: a MIDI sequencer and SoundFont sampler host for Linux.
//
// Modules follow the data flow:
//   (RealtimeSupport: clock, scheduling and queue for the real-time threads)
//   (OutputFiles: where every output file's bytes go, and what is refused)
//   MIDICore (MIDI types) → MIDIFile (SMF codec, MusicSequence, TempoMap) → Player (MusicPlayer)
//   → MIDI endpoints (Sampler over FluidSynth) → AudioGraph (engine, nodes, mixer, taps; Effects)
//   → outputs (AudioFiles, AudioGraphFiles, ALSA + AudioOutput) → Rendering (a song to audio) → seqplay (the command-line tool).
// C libraries sit behind thin wrapper modules (C* system libraries, then FluidSynth / AudioFiles);
// nothing above those wrappers sees a C pointer.
import PackageDescription

let atomics = Target.Dependency.product(name: "Atomics", package: "swift-atomics")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

/// The library modules, all of them re-exported by SeqplayKit. A new library module goes here and into
/// Sources/SeqplayKit/SeqplayKit.swift.
let libraryModules = [
    "RealtimeSupport", "MIDICore", "MIDIFile", "Player", "SoundFontFile", "FluidSynth", "Sampler", "AudioGraph",
    "Effects", "AudioFiles", "AudioGraphFiles", "AudioOutput", "ALSA", "ALSAAudio", "Rendering",
    "SequencerRecording", "LiveInput", "LiveSampler", "NetworkMIDI", "MediaLibrary", "Drawing", "Pictures",
    "SeqplayVersion", "CheckedConversion", "SongSessions", "Loudness", "BatchRendering",
    "JACK", "JACKDriver", "OutputFiles", "Control", "OSC", "ControlHTTP", "LV2",
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

        // What the real-time threads share: the monotonic clock, SCHED_FIFO, a lock-free queue.
        .target(name: "RealtimeSupport", dependencies: [atomics]),
        // Floating point to integer conversions that cannot trap, for every number from outside.
        .target(name: "CheckedConversion"),
        // The version of seqplay, defined once for the command line and the library.
        .target(name: "SeqplayVersion"),
        // Where an output file's bytes go (stdout, a device or FIFO written through, a file replaced
        // atomically) and what is refused; every file seqplay writes goes through it.
        .target(name: "OutputFiles"),
        // MIDI messages and the endpoint protocols every layer speaks.
        .target(name: "MIDICore"),
        // Standard MIDI Files: the bounds-checked codec, the sequence model and the tempo map.
        .target(name: "MIDIFile", dependencies: ["MIDICore", "OutputFiles"]),
        // Plays a sequence into a sampler at exact sample times.
        .target(name: "Player", dependencies: ["MIDICore", "MIDIFile", "RealtimeSupport", atomics]),

        // Thin Swift wrappers over the C libraries.
        // SoundFont 2/3 files read by bounds-checked code: RIFF structure, header, presets, zones, samples.
        .target(name: "SoundFontFile"),
        .target(name: "FluidSynth", dependencies: ["CFluidSynth", "FluidSynthOpenMP", "MIDICore", "RealtimeSupport", "SoundFontFile", logging, atomics]),
        // Runs FluidSynth's one-thread OpenMP regions inline, so rendering with reverb/chorus does not allocate.
        .target(name: "FluidSynthOpenMP"),
        .target(name: "AudioFiles", dependencies: ["CSndFile", "OutputFiles"]),
        // LV2 plugins through lilv: the world, plugin descriptions, instances with the host features.
        .target(name: "LV2", dependencies: ["CLilv", "RealtimeSupport", logging, atomics]),
        // The drivers sit together in Sources/Drivers: each C library's thin wrapper beside the driver built on it.
        // The thin alsa-lib wrapper: PCM playback and the sequencer.
        .target(name: "ALSA", dependencies: ["CALSA", "MIDICore", "RealtimeSupport", atomics], path: "Sources/Drivers/ALSA"),
        // The thin libjack wrapper: client, ports, process callback, latency, transport, MIDI events.
        .target(name: "JACK", dependencies: ["CJACK"], path: "Sources/Drivers/JACK"),

        // The audio graph: engine, nodes, mixer, taps; the one render path for offline and real-time output.
        .target(name: "AudioGraph", dependencies: [atomics]),
        // FluidSynth as a node of the audio graph and a MIDI endpoint.
        .target(name: "Sampler", dependencies: ["FluidSynth", "MIDICore", "Player", "AudioGraph", "LV2", "SoundFontFile"]),
        // Effects: DSP kernels (EQ, reverb, delay, distortion, dynamics, limiter, varispeed) and their nodes.
        .target(name: "Effects", dependencies: ["AudioGraph", "CSampleRate", "LV2", atomics]),
        // The graph's file ends: RecorderTap (a tap writing to a file) and AudioPlayerNode.scheduleFile.
        .target(name: "AudioGraphFiles", dependencies: ["AudioGraph", "AudioFiles", atomics]),

        // Real-time output: an AudioEngine played through an audio driver (blocking writes or callbacks), or a clock.
        .target(name: "AudioOutput", dependencies: ["AudioGraph", "RealtimeSupport", atomics]),
        // ALSA as an audio driver: ALSADriver and ALSAOutput.
        .target(name: "ALSAAudio", dependencies: ["ALSA", "AudioOutput", "AudioGraph"], path: "Sources/Drivers/ALSAAudio"),

        // The JACK driver: audio (the engine renders in JACK's process callback, into output ports) and
        // MIDI (midi_in as a live-input producer).
        .target(name: "JACKDriver", dependencies: ["JACK", "AudioOutput", "AudioGraph", "LiveInput", "MIDICore", atomics],
                path: "Sources/Drivers/JACKDriver"),

        // Records what arrives at a sequencer port into a MIDI file (kernel timestamps, pauses cut out).
        .target(name: "SequencerRecording", dependencies: ["ALSA", "MIDICore", "MIDIFile", "OutputFiles"]),

        // Live input: producers' lock-free queues → one clock model and held-note table → what a sampler pulls.
        .target(name: "LiveInput", dependencies: ["MIDICore", "RealtimeSupport", atomics]),
        // Live sampler sessions: ALSA input ports, network sessions and JACK MIDI input as live-input producers →
        // samplers → sound card or file; each network MIDI peer as an ALSA sequencer port (NetworkALSABridge).
        .target(name: "LiveSampler", dependencies: [
            "ALSA", "LiveInput", "MIDICore", "Sampler", "FluidSynth", "SoundFontFile", "RealtimeSupport", "AudioGraph", "AudioGraphFiles",
            "AudioFiles", "AudioOutput", "ALSAAudio", "JACKDriver", "NetworkMIDI", atomics,
        ]),

        // Network MIDI sessions: RTP-MIDI (RFC 6295) with Apple's session protocol over UDP.
        .target(name: "NetworkMIDI", dependencies: ["MIDICore", "RealtimeSupport", "CheckedConversion"]),

        // A song to audio: sequence → player → sampler → effects → mixer → audio file or sound card.
        .target(name: "Rendering", dependencies: [
            "MIDICore", "MIDIFile", "Player", "Sampler", "FluidSynth", "AudioGraph", "AudioFiles", "AudioGraphFiles", "Effects", "AudioOutput", "RealtimeSupport", atomics,
            "CheckedConversion", "LV2",
        ]),

        // Loudness as EBU R128 measures it (the thin libebur128 wrapper).
        .target(name: "Loudness", dependencies: ["AudioFiles", "CEBUR128"]),
        // Many songs at once: input discovery, shards, a pool of workers sharing the fonts, atomic outputs, resume.
        .target(name: "BatchRendering", dependencies: ["Loudness", "Player", "Rendering", "Sampler", "FluidSynth", "AudioGraph", "AudioFiles", "AudioGraphFiles", "MIDIFile", "OutputFiles", "RealtimeSupport", atomics]),
        // Song sessions: a song played to its destinations (`SongDestination`: the sampler, ALSA ports on a
        // kernel queue, network sessions, a JACK MIDI port) together, in step; a song driven by the JACK transport.
        .target(name: "SongSessions", dependencies: [
            "ALSA", "AudioGraph", "AudioOutput", "JACK", "JACKDriver", "LiveSampler", "MIDICore", "MIDIFile", "NetworkMIDI", "Player",
            "Rendering", "RealtimeSupport", atomics,
        ]),
        // The control model of a running sound module (live, serve): state, typed commands, change events,
        // the state file; the faces over it (FluidSynth shell over TCP, OSC over UDP through liblo).
        .target(name: "Control", dependencies: ["Sampler", "FluidSynth", "SoundFontFile", "MIDICore", "OutputFiles", "OSC"]),
        // The thin liblo wrapper: an OSC server on a UDP port, messages in and out.
        .target(name: "OSC", dependencies: ["CLiblo", "RealtimeSupport"]),
        // The HTTP face of the control model: a JSON API, a WebSocket of events, levels and notes, and the web
        // page, served by FlyingFox (HTTP and WebSocket over BSD sockets and Swift concurrency; no NIO).
        .target(name: "ControlHTTP", dependencies: [
            "Control", "AudioGraph", "MIDICore", "RealtimeSupport", "Sampler", "FluidSynth", "MediaLibrary", "OutputFiles",
            .product(name: "FlyingFox", package: "FlyingFox"), .product(name: "FlyingSocks", package: "FlyingFox"),
        ]),
        // The library index: songs and SoundFonts in SQLite (GRDB), scanned on every core, and its query language.
        .target(name: "MediaLibrary", dependencies: ["MIDIFile", "SoundFontFile", "OutputFiles", "RealtimeSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // Pictures: the thin cairo wrapper, then piano rolls and waveforms drawn with it.
        .target(name: "Drawing", dependencies: ["CCairo", "OutputFiles"]),
        .target(name: "Pictures", dependencies: ["Drawing", "MIDIFile", "AudioFiles"]),

        // Every library module in one import.
        .target(name: "SeqplayKit", dependencies: libraryModules.map { .target(name: $0) }),

        // The command-line tool.
        .executableTarget(name: "seqplay", dependencies: [
            "MIDICore", "MIDIFile", "Player", "AudioFiles", "Rendering", "FluidSynth", "ALSA",
            "NetworkMIDI", "Sampler", "AudioGraph", "AudioGraphFiles", "AudioOutput", "ALSAAudio", "Effects", "SequencerRecording", "LiveSampler",
            "RealtimeSupport", "BatchRendering", "SongSessions", .product(name: "ArgumentParser", package: "swift-argument-parser"), logging, atomics,
            "SoundFontFile", "MediaLibrary", "Drawing", "Pictures",
            "CheckedConversion", "SeqplayVersion", "OutputFiles",
            "JACK", "JACKDriver", "Control", "ControlHTTP", "LV2",
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

        .testTarget(name: "CheckedConversionTests", dependencies: ["CheckedConversion"]),
        .testTarget(name: "MIDIFileTests", dependencies: ["MIDICore", "MIDIFile", "TestSupport"]),
        .testTarget(name: "PlayerTests", dependencies: ["MIDICore", "MIDIFile", "Player", "RealtimeSupport", "TestSupport", "AllocationCounter"]),
        .testTarget(name: "FluidSynthTests", dependencies: ["FluidSynth", "MIDICore", "AudioTestSupport", "AllocationCounter", logging]),
        .testTarget(name: "AudioFilesTests", dependencies: ["AudioFiles", "OutputFiles", "TestSupport"]),
        .testTarget(name: "OutputFilesTests", dependencies: ["OutputFiles", "TestSupport"]),
        .testTarget(name: "AudioGraphTests", dependencies: ["AudioGraph", "AllocationCounter"]),
        .testTarget(name: "AudioGraphFilesTests", dependencies: ["AudioGraphFiles", "AudioGraph", "AudioFiles", "TestSupport"]),
        .testTarget(name: "SamplerTests", dependencies: [
            "Sampler", "AudioGraph", "MIDICore", "AudioTestSupport", "RenderTestSupport", "AllocationCounter", "LockCounter", "CFluidSynth",
        ]),
        // seqplay's own SoundFont engine (Sources/Sampler/Engine) against libfluidsynth and the fonts.
        .testTarget(name: "SamplerEngineTests", dependencies: ["Sampler", "SoundFontFile", "AudioTestSupport", "AllocationCounter", "TestSupport"]),
        .testTarget(name: "EffectsTests", dependencies: ["Effects", "AudioGraph", "AllocationCounter"]),
        // Renders in-process and runs the built seqplay binary.
        .testTarget(name: "RenderTests", dependencies: [
            "seqplay", "Rendering", "Player", "AudioFiles", "MIDIFile", "MIDICore", "RenderTestSupport", "AudioTestSupport",
            "Effects", "AudioGraph", "AudioOutput", "AllocationCounter", "TestSupport", atomics,
        ]),
        .testTarget(name: "AudioOutputTests", dependencies: ["AudioOutput", "ALSAAudio", "ALSA", "AudioGraph", "AudioFiles", "AllocationCounter", "TestSupport"]),
        .testTarget(name: "LiveInputTests", dependencies: ["LiveInput", "MIDICore", "RealtimeSupport", "TestSupport", "AllocationCounter"]),
        .testTarget(name: "LiveSamplerTests", dependencies: [
            "LiveSampler", "ALSA", "MIDICore", "RealtimeSupport", "NetworkMIDI", "AudioFiles", "LV2", "Sampler", "TestSupport",
        ]),
        .testTarget(name: "SequencerRecordingTests", dependencies: ["SequencerRecording", "MIDICore", "MIDIFile"]),
        // ALSA tests run where /dev/snd/seq exists (Scripts/test-alsa runs them in the alsa-vm) and skip elsewhere.
        .testTarget(name: "SequencerTests", dependencies: ["ALSA", "SongSessions", "MIDICore", "MIDIFile", "Player", "RealtimeSupport", "AllocationCounter"]),
        .testTarget(name: "NetworkMIDITests", dependencies: ["NetworkMIDI", "MIDICore", "RealtimeSupport", "TestSupport"]),
        .testTarget(name: "BatchRenderingTests", dependencies: ["seqplay", "BatchRendering", "RenderTestSupport", "Rendering", "AudioFiles", "MIDIFile", "MIDICore", "TestSupport"]),
        .testTarget(name: "SoundFontFileTests", dependencies: ["SoundFontFile", "FluidSynth"]),
        // The sound module's control model over a sampler rendered in-process, its state file and its faces' parsers.
        .testTarget(name: "ControlTests", dependencies: ["Control", "OSC", "Sampler", "FluidSynth", "AudioGraph", "TestSupport"]),
        .testTarget(name: "MediaLibraryTests", dependencies: ["MediaLibrary", "MIDIFile", "MIDICore", "SoundFontFile", "TestSupport"]),
        .testTarget(name: "PicturesTests", dependencies: ["Pictures", "Drawing", "MIDIFile", "MIDICore", "AudioFiles", "TestSupport"]),
        // JACK tests start their own jackd (Scripts/test-jack runs them) and skip where it is not installed.
        .testTarget(name: "JACKTests", dependencies: [
            "JACK", "JACKDriver", "JACKTestSupport", "AudioOutput", "AudioGraph", "AllocationCounter", atomics,
        ]),
        // Following the JACK transport allocates nothing on the process thread (Scripts/test-jack).
        .testTarget(name: "JACKSongTransportTests", dependencies: [
            "JACK", "JACKDriver", "SongSessions", "JACKTestSupport", "AudioOutput", "AudioGraph", "Rendering", "MIDIFile", "AllocationCounter",
        ]),
        // JACK MIDI in and out against real servers (Scripts/test-jack).
        .testTarget(name: "JACKMIDITests", dependencies: [
            "JACKDriver", "SongSessions", "JACK", "JACKTestSupport", "LiveSampler", "Sampler", "FluidSynth", "RenderTestSupport",
            "AllocationCounter", "seqplay", "LiveInput", "MIDICore", "MIDIFile", "Player", "Rendering", "TestSupport", atomics,
        ]),
        // seqplay --audio-driver jack recorded by jack_rec, compared with the offline render (Scripts/test-jack).
        .testTarget(name: "JACKCLITests", dependencies: ["seqplay", "AudioFiles", "AudioTestSupport", "JACKTestSupport", "JACK", "MIDIFile", "TestSupport"]),
        // The umbrella module as a user imports it.
        .testTarget(name: "SeqplayKitTests", dependencies: ["SeqplayKit"]),
        // The HTTP face against the built seqplay: curl, headless chromium (Scripts/web-page-check.py), a network namespace.
        .testTarget(name: "ControlHTTPTests", dependencies: [
            "seqplay", "ControlHTTP", "TestSupport", "RenderTestSupport", "AllocationCounter", "AudioGraph", "AudioFiles", "Sampler", "FluidSynth", "MIDICore",
        ]),
        // LV2 hosting against the installed bundles and lilv's own host (lv2apply).
        .testTarget(name: "LV2Tests", dependencies: [
            "LV2", "Effects", "Sampler", "AudioGraph", "AudioFiles", "MIDICore", "AllocationCounter", "LockCounter", "TestSupport", "RenderTestSupport",
            "seqplay", "Rendering", "MIDIFile",
        ]),
        .testTarget(name: "SeqplayTests", dependencies: ["seqplay", "MIDICore", "MIDIFile", "Player", "Rendering", "AudioFiles", "TestSupport"]),

        // Benchmarks (run by the scripts in Benchmarks/) and the network interop probe (Scripts/test-network-interop).
        .executableTarget(name: "network-midi-probe", dependencies: ["NetworkMIDI", "MIDICore", "RealtimeSupport"]),
        .executableTarget(name: "smf-bench", dependencies: ["MIDIFile"], path: "Benchmarks/smf-bench"),
        .executableTarget(name: "AudioGraphBenchmark", dependencies: ["AudioGraph", "AllocationCounter"],
                          path: "Benchmarks/AudioGraphBenchmark"),
        .executableTarget(name: "GraphOverheadBenchmark", dependencies: ["Sampler", "FluidSynth", "AudioGraph", "MIDICore", "RenderTestSupport"],
                          path: "Benchmarks/GraphOverheadBenchmark"),
        .executableTarget(name: "EffectsBenchmark", dependencies: ["Effects", "AudioGraph", "AllocationCounter"],
                          path: "Benchmarks/EffectsBenchmark"),
        .executableTarget(name: "RenderBenchmark", dependencies: [
            "Rendering", "AudioFiles", "MIDIFile", "RenderTestSupport", "AllocationCounter",
        ], path: "Benchmarks/RenderBenchmark"),
    ]
)
