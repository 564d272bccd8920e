extension SequenceReport {
    /// The report of the MIDI file at `path`, computed while streaming over the file instead of
    /// holding it as a `MusicSequence`: the same report, errors, repairs and warnings as
    /// `SequenceReport(file:sequence:warnings:)` over `MIDIFileReader.read(contentsOf:mode:)`, in memory
    /// that depends on the report's size (tempo and signature changes, texts, tracks), not on the number
    /// of events, plus the file's bytes, read once (`MIDIFileReader.withContents(ofFile:_:)`). The file is named `path` in the report and its issues.
    public init(contentsOf path: String, mode: MIDIFileReader.Mode = .lenient) throws(MIDIFileIssue) {
        let result = try MIDIFileReader.withContents(ofFile: path) { bytes in
            Result { () throws(MIDIFileIssue) in try SequenceReport(file: path, bytes: bytes, mode: mode) }
        }
        self = try result.get()
    }

    /// The report of a MIDI file's `bytes`, streamed as `init(contentsOf:mode:)` streams it; `file`
    /// names the file in the report and its issues.
    ///
    /// It reads the bytes twice with the reader's own decoder. First track chunk by track chunk, as
    /// `MIDIFileReader` reads them (so the same repairs are logged, or thrown in strict mode, in the
    /// same order), keeping each track's summary, its tempo and signature events, its length and where
    /// its events were decoded from. Then with one decoder per track, merged event by event in
    /// playing order (`forEachEventInTickOrder`'s: by tick, then track; format 2 patterns one after
    /// another) for the note counts, markers, lyrics and texts.
    public init(file: String, bytes: UnsafeBufferPointer<UInt8>, mode: MIDIFileReader.Mode = .lenient) throws(MIDIFileIssue) {
        var log = IssueLog(file: file, strict: mode == .strict)
        var chunks: [SMFParser.TrackChunk] = []
        var summaries: [TrackSummary] = []
        var conductor: [MusicTrack] = []
        let header = try SMFParser(bytes: bytes).parse(log: &log, newTrack: { _, _ in ReportTrackFacts() }, endTrack: { facts, chunk in
            chunks.append(chunk)
            summaries.append(facts.summarizer.summary)
            conductor.append(facts.conductorTrack)
        })

        // The tempo map is the sequence's: its tempo and signature events stand where they do in the
        // file, and each track ends at its last event's tick.
        let conductorSequence = MusicSequence(format: header.format, division: header.division, tracks: conductor)
        var playing = PlayingOrderFacts(map: TempoMap(sequence: conductorSequence.concatenatingPatterns()))
        var merge = try PlayingOrderMerge(bytes: bytes, chunks: chunks, offsets: conductorSequence.patternOffsets, file: file)
        while let timed = try merge.next() { playing.add(timed) }
        self.init(file: file, format: header.format, division: header.division, summaries: summaries, playing: playing,
                  warnings: log.warnings.map(\.description))
    }
}

/// What the streaming report keeps of one track chunk's events on the first reading: its summary, its
/// tempo, time and key signature events, and the tick of its last event.
private struct ReportTrackFacts: TrackEventSink {
    var summarizer = TrackSummary.Builder()
    private var conductor: [TimedEvent] = []
    private var lastTick: Int64?

    mutating func add(_ timed: TimedEvent) {
        summarizer.add(timed)
        lastTick = timed.tick
        if case .meta(let meta) = timed.event {
            switch meta {
            case .tempo, .timeSignature, .keySignature: conductor.append(timed)
            default: break
            }
        }
    }

    /// The track's tempo and signature events, then (unless it is empty) an End of Track at its last
    /// event's tick, so that it lasts as long as the track.
    var conductorTrack: MusicTrack {
        MusicTrack(events: conductor + (lastTick.map { [TimedEvent(tick: $0, .meta(.endOfTrack))] } ?? []))
    }
}

/// The events of a file's track chunks merged in playing order, decoded one at a time from the
/// file's bytes: one `TrackDecoder` per track, run as the first reading ran it, and a `TrackMergeHeap`
/// of their next events. Repairs were logged by the first reading and are not logged again.
private struct PlayingOrderMerge {
    private var decoders: [TrackDecoder]
    private let limits: [Int]
    private let offsets: [Int64]
    /// Each track's next event (its tick shifted by the track's offset), nil once the track has ended.
    private var upcoming: [TimedEvent?]
    private var heap: TrackMergeHeap
    private var log: IssueLog

    init(bytes: UnsafeBufferPointer<UInt8>, chunks: [SMFParser.TrackChunk], offsets: [Int64], file: String) throws(MIDIFileIssue) {
        decoders = chunks.map { TrackDecoder(bytes: bytes, track: $0.index, start: $0.start, previousStatus: $0.previousStatus) }
        limits = chunks.map(\.limit)
        self.offsets = offsets
        upcoming = Array(repeating: nil, count: chunks.count)
        log = IssueLog(file: file, strict: false, keepsWarnings: false)
        heap = TrackMergeHeap([])
        var first: [(tick: Int64, track: Int)] = []
        for track in chunks.indices {
            if let timed = try decode(track) { first.append((timed.tick, track)) }
        }
        heap = TrackMergeHeap(first)
    }

    /// The next event in playing order, nil after the last.
    mutating func next() throws(MIDIFileIssue) -> TimedEvent? {
        guard let top = heap.top else { return nil }
        let timed = upcoming[top.track]
        if let following = try decode(top.track) {
            heap.replaceTop(tick: following.tick)
        } else {
            heap.removeTop()
        }
        return timed
    }

    /// Decodes the next event of `track` into `upcoming`, and returns it.
    private mutating func decode(_ track: Int) throws(MIDIFileIssue) -> TimedEvent? {
        switch try decoders[track].next(until: limits[track], log: &log) {
        case .event(var timed):
            timed.tick = timed.tick.saturatingAdd(offsets[track])
            upcoming[track] = timed
            return timed
        case .stopped:
            upcoming[track] = nil
            return nil
        }
    }
}
