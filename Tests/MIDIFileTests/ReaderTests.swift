import MIDICore
import MIDIFile
import Testing

/// The reader's decoding, repairs and errors, on small files built in the test.
@Suite struct ReaderTests {
    private func read(_ bytes: [UInt8], mode: MIDIFileReader.Mode = .lenient) throws -> MIDIFileReadResult {
        try MIDIFileReader.read(bytes: bytes, name: "song.mid", mode: mode)
    }

    private func reasons(_ result: MIDIFileReadResult) -> [MIDIFileIssue.Reason] { result.warnings.map(\.reason) }

    @Test func errorsNameFileTrackByteAndReason() {
        let bytes = SMFBytes.header(tracks: 1) + SMFBytes.track([0x00, 0x3C, 0x64] + SMFBytes.endOfTrack)
        #expect(throws: MIDIFileIssue(file: "song.mid", track: 0, offset: 0x17, reason: .runningStatusWithoutStatus)) {
            try read(bytes)
        }
        let issue = MIDIFileIssue(file: "song.mid", track: 2, offset: 0x1F3A, reason: .runningStatusWithoutStatus)
        #expect(issue.description == "song.mid: track 2, byte 0x1F3A: running status with no previous status byte")
    }

    @Test func decodesChannelMessagesRunningStatusAndMetas() throws {
        let longText = [UInt8](repeating: 0x41, count: 200)
        let body: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,
                             0x00, 0xFF, 0x01, 0x81, 0x48] + longText
            + [0x00, 0x90, 0x3C, 0x64, 0x10, 0x3E, 0x64, 0x81, 0x00, 0xE0, 0x00, 0x40, 0x00, 0xC5, 0x07]
            + SMFBytes.endOfTrack
        let result = try read(SMFBytes.header(tracks: 1) + SMFBytes.track(body), mode: .strict)
        #expect(result.sequence.tracks[0].events == [
            TimedEvent(tick: 0, .meta(.tempo(microsecondsPerQuarter: 500_000))),
            TimedEvent(tick: 0, .meta(.text(.text, longText))),
            TimedEvent(tick: 0, .midi(.noteOn(channel: 0, note: 60, velocity: 100))),
            TimedEvent(tick: 16, .midi(.noteOn(channel: 0, note: 62, velocity: 100))),
            TimedEvent(tick: 144, .midi(.pitchBend(channel: 0, value: 8192))),
            TimedEvent(tick: 144, .midi(.programChange(channel: 5, program: 7))),
            TimedEvent(tick: 144, .meta(.endOfTrack)),
        ])
    }

    @Test func runningStatusAfterAMetaIsKeptWithAWarningOrRefusedWhenStrict() throws {
        let body: [UInt8] = [0x00, 0x90, 0x3C, 0x64, 0x00, 0xFF, 0x06, 0x01, 0x41, 0x10, 0x3C, 0x00] + SMFBytes.endOfTrack
        let bytes = SMFBytes.header(tracks: 1) + SMFBytes.track(body)
        let result = try read(bytes)
        #expect(result.sequence.tracks[0].events[2] == TimedEvent(tick: 16, .midi(.noteOn(channel: 0, note: 60, velocity: 0))))
        #expect(result.warnings == [MIDIFileIssue(file: "song.mid", track: 0, offset: 0x20, reason: .runningStatusAfterNonChannelEvent)])
        #expect(throws: MIDIFileIssue.self) { try read(bytes, mode: .strict) }
    }

    @Test func missingEndOfTrackAndTruncatedEventAreRepaired() throws {
        let body = SMFBytes.note + [0x00, 0x90, 0x3E]  // cut off inside a note on
        let result = try read(SMFBytes.header(tracks: 1) + SMFBytes.track(body))
        #expect(result.sequence.tracks[0].events.count == 2)
        #expect(reasons(result) == [.truncatedEvent, .missingEndOfTrack])
        #expect(result.warnings[0].offset == 22 + SMFBytes.note.count)
    }

    @Test func chunkLengthShortOfEndOfTrackReadsOnToIt() throws {
        let body = SMFBytes.note + SMFBytes.note + SMFBytes.endOfTrack
        let result = try read(SMFBytes.header(tracks: 1) + SMFBytes.track(body, declaredLength: 6))
        #expect(result.sequence.tracks[0].events.count == 5)
        #expect(reasons(result) == [.chunkLengthUndershoots(declared: 6, actual: body.count)])
    }

    @Test func chunkLengthRunningIntoTheNextTrackIsRepaired() throws {
        let first = SMFBytes.note + SMFBytes.endOfTrack
        let bytes = SMFBytes.header(tracks: 2) + SMFBytes.track(first, declaredLength: 30)
            + SMFBytes.track(SMFBytes.note + SMFBytes.endOfTrack)
        let result = try read(bytes)
        #expect(result.sequence.tracks.map(\.events.count) == [3, 3])
        #expect(reasons(result) == [.chunkLengthOvershoots(declared: 30, actual: first.count)])
    }

    @Test func lengthsPastTheEndOfTheFileAndTrackCountsAreRepaired() throws {
        let bytes = SMFBytes.header(tracks: 65535) + SMFBytes.track(SMFBytes.note + SMFBytes.endOfTrack, declaredLength: 0xFFFF_FFFF)
        let result = try read(bytes)
        #expect(result.sequence.tracks.count == 1)
        #expect(reasons(result) == [.chunkPastEndOfFile(declared: 0xFFFF_FFFF, available: 12),
                                    .trackCountMismatch(declared: 65535, found: 1)])
    }

    @Test func runningStatusAtATrackStartTakesThePreviousTracksStatus() throws {
        let bytes = SMFBytes.header(tracks: 2) + SMFBytes.track(SMFBytes.note + SMFBytes.endOfTrack)
            + SMFBytes.track([0x00, 0x3C, 0x64] + SMFBytes.endOfTrack)
        let result = try read(bytes)
        #expect(result.sequence.tracks[1].events[0].event == .midi(.noteOff(channel: 0, note: 60, velocity: 100)))
        #expect(reasons(result) == [.runningStatusAtTrackStart])
    }

    @Test func sysExContinuationsAndEscapes() throws {
        let body: [UInt8] = [0x00, 0xF0, 0x03, 0x43, 0x12, 0x00, 0x10, 0xF7, 0x02, 0x10, 0xF7,
                             0x00, 0xF7, 0x02, 0xF3, 0x01, 0x00, 0xF7, 0x01, 0xF8] + SMFBytes.endOfTrack
        let events = try read(SMFBytes.header(tracks: 1) + SMFBytes.track(body), mode: .strict).sequence.tracks[0].events
        #expect(events.map(\.event) == [.sysEx([0x43, 0x12, 0x00]), .escape([0x10, 0xF7]), .midi(.songSelect(1)),
                                        .midi(.timingClock), .meta(.endOfTrack)])
        #expect(events.map(\.tick) == [0, 16, 16, 16, 16])
    }

    @Test func metasOfTheWrongLengthAreKeptRaw() throws {
        let body: [UInt8] = [0x00, 0xFF, 0x51, 0x02, 0x07, 0xA1] + SMFBytes.endOfTrack
        let bytes = SMFBytes.header(tracks: 1) + SMFBytes.track(body)
        let result = try read(bytes)
        #expect(result.sequence.tracks[0].events[0].event == .meta(.raw(type: 0x51, data: [0x07, 0xA1])))
        #expect(reasons(result) == [.metaLengthInvalid(type: 0x51, length: 2)])
    }

    /// Values a meta event can hold but no song means (tempo 0, 0 beats, 1/2^255 notes) are kept
    /// with a warning, and refused by strict reading.
    @Test(arguments: [
        ([0xFF, 0x51, 0x03, 0x00, 0x00, 0x00], MIDIFileIssue.Reason.zeroTempo),
        ([0xFF, 0x58, 0x04, 0x04, 0xFF, 0x18, 0x08], .timeSignatureOutOfRange(numerator: 4, denominatorPower: 255)),
        ([0xFF, 0x58, 0x04, 0x00, 0x02, 0x18, 0x08], .timeSignatureOutOfRange(numerator: 0, denominatorPower: 2)),
    ] as [([UInt8], MIDIFileIssue.Reason)])
    func metaValuesNoSongMeansAreWarnedAbout(meta: [UInt8], reason: MIDIFileIssue.Reason) throws {
        let bytes = SMFBytes.header(tracks: 1) + SMFBytes.track([0x00] + meta + SMFBytes.note + SMFBytes.endOfTrack)
        #expect(reasons(try read(bytes)) == [reason])
        #expect(throws: MIDIFileIssue(file: "song.mid", track: 0, offset: 0x16, reason: reason)) {
            try read(bytes, mode: .strict)
        }
    }

    @Test func formatTwoSMPTEAndRIFFWrappedFilesRead() throws {
        let smf = SMFBytes.header(format: 2, tracks: 2, division: 0xE728)  // 25 fps, 40 ticks per frame
            + SMFBytes.track(SMFBytes.note + SMFBytes.endOfTrack) + SMFBytes.track(SMFBytes.endOfTrack)
        let riff = SMFBytes.riffChunk("data", smf)
        let rmid = SMFBytes.riffChunk("RIFF", Array("RMID".utf8) + riff)
        for bytes in [smf, rmid] {
            let result = try read(bytes, mode: .strict)
            #expect(result.sequence.format == 2)
            #expect(result.sequence.division == .smpte(framesPerSecond: 25, ticksPerFrame: 40))
            #expect(result.sequence.tracks.map(\.events.count) == [3, 1])
        }
    }

    @Test func unknownChunksAreSkippedAndTrailingBytesWarned() throws {
        let bytes = SMFBytes.header(tracks: 1) + SMFBytes.chunk("XFIH", [1, 2, 3]) + SMFBytes.track(SMFBytes.note + SMFBytes.endOfTrack)
        #expect(try read(bytes, mode: .strict).sequence.tracks.map(\.events.count) == [3])
        #expect(try reasons(read(bytes + [0x2A])) == [.trailingBytes(count: 1)])
    }

    @Test func hostileLengthsAndQuantitiesFailCleanly() {
        let header = SMFBytes.header(tracks: 1)
        #expect(throws: MIDIFileIssue.self) { try read(header + SMFBytes.track([0x80, 0x80, 0x80, 0x80, 0x00, 0x90, 0x3C, 0x64])) }
        #expect(throws: MIDIFileIssue(file: "song.mid", track: 0, offset: 0x17, reason: .undefinedStatus(0xF4))) {
            try read(header + SMFBytes.track([0x00, 0xF4] + SMFBytes.endOfTrack))
        }
        #expect(throws: MIDIFileIssue(file: "song.mid", track: nil, offset: 8, reason: .unsupportedFormat(3))) {
            try read(SMFBytes.header(format: 3, tracks: 1) + SMFBytes.track(SMFBytes.endOfTrack))
        }
        #expect(throws: MIDIFileIssue(file: "song.mid", track: nil, offset: 0, reason: .notAMIDIFile)) { try read(Array("RIFX".utf8)) }
    }

    @Test func largestDeltasAddUpWithoutOverflow() throws {
        let maxDelta: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F]
        var body: [UInt8] = []
        for _ in 0..<1000 { body += maxDelta + [0xFF, 0x01, 0x00] }
        let events = try read(SMFBytes.header(tracks: 1) + SMFBytes.track(body + SMFBytes.endOfTrack)).sequence.tracks[0].events
        let expected: Int64 = 1000 * 0x0FFF_FFFF
        #expect(events.last?.tick == expected)
    }

    /// Track chunks whose declared lengths all fall short, chained through bytes that decode as events
    /// to the end of the file: reading on past each short length must not make the read quadratic.
    @Test func shortTrackLengthsCannotMakeTheReadQuadratic() throws {
        let filler = [UInt8](repeating: 0x40, count: 32)
        let unit = Array("MTrk".utf8) + [0, 0, 0, 0] + [1, 2, 3, 4] + [0, 0, 0, UInt8(filler.count)] + filler
        let first = SMFBytes.track([0x00, 0x90, 0x3C, 0x64])
        let bytes = SMFBytes.header(tracks: 1) + first + Array([[UInt8]](repeating: unit, count: 5000).joined())
        let start = ContinuousClock.now
        let result = try read(bytes)
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(result.sequence.tracks.count == 5001)
    }
}
