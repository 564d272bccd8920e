import FluidSynth
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

    func testFluidSynthErrorsGoToTheSeqplayLogger() {
        LoggingSystem.bootstrap { CollectingLogHandler(label: $0) }
        XCTAssertThrowsError(try Synthesizer(settings: SynthesizerSettings(polyphony: 0)))
        let record = CollectingLogHandler.shared.all.last { $0.label == "seqplay.fluidsynth" }
        XCTAssertEqual(record?.level, .error)
        XCTAssertTrue(record?.message.contains("synth.polyphony") ?? false, "\(String(describing: record?.message))")
    }
}
