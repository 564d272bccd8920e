import AllocationCounter
import Sampler
import MIDICore
import Logging
import XCTest

/// FluidSynth's messages reach seqplay's logging, under `seqplay.fluidsynth`, not stderr.
final class FluidSynthLogTests: XCTestCase {
    /// Keeps every record logged through it.
    final class CollectingLogHandler: LogHandler, @unchecked Sendable {
        struct Record { let label: String; let level: Logger.Level; let message: String }
        static let shared = Records()
        final class Records: @unchecked Sendable {
            private let lock = NSLock()
            private var records: [Record] = []
            func append(_ record: Record) { lock.withLock { records.append(record) } }
            var all: [Record] { lock.withLock { records } }
        }

        let label: String
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        init(label: String) { self.label = label }
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            Self.shared.append(Record(label: label, level: event.level, message: "\(event.message)"))
        }
    }

    /// The logging system can be bootstrapped once per process.
    static let bootstrapped: Void = LoggingSystem.bootstrap { CollectingLogHandler(label: $0) }

    func testFluidSynthErrorsGoToTheSeqplayLogger() {
        _ = Self.bootstrapped
        XCTAssertThrowsError(try Synthesizer(settings: SamplerSettings(polyphony: 0)))
        let record = CollectingLogHandler.shared.all.last { $0.label == "seqplay.fluidsynth" }
        XCTAssertEqual(record?.level, .error)
        XCTAssertTrue(record?.message.contains("synth.polyphony") ?? false, "\(String(describing: record?.message))")
    }

    /// A synthesizer with click.sf2 loaded, once the logging system is bootstrapped, and how many
    /// records were collected before it.
    private func synthesizerWithClickFont() throws -> (synth: Synthesizer, before: Int) {
        _ = Self.bootstrapped
        let font = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../SoundFonts/click.sf2").standardized.path
        let synth = try Synthesizer()
        try synth.loadSoundFont(at: font)
        return (synth, CollectingLogHandler.shared.all.count)
    }

    /// A warning FluidSynth raises on the audio thread (a program the font lacks) is queued without
    /// allocating, and logged once a normal thread forwards the queue.
    func testWarningOnTheRenderThreadIsQueuedWithoutAllocating() throws {
        let (synth, before) = try synthesizerWithClickFont()

        // The warning is raised inside receive(), on the thread that plays the message. (The render
        // that follows a program change is not measured: Debian's libfluidsynth runs an OpenMP region
        // there, and libgomp allocates its thread team for it.)
        // Channel 14, program 113: a warning no other test raises, since each distinct message is logged
        // once per process and all test classes share one process.
        seqplay_alloc_count_begin()
        synth.receive(.programChange(channel: 13, program: 113))
        let counts = seqplay_alloc_count_end()
        XCTAssertEqual(counts.allocations, 0)
        XCTAssertEqual(CollectingLogHandler.shared.all.count, before, "nothing logged on the render thread")

        FluidSynthLog.forwardPendingMessages()
        let warning = CollectingLogHandler.shared.all.dropFirst(before).first { $0.label == FluidSynthLog.label }
        XCTAssertEqual(warning?.level, .warning)
        XCTAssertTrue(warning?.message.contains("channel 13 [bank=0 prog=113]") ?? false, "\(String(describing: warning?.message))")
    }

    /// A warning FluidSynth repeats (a missing instrument on every loop pass) is logged once.
    func testARepeatedWarningIsLoggedOnce() throws {
        let (synth, before) = try synthesizerWithClickFont()
        for _ in 0..<3 {
            synth.receive(.programChange(channel: 1, program: 77))
            FluidSynthLog.forwardPendingMessages()
        }
        let warnings = CollectingLogHandler.shared.all.dropFirst(before).filter { $0.message.contains("prog=77") }
        XCTAssertEqual(warnings.count, 1, "\(warnings.map(\.message))")
    }
}
