import Foundation
import XCTest
import MIDICore
import MIDIFile
import Player
import TestSupport

/// Records what a player sends, with the block boundary it was sent at.
final class RecordingReceiver: MIDIReceiver {
    var received: [(sample: Int64, message: MIDIMessage)] = []
    var currentBlock: Int64 = 0
    func receive(_ message: MIDIMessage) { received.append((currentBlock, message)) }
    var messages: [MIDIMessage] { received.map(\.message) }
}

/// Pulls `player` the way the sampler does: before each 64-frame block, events before its middle.
func render(_ player: MusicPlayer, from start: Int64 = 0, until end: Int64? = nil, into receiver: RecordingReceiver = RecordingReceiver()) -> RecordingReceiver {
    for block in stride(from: start, through: end ?? player.durationInSamples + 64, by: 64) {
        receiver.currentBlock = block
        player.deliverEvents(before: block + 32, to: receiver)
    }
    return receiver
}


func on(_ tick: Int64, _ channel: UInt8, _ note: UInt8, _ velocity: UInt8 = 100) -> TimedEvent {
    TimedEvent(tick: tick, .midi(.noteOn(channel: channel, note: note, velocity: velocity)))
}
func off(_ tick: Int64, _ channel: UInt8, _ note: UInt8) -> TimedEvent {
    TimedEvent(tick: tick, .midi(.noteOff(channel: channel, note: note, velocity: 0)))
}
func cc(_ tick: Int64, _ channel: UInt8, _ controller: UInt8, _ value: UInt8) -> TimedEvent {
    TimedEvent(tick: tick, .midi(.controlChange(channel: channel, controller: controller, value: value)))
}
func endOfTrack(_ tick: Int64) -> TimedEvent { TimedEvent(tick: tick, .meta(.endOfTrack)) }

final class MusicPlayerExactnessTests: XCTestCase {
    /// 5000 random tempo changes in a conductor track, 3000 controller events at irregular ticks in
    /// another: every event arrives within 32 samples of its exact time, computed here independently
    /// with Decimal arithmetic (Σ ticks × µs-per-quarter, over ppq × 10⁶ × rate).
    func testEveryEventLandsAtTheNearestBlockBoundary() throws {
        for rate in [1.0, 1.5, 0.7] {
            var random = SeededGenerator(seed: 2024)
            let ppq: Int64 = 383, sampleRate: Int64 = 44_100
            var tempos: [(tick: Int64, microseconds: Int64)] = []
            var tick: Int64 = 0
            for _ in 0..<5000 {
                tempos.append((tick, Int64.random(in: 150_000...1_500_000, using: &random)))
                tick += Int64.random(in: 1...300, using: &random)
            }
            var ticks = Set<Int64>()
            while ticks.count < 3000 { ticks.insert(Int64.random(in: 0..<tick, using: &random)) }
            let eventTicks = ticks.sorted()
            let conductor = MusicTrack(events: tempos.map { TimedEvent(tick: $0.tick, .meta(.tempo(microsecondsPerQuarter: UInt32($0.microseconds)))) } + [endOfTrack(tick)])
            let controllers = MusicTrack(events: eventTicks.enumerated().map { cc($0.element, UInt8($0.offset % 16), 7, UInt8($0.offset % 128)) } + [endOfTrack(tick)])
            let sequence = MusicSequence(format: 1, division: .ticksPerQuarter(UInt16(ppq)), tracks: [conductor, controllers])
            let player = try MusicPlayer(sequence: sequence, sampleRate: Int(sampleRate), options: SongOptions(rate: rate))
            let received = render(player).received
            XCTAssertEqual(received.count, eventTicks.count)

            let denominator = Decimal(ppq) * 1_000_000 * Decimal(rate) // rate is exact in Decimal for these values
            var numerator: Int64 = 0, segment = 0, segmentTick: Int64 = 0
            var maxError = Decimal(0)
            for (index, eventTick) in eventTicks.enumerated() {
                while segment + 1 < tempos.count && tempos[segment + 1].tick <= eventTick {
                    numerator += (tempos[segment + 1].tick - segmentTick) * tempos[segment].microseconds
                    segment += 1
                    segmentTick = tempos[segment].tick
                }
                let exact = Decimal(numerator + (eventTick - segmentTick) * tempos[segment].microseconds) * Decimal(sampleRate) / denominator
                let error = abs(Decimal(received[index].sample) - exact)
                maxError = max(maxError, error)
                XCTAssertLessThanOrEqual(error, 32, "event \(index) at tick \(eventTick), rate \(rate)")
            }
            // The errors are real distances to unquantised times, not zero by construction.
            XCTAssertGreaterThan(maxError, 16)
            let exactEnd = Decimal(numerator + (tick - segmentTick) * tempos[segment].microseconds) * Decimal(sampleRate) / denominator
            XCTAssertLessThanOrEqual(abs(Decimal(player.durationInSamples) - exactEnd), 0.5)
        }
    }
}
