import AudioFiles
import AudioTestSupport
import Foundation
import JACK
import JACKTestSupport
import MIDIFile
import TestSupport
import XCTest

/// `seqplay SONG -a jack --jack-transport follow|lead` against a real server: jackd2's
/// `jack_transport` starts, locates and stops the song (checked from what seqplay plays at each
/// transport frame), and as leader seqplay's bar:beat:tick and tempo are what other clients see.
final class SeqplayJACKTransportTests: JACKServerTestCase {
    func testJackTransportPlayLocateAndStopPlayTheBarsTheyName() throws {
        // Eight 2-second bars (4/4 at 120 BPM, 96000 frames at 48 kHz), each one organ note of its own pitch.
        let song = scratch.path("bars.mid")
        var events = [TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 16)))]
        for bar in 0..<8 {
            let note = UInt8(59 + 2 * bar)
            events.append(TimedEvent(tick: Int64(bar * 1920), .midi(.noteOn(channel: 0, note: note, velocity: 100))))
            events.append(TimedEvent(tick: Int64(bar * 1920 + 1900), .midi(.noteOff(channel: 0, note: note, velocity: 0))))
        }
        try write(events, endTick: 8 * 1920, to: song)
        let reference = scratch.path("reference.wav")
        XCTAssertEqual(try seqplay([song, "-r", "48000", "--bit-depth", "float", "-o", reference] + font, environment: nil).status, 0)
        let expected = try AudioFileReader(path: reference).readAll()

        let server = try JACKTestServer(blockFrames: 256)
        let recorder = try TransportRecorder(name: "rec", serverName: server.name, capacity: 48_000 * 20)
        let process = try JACKTools.launch(seqplayURL, [song, "-a", "jack", "--jack-transport", "follow",
                                                        "--jack-connect", "^rec:"] + font,
                                           environment: server.environment)
        try waitForPort("seqplay:out_R", server: server)
        usleep(500_000)
        func transport(_ commands: String, then seconds: Double) throws {
            XCTAssertEqual(try JACKTools.run("jack_transport", [], environment: server.environment, input: commands).status, 0)
            usleep(UInt32(seconds * 1_000_000))
        }
        try transport("locate 480000\nplay\n", then: 1.2)   // bar 6
        try transport("locate 288000\n", then: 1.2)         // bar 4, while rolling
        try transport("stop\n", then: 0.5)
        try transport("locate 96000\n", then: 0.3)          // bar 2, while stopped
        try transport("play\n", then: 1.2)
        try transport("stop\n", then: 0.5)
        process.interrupt()
        process.waitUntilExit()
        let message = process.standardErrorText
        XCTAssertEqual(process.terminationStatus, 130, message)
        recorder.client.deactivate()  // the recording stands still from here on

        let runs = recorder.rollingRuns()
        print("JACK transport follow: rolling runs (first frame, cycles) \(runs.map { ($0.frame, $0.cycles.count) })")
        XCTAssertEqual(runs.map(\.frame), [480_000, 288_000, 96_000], "the transport rolls from each located frame")
        let audio = recorder.audio()
        // Silence whenever the transport stands (before the first play, after each stop).
        for cycle in recorder.cycles() where !cycle.rolling {
            let peak = ToneAnalysis.peak(of: audio[0][cycle.recorded..<cycle.recorded + cycle.frames])
            XCTAssertEqual(peak, 0, "seqplay sounds at stopped transport frame \(cycle.frame)")
        }
        for run in runs {
            // What seqplay played at each transport frame is the song's audio at that frame: the capture
            // lines up with the offline render at lag 0, and the bar's pitch is heard.
            let length = min(48_000, run.cycles.reduce(0) { $0 + $1.frames })
            let start = run.cycles[0].recorded
            let match = correlation(expected.map { Array($0[run.frame..<run.frame + length]) },
                                          audio.map { Array($0[start..<start + length]) }, lag: 0)
            let window = 4_800..<9_600
            let heard = ToneAnalysis.dominantFrequency(of: audio[0][start + window.lowerBound..<start + window.upperBound],
                                                       sampleRate: 48_000, lowest: 100, highest: 1_000)
            let song = ToneAnalysis.dominantFrequency(of: expected[0][run.frame + window.lowerBound..<run.frame + window.upperBound],
                                                      sampleRate: 48_000, lowest: 100, highest: 1_000)
            print("JACK transport follow: from frame \(run.frame) (bar \(run.frame / 96_000 + 1)): correlation \(match) "
                  + "with the offline render at the same frames, \(String(format: "%.1f", heard)) Hz heard, "
                  + "\(String(format: "%.1f", song)) Hz in the song")
            XCTAssertGreaterThanOrEqual(match, 0.99, "from frame \(run.frame)")
            XCTAssertEqual(heard, song, accuracy: 1, "from frame \(run.frame)")
        }
    }

    func testAsLeaderTheSongIsTheTimebaseAndStartsTheTransport() throws {
        // 4/4 at 120 BPM for two bars (a tick is 50 frames), then 3/4 at 100 BPM (60 frames), then 6/8.
        let song = scratch.path("metres.mid")
        try write([TimedEvent(tick: 0, .midi(.programChange(channel: 0, program: 0))),
                   TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 60, velocity: 90))),
                   TimedEvent(tick: 480, .midi(.noteOff(channel: 0, note: 60, velocity: 0))),
                   TimedEvent(tick: 3840, .meta(.timeSignature(numerator: 3, denominatorPower: 2, clocksPerClick: 24, thirtySecondsPerQuarter: 8))),
                   TimedEvent(tick: 3840, .meta(.tempo(microsecondsPerQuarter: 600_000))),
                   TimedEvent(tick: 5280, .meta(.timeSignature(numerator: 6, denominatorPower: 3, clocksPerClick: 24, thirtySecondsPerQuarter: 8))),
                   TimedEvent(tick: 6600, .midi(.noteOn(channel: 0, note: 64, velocity: 90))),
                   TimedEvent(tick: 6720, .midi(.noteOff(channel: 0, note: 64, velocity: 0)))],
                  endTick: 6720, to: song)
        let server = try JACKTestServer(blockFrames: 256)
        let observer = try JACKClient(name: "observer", serverName: server.name)
        try observer.activate()
        let process = try JACKTools.launch(seqplayURL, [song, "-a", "jack", "--jack-transport", "lead",
                                                        "--jack-connect", "none"] + font,
                                           environment: server.environment)
        var seen: [Int: JACKPosition] = [:]
        var rolled = false
        while process.isRunning {
            let (state, position) = observer.transportQuery()
            rolled = rolled || state == .rolling
            if position.hasBarBeatTick { seen[position.frame] = position }
            usleep(3_000)
        }
        let message = process.standardErrorText
        XCTAssertEqual(process.terminationStatus, 0, message)
        XCTAssertTrue(rolled, "seqplay started the transport")
        XCTAssertEqual(observer.transportQuery().state, .stopped, "seqplay stops the transport at the song's end")
        let inSong = seen.values.filter { $0.frame < 364_800 }.sorted { $0.frame < $1.frame }
        print("JACK transport lead: \(seen.count) positions seen, \(inSong.count) in the song, "
              + "metres \(Set(inSong.map { "\($0.beatsPerBar)/\($0.beatType)" }).sorted())")
        for metre in [(4, 4), (3, 4), (6, 8)] {
            // Int(exactly:): a server's NaN or infinite metre is no metre, not a trap.
            XCTAssertTrue(inSong.contains { Int(exactly: $0.beatsPerBar) == metre.0 && Int(exactly: $0.beatType) == metre.1 },
                          "no position in \(metre)")
        }
        for position in inSong {
            let want = Self.expectedPosition(atFrame: position.frame)
            let got = [Double(position.bar), Double(position.beat), Double(position.tick), position.barStartTick,
                       Double(position.beatsPerBar), Double(position.beatType), position.ticksPerBeat, position.beatsPerMinute]
            XCTAssertEqual(got, want, "frame \(position.frame): bar, beat, tick, bar start tick, metre, ticks per beat, BPM")
        }
    }

    /// The metres song's position at `frame`, worked out by hand: bars 1-2 in 4/4 at 120 BPM (50
    /// frames a tick), bar 3 in 3/4 and bar 4 in 6/8 at 100 BPM (60 frames a tick); 480 ticks a quarter.
    private static func expectedPosition(atFrame frame: Int) -> [Double] {
        if frame < 192_000 {
            let tick = frame / 50
            return [tick / 1920 + 1, tick % 1920 / 480 + 1, tick % 480, tick / 1920 * 1920, 4, 4, 480, 120].map(Double.init)
        }
        if frame < 278_400 {
            let tick = (frame - 192_000) / 60
            return [3, tick / 480 + 1, tick % 480, 3840, 3, 4, 480, 100].map(Double.init)
        }
        let tick = (frame - 278_400) / 60
        return [4, tick / 240 + 1, tick % 240, 5280, 6, 8, 240, 100].map(Double.init)
    }

    // MARK: - Helpers

    /// Writes a format 0 file, 480 ticks a quarter, of `events` and an End of Track at `endTick`.
    private func write(_ events: [TimedEvent], endTick: Int64, to path: String) throws {
        let track = MusicTrack(events: events + [TimedEvent(tick: endTick, .meta(.endOfTrack))])
        try MIDIFileWriter.write(MusicSequence(format: 0, division: .ticksPerQuarter(480), tracks: [track]), to: path)
    }
}

/// A JACK client that records its two input ports and, for every cycle, the transport's frame and
/// whether it rolled: in synchronous mode it runs after the client it records, in the same cycle,
/// so each recorded frame is paired with the transport frame seqplay played it at.
private final class TransportRecorder: JACKProcessHandler, @unchecked Sendable {
    struct Cycle {
        var frame: Int
        var rolling: Bool
        var frames: Int
        /// Where the cycle's audio starts in the recording.
        var recorded: Int
    }

    let client: JACKClient
    private let ports: [JACKAudioPort]
    private let capacity: Int
    private let channels: [UnsafeMutableBufferPointer<Float>]
    private let log: UnsafeMutableBufferPointer<Cycle>
    private var recorded = 0
    private var logged = 0
    private let lock = NSLock()

    init(name: String, serverName: String, capacity: Int) throws {
        let client = try JACKClient(name: name, serverName: serverName)
        self.client = client
        ports = try (1...2).map { try client.registerAudioPort(named: "in_\($0)", direction: .input) }
        self.capacity = capacity
        channels = (0..<2).map { _ in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity)
            buffer.initialize(repeating: 0)
            return buffer
        }
        log = .allocate(capacity: capacity / 16)
        try client.setProcessHandler(self)
        try client.activate()
    }

    deinit {
        client.close()
        channels.forEach { $0.deallocate() }
        log.deallocate()
    }

    func process(frameCount: Int) -> Bool {
        let (state, position) = client.transportQuery()
        lock.lock()
        defer { lock.unlock() }
        guard recorded + frameCount <= capacity, logged < log.count else { return true }
        for (channel, port) in ports.enumerated() {
            let input = port.buffer(frameCount: frameCount)
            for frame in 0..<frameCount { channels[channel][recorded + frame] = input[frame] }
        }
        log[logged] = Cycle(frame: position.frame, rolling: state == .rolling, frames: frameCount, recorded: recorded)
        logged += 1
        recorded += frameCount
        return true
    }

    func cycles() -> [Cycle] { lock.withLock { Array(log[0..<logged]) } }

    func audio() -> [[Float]] { lock.withLock { channels.map { Array($0[0..<recorded]) } } }

    /// Runs of consecutive rolling cycles: the transport frame each began at, and its cycles.
    func rollingRuns() -> [(frame: Int, cycles: [Cycle])] {
        var runs: [(frame: Int, cycles: [Cycle])] = []
        var previous: Cycle?
        for cycle in cycles() where cycle.rolling {
            if let previous, previous.frame + previous.frames == cycle.frame, previous.recorded + previous.frames == cycle.recorded {
                runs[runs.count - 1].cycles.append(cycle)
            } else {
                runs.append((cycle.frame, [cycle]))
            }
            previous = cycle
        }
        return runs
    }
}
