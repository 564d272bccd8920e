import XCTest
import MIDIFile
import TestSupport


final class TempoMapTests: XCTestCase {
    private func tempo(_ tick: Int64, _ microseconds: UInt32) -> TimedEvent {
        TimedEvent(tick: tick, .meta(.tempo(microsecondsPerQuarter: microseconds)))
    }

    private func timeSignature(_ tick: Int64, _ numerator: UInt8, _ power: UInt8) -> TimedEvent {
        TimedEvent(tick: tick, .meta(.timeSignature(numerator: numerator, denominatorPower: power, clocksPerClick: 24, thirtySecondsPerQuarter: 8)))
    }

    private func endOfTrack(_ tick: Int64) -> TimedEvent { TimedEvent(tick: tick, .meta(.endOfTrack)) }

    func testDefaultTempoIs120BeatsPerMinute() {
        let map = TempoMap(sequence: MusicSequence(division: .ticksPerQuarter(480), tracks: [MusicTrack(events: [endOfTrack(1920)])]))
        XCTAssertEqual(map.seconds(atTick: 480), 0.5)
        XCTAssertEqual(map.sampleTime(ofTick: 480, sampleRate: 44_100), 22_050)
        XCTAssertEqual(map.durationInSeconds, 2)
        XCTAssertEqual(map.tempoRange, 120...120)
        XCTAssertEqual(map.time(atTick: 1), ExactTime(microseconds: 1041, remainder: 320, denominator: 480))
    }

    /// 5000 random tempo changes at irregular ticks: every time and sample index equals the value from
    /// an independent whole-number computation (Σ ticks × µs-per-quarter, then one division).
    func testFiveThousandTempoChangesDoNotDrift() {
        var random = SeededGenerator(seed: 42)
        let ppq: Int64 = 96
        var events: [TimedEvent] = []
        var tick: Int64 = 0
        for _ in 0..<5000 {
            events.append(tempo(tick, UInt32.random(in: 200_000...2_000_000, using: &random)))
            tick += Int64.random(in: 1...997, using: &random)
        }
        events.append(endOfTrack(tick))
        let map = TempoMap(sequence: MusicSequence(division: .ticksPerQuarter(UInt16(ppq)), tracks: [MusicTrack(events: events)]))

        for _ in 0..<2000 {
            let probe = Int64.random(in: 0...tick, using: &random)
            // µs × ppq, summed over every segment up to `probe`.
            var numerator: Int64 = 0
            for (index, event) in events.dropLast().enumerated() {
                guard case .meta(.tempo(let microseconds)) = event.event, event.tick < probe else { break }
                let segmentEnd = index + 1 < events.count - 1 ? min(events[index + 1].tick, probe) : probe
                numerator += (segmentEnd - event.tick) * Int64(microseconds)
            }
            XCTAssertEqual(map.time(atTick: probe), ExactTime(microseconds: numerator / ppq, remainder: numerator % ppq, denominator: ppq))
            // Nearest sample at 48 kHz: floor((N × 48000 + D/2) / D) with D = ppq × 10⁶.
            let denominator = ppq * 1_000_000
            XCTAssertEqual(map.sampleTime(ofTick: probe, sampleRate: 48_000), (numerator * 48_000 + denominator / 2) / denominator)
        }
    }

    func testTempoEventsInAnyTrackOfAFormat1FileCount() {
        let conductor = MusicTrack(events: [endOfTrack(0)])
        let melody = MusicTrack(events: [tempo(960, 1_000_000), endOfTrack(1920)])
        let late = MusicTrack(events: [tempo(960, 250_000), endOfTrack(1920)])
        let map = TempoMap(sequence: MusicSequence(division: .ticksPerQuarter(480), tracks: [conductor, melody, late]))
        // Two quarters at 120 BPM, then the later track's tempo (240 BPM) wins at tick 960.
        XCTAssertEqual(map.tempoChanges, [TempoChange(tick: 0, microsecondsPerQuarter: 500_000), TempoChange(tick: 960, microsecondsPerQuarter: 250_000)])
        XCTAssertEqual(map.seconds(atTick: 1920), 1.5)
        XCTAssertEqual(map.tempoRange, 120...240)
    }

    func testFormat2PatternsHaveTheirOwnMaps() {
        let first = MusicTrack(events: [tempo(0, 1_000_000), endOfTrack(480)])
        let second = MusicTrack(events: [endOfTrack(480)])
        let sequence = MusicSequence(format: 2, division: .ticksPerQuarter(480), tracks: [first, second])
        XCTAssertEqual(TempoMap(sequence: sequence, track: 0).seconds(atTick: 480), 1)
        XCTAssertEqual(TempoMap(sequence: sequence, track: 1).seconds(atTick: 480), 0.5)
    }

    func testSMPTEDivisionIgnoresTempo() {
        let track = MusicTrack(events: [tempo(0, 1_000_000), endOfTrack(2000)])
        let map = TempoMap(sequence: MusicSequence(division: .smpte(framesPerSecond: 25, ticksPerFrame: 40), tracks: [track]))
        XCTAssertEqual(map.seconds(atTick: 1000), 1)
        XCTAssertEqual(map.durationInSeconds, 2)
        XCTAssertNil(map.tempoRange)
        XCTAssertEqual(map.sampleTime(ofTick: 1, sampleRate: 44_100), 44) // 44.1 samples per tick

        // 29.97 drop-frame: 30 frames last 1.001 s exactly.
        let dropFrame = TempoMap(sequence: MusicSequence(division: .smpte(framesPerSecond: 29, ticksPerFrame: 80), tracks: [track]))
        XCTAssertEqual(dropFrame.time(atTick: 2400), ExactTime(microseconds: 1_001_000, denominator: 240))
        XCTAssertEqual(dropFrame.sampleTime(ofTick: 2400 * 1000, sampleRate: 48_000), 48_048_000)
    }

    func testSecondsToTickFindsTheFirstTickAtOrAfter() {
        let track = MusicTrack(events: [tempo(960, 1_000_000), endOfTrack(4000)])
        let map = TempoMap(sequence: MusicSequence(division: .ticksPerQuarter(480), tracks: [track]))
        XCTAssertEqual(map.tick(atSeconds: 0), 0)
        XCTAssertEqual(map.tick(atSeconds: 0.5), 480)
        XCTAssertEqual(map.tick(atSeconds: 0.5001), 481)
        XCTAssertEqual(map.tick(atSeconds: 1), 960)
        XCTAssertEqual(map.tick(atSeconds: 2), 1440) // 1 s more at 60 BPM = one quarter
        var random = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            let seconds = Double.random(in: 0...5, using: &random)
            let tick = map.tick(atSeconds: seconds)
            XCTAssertGreaterThanOrEqual(map.seconds(atTick: tick), seconds - 1e-9)
            XCTAssertLessThan(map.seconds(atTick: tick - 1), seconds)
        }
    }

    func testBarBeatTickFollowsTimeSignatures() {
        // 4/4 for two bars, 3/4 from tick 3840, 6/8 from tick 3840 + 2 × 1440, then 5/4 mid-bar.
        let sixEight = 3840 + 2 * 1440
        let track = MusicTrack(events: [timeSignature(3840, 3, 2), timeSignature(Int64(sixEight), 6, 3),
                                        timeSignature(Int64(sixEight + 1440 + 720), 5, 2), endOfTrack(20_000)])
        let map = TempoMap(sequence: MusicSequence(division: .ticksPerQuarter(480), tracks: [track]))
        XCTAssertEqual(map.barBeatTick(atTick: 0).description, "1:1:0")
        XCTAssertEqual(map.barBeatTick(atTick: 1920 + 480 + 240).description, "2:2:240")
        XCTAssertEqual(map.barBeatTick(atTick: 3840).description, "3:1:0")
        XCTAssertEqual(map.barBeatTick(atTick: 3840 + 1440).description, "4:1:0")
        XCTAssertEqual(map.barBeatTick(atTick: Int64(sixEight + 240 * 5 + 100)).description, "5:6:100")
        // The 5/4 change half-way through bar 6 starts bar 7.
        XCTAssertEqual(map.barBeatTick(atTick: Int64(sixEight + 1440 + 720)).description, "7:1:0")
        XCTAssertEqual(map.timeSignatures.map(\.denominator), [4, 4, 8, 4])
        for tick in stride(from: Int64(0), to: 20_000, by: 37) {
            XCTAssertEqual(map.tick(at: map.barBeatTick(atTick: tick)), tick, "tick \(tick)")
        }
        XCTAssertEqual(BarBeatTick("12:3:240"), BarBeatTick(bar: 12, beat: 3, tick: 240))
        XCTAssertEqual(BarBeatTick("5"), BarBeatTick(bar: 5))
        XCTAssertNil(BarBeatTick("0:1"))
        XCTAssertNil(BarBeatTick("1:x"))
    }

    func testDurationInBarsAndKeySignatures() {
        let track = MusicTrack(events: [
            TimedEvent(tick: 0, .meta(.keySignature(sharps: -3, minor: false))),
            TimedEvent(tick: 1920, .meta(.keySignature(sharps: 3, minor: true))),
            endOfTrack(1920 * 3 + 960),
        ])
        let map = TempoMap(sequence: MusicSequence(division: .ticksPerQuarter(480), tracks: [track]))
        XCTAssertEqual(map.durationInBars, 3.5)
        XCTAssertEqual(map.keySignatures.map(\.name), ["E♭ major", "F♯ minor"])
        XCTAssertEqual(map.keySignatures.map(\.tick), [0, 1920])
    }

    func testSpeedScalesSampleTimes() {
        let time = ExactTime(microseconds: 1_000_000)
        XCTAssertEqual(time.sampleIndex(sampleRate: 48_000, speed: (2, 1)), 24_000)
        XCTAssertEqual(time.sampleIndex(sampleRate: 48_000, speed: (2, 3)), 72_000)
        let third = ExactTime(microseconds: 0, remainder: 1, denominator: 3) // 1/3 µs
        XCTAssertEqual(ExactTime(microseconds: 31, remainder: 1, denominator: 3).sampleIndex(sampleRate: 48_000, rounding: .down), 1)
        XCTAssertEqual(third.sampleIndex(sampleRate: 48_000, rounding: .up), 1)
        XCTAssertEqual(third.sampleIndex(sampleRate: 48_000, rounding: .down), 0)
    }

    func testHostileValuesSaturateInsteadOfCrashing() {
        let track = MusicTrack(events: [tempo(0, 0xFF_FFFF), tempo(1 << 60, 0), timeSignature(1 << 61, 0, 255), endOfTrack(1 << 62)])
        let map = TempoMap(sequence: MusicSequence(division: .ticksPerQuarter(1), tracks: [track]))
        XCTAssertEqual(map.time(atTick: 1 << 62).microseconds, .max)
        XCTAssertGreaterThanOrEqual(map.sampleTime(ofTick: 1 << 62, sampleRate: 48_000), Int64.max / 1_000_000 * 48_000)
        XCTAssertGreaterThan(map.barBeatTick(atTick: 1 << 62).bar, 1)
        XCTAssertEqual(map.tick(atSeconds: 1e300), .max)
        XCTAssertEqual(map.tempoRange, 60_000_000.0 / 0xFF_FFFF ... 60_000_000.0 / 0xFF_FFFF) // the 0 µs tempo is left out
    }
}
