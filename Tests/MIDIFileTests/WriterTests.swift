import Foundation
import MIDICore
import MIDIFile
import Testing

/// The writer's bytes, running status, End of Track placement and refusals.
@Suite struct WriterTests {
    private let sequence = MusicSequence(format: 0, division: .ticksPerQuarter(96), tracks: [MusicTrack(events: [
        TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
        TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 60, velocity: 100))),
        TimedEvent(tick: 200, .midi(.noteOn(channel: 0, note: 60, velocity: 0))),
        TimedEvent(tick: 200, .midi(.timingClock)),
        TimedEvent(tick: 200, .midi(.noteOn(channel: 0, note: 62, velocity: 100))),
        TimedEvent(tick: 210, .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7])),
    ])])

    @Test func writesRunningStatusOnlyBetweenChannelMessages() throws {
        let track: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,
                              0x00, 0x90, 0x3C, 0x64,
                              0x81, 0x48, 0x3C, 0x00,           // 200 ticks, running status
                              0x00, 0xF7, 0x01, 0xF8,           // escape: cancels running status
                              0x00, 0x90, 0x3E, 0x64,
                              0x0A, 0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7,
                              0x00, 0xFF, 0x2F, 0x00]
        let expected = SMFBytes.header(format: 0, tracks: 1) + SMFBytes.track(track)
        #expect(try MIDIFileWriter.write(sequence, runningStatus: true) == expected)
        let explicit = try MIDIFileWriter.write(sequence, runningStatus: false)
        #expect(explicit.count == expected.count + 1)
        #expect(try MIDIFileReader.read(bytes: explicit, name: "x", mode: .strict).sequence == RoundTripTests.asWritten(sequence))
    }

    @Test func endOfTrackIsWrittenOnceAndLast() throws {
        var early = sequence
        early.tracks[0].events.insert(TimedEvent(tick: 0, .meta(.endOfTrack)), at: 0)
        let read = try MIDIFileReader.read(bytes: try MIDIFileWriter.write(early), name: "x", mode: .strict)
        #expect(read.sequence.tracks[0].events.filter { $0.event == .meta(.endOfTrack) }.count == 1)
        #expect(read.sequence.tracks[0].events.last == TimedEvent(tick: 210, .meta(.endOfTrack)))
    }

    @Test func refusesWhatAFileCannotHold() {
        var backwards = sequence
        backwards.tracks[0].events.append(TimedEvent(tick: 5, .midi(.stop)))
        #expect(throws: MIDIFileWriteError.eventsOutOfOrder(track: 0, event: 6)) { try MIDIFileWriter.write(backwards) }
        var farApart = sequence
        farApart.tracks[0].events.append(TimedEvent(tick: 210 + 0x1000_0000, .midi(.stop)))
        #expect(throws: MIDIFileWriteError.valueTooLarge(track: 0, event: 6)) { try MIDIFileWriter.write(farApart) }
        #expect(throws: MIDIFileWriteError.unsupportedFormat(3)) { try MIDIFileWriter.write(MusicSequence(format: 3)) }
        #expect(throws: MIDIFileWriteError.invalidDivision(.ticksPerQuarter(0))) {
            try MIDIFileWriter.write(MusicSequence(division: .ticksPerQuarter(0)))
        }
    }

    @Test func writesFilesThatReadBack() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString).mid").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try MIDIFileWriter.write(sequence, to: path)
        #expect(try MIDIFileReader.read(contentsOf: path, mode: .strict).sequence == RoundTripTests.asWritten(sequence))
        #expect(throws: MIDIFileWriteError.self) { try MIDIFileWriter.write(sequence, to: "/nonexistent-dir/x.mid") }
    }
}
