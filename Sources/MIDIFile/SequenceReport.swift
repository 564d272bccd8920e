import MIDICore

/// What is in a MIDI file at a glance — format, timing, tempo, signatures, tracks and their programs,
/// notes, markers, lyrics and the reader's repairs — in the shape `seqplay info --json` prints and the
/// media library indexes, so both show the same facts computed once.
public struct SequenceReport: Codable, Equatable, Sendable {
    /// How the file counts time: ticks per quarter, or SMPTE frames per second and ticks per frame.
    public struct Division: Codable, Equatable, Sendable {
        public var ticksPerQuarter: Int?
        public var framesPerSecond: Int?
        public var ticksPerFrame: Int?
    }

    /// How long the song plays, in ticks, seconds (tempo map applied) and bars.
    public struct Duration: Codable, Equatable, Sendable {
        public var ticks: Int64
        public var seconds: Double
        public var bars: Double
    }

    /// The tempos the song plays at, in quarter notes per minute.
    public struct TempoRange: Codable, Equatable, Sendable {
        /// The tempo at tick 0.
        public var initialBPM: Double
        public var minimumBPM: Double
        public var maximumBPM: Double
        /// Tempo changes after the initial tempo.
        public var changes: Int
    }

    /// One track: its names, the channels it plays on and how many notes and events it holds.
    public struct Track: Codable, Equatable, Sendable {
        public var index: Int
        public var name: String?
        public var instrumentName: String?
        /// 1-based, as musicians number MIDI channels.
        public var channels: [Int]
        public var programs: [Program]
        public var notes: Int
        public var events: Int
    }

    /// A program (instrument) a channel selects, with its General MIDI name and family.
    public struct Program: Codable, Equatable, Sendable {
        /// 1-based channel.
        public var channel: Int
        /// 0-based program number.
        public var program: Int
        public var instrument: String
        /// The General MIDI family ("Piano", "Strings"…; "Drums" on channel 10).
        public var family: String

        init(_ use: ProgramUse) {
            channel = use.channel + 1
            program = use.program
            instrument = use.instrument
            family = GeneralMIDI.familyName(program: UInt8(clamping: use.program), channel: UInt8(clamping: use.channel))
        }
    }

    /// The notes of the whole song: how many, their pitch range, how many sound at once at most,
    /// and whether the drum channel (10) plays any.
    public struct Notes: Codable, Equatable, Sendable {
        /// Note-ons with velocity > 0.
        public var count: Int
        /// Lowest and highest key played outside the drum channel (MIDI note numbers), `nil` without such notes.
        public var lowest: Int?
        public var highest: Int?
        /// The most notes held at one time (a note sounds from its note-on to its note-off).
        public var polyphonyPeak: Int
        /// Whether channel 10 plays notes.
        public var drums: Bool
    }

    /// An event at a place in the song: a signature, marker, lyric or text.
    public struct Placed: Codable, Equatable, Sendable {
        public var tick: Int64
        public var position: String
        public var seconds: Double
        public var kind: String?
        public var value: String
    }

    public var file: String
    /// The song's title: its first track's name (where SMF keeps it) without trailing NULs; nil when blank.
    public var title: String?
    public var format: Int
    public var division: Division
    public var duration: Duration
    public var tempo: TempoRange?
    /// Every tempo in effect, from tick 0 on (none for SMPTE-timed files).
    public var tempos: [Tempo]
    public var notes: Notes
    public var tracks: [Track]
    public var timeSignatures: [Placed]
    public var keySignatures: [Placed]
    public var markers: [Placed]
    public var lyrics: [Placed]
    public var texts: [Placed]
    public var warnings: [String]

    /// The report for `sequence` read from `file` with the reader's `warnings`. Format 2 patterns
    /// are timed one after another, as the player plays them.
    public init(file: String, sequence: MusicSequence, warnings: [String]) {
        let timeline = sequence.concatenatingPatterns()
        // The tracks merged in playing order (as `mergedToFormat0()` orders them), read in place.
        var playing = PlayingOrderFacts(map: TempoMap(sequence: timeline))
        timeline.forEachEventInTickOrder { _, _, timed in playing.add(timed) }
        self.init(file: file, format: sequence.format, division: sequence.division, summaries: sequence.trackSummaries,
                  playing: playing, warnings: warnings)
    }

    /// The report from its parts: the tracks' summaries, and the facts of the song's events in
    /// playing order with the tempo map of its timeline (format 2 patterns one after another).
    init(file: String, format: Int, division: MIDIFile.Division, summaries: [TrackSummary], playing: PlayingOrderFacts,
         warnings: [String]) {
        let map = playing.map
        self.file = file
        self.format = format
        switch division {
        case .ticksPerQuarter(let ppq): self.division = Division(ticksPerQuarter: Int(ppq))
        case .smpte(let fps, let ticks): self.division = Division(framesPerSecond: Int(fps), ticksPerFrame: Int(ticks))
        }
        duration = Duration(ticks: map.endTick, seconds: map.durationInSeconds, bars: map.durationInBars)
        tempo = map.tempoRange.map {
            TempoRange(initialBPM: map.tempoChanges.first { $0.microsecondsPerQuarter > 0 }?.beatsPerMinute ?? $0.lowerBound, minimumBPM: $0.lowerBound,
                       maximumBPM: $0.upperBound, changes: map.tempoChanges.count - 1)
        }
        tempos = map.tempoChanges.map { Tempo(placed: playing.placed($0.tick, nil, ""), microsecondsPerQuarter: Int($0.microsecondsPerQuarter)) }
        tracks = summaries.enumerated().map { index, summary in
            Track(index: index, name: summary.name, instrumentName: summary.instrumentName,
                  channels: summary.channels.map { $0 + 1 },
                  programs: summary.programs.map(Program.init),
                  notes: summary.noteCount, events: summary.eventCount)
        }
        let name = tracks.first?.name.map { String($0.reversed().drop { $0 == "\0" }.reversed()) }
        title = name.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        timeSignatures = map.timeSignatures.map { playing.placed($0.tick, nil, "\($0.numerator)/\($0.denominator)") }
        keySignatures = map.keySignatures.map { playing.placed($0.tick, nil, $0.name) }
        notes = playing.notes
        markers = playing.markers
        lyrics = playing.lyrics
        texts = playing.texts
        self.warnings = warnings
    }

    /// What the report learns from a song's events given in playing order (the tracks merged by
    /// tick, then track, then order in the track): the note facts, markers, lyrics and texts, placed
    /// by the song's tempo map.
    struct PlayingOrderFacts {
        let map: TempoMap
        private var counter = NoteCounter()
        private(set) var markers: [Placed] = []
        private(set) var lyrics: [Placed] = []
        private(set) var texts: [Placed] = []

        init(map: TempoMap) {
            self.map = map
        }

        func placed(_ tick: Int64, _ kind: String?, _ value: String) -> Placed {
            Placed(tick: tick, position: map.barBeatTick(atTick: tick).description, seconds: map.seconds(atTick: tick), kind: kind, value: value)
        }

        mutating func add(_ timed: TimedEvent) {
            switch timed.event {
            case .midi(let message):
                counter.add(message, at: timed.tick)
            case .meta(let meta):
                guard case .text(let kind, _) = meta, let text = meta.text else { return }
                switch kind {
                case .marker: markers.append(placed(timed.tick, nil, text))
                case .lyric: lyrics.append(placed(timed.tick, nil, text))
                case .text, .copyright, .cuePoint: texts.append(placed(timed.tick, SequenceReport.name(of: kind), text))
                default: return
                }
            default:
                return
            }
        }

        /// The note facts of the events given so far.
        var notes: Notes {
            var counting = counter
            return counting.finish()
        }
    }

    /// The note facts of a song's channel messages, given in playing order. At one tick, note-offs
    /// end before note-ons start, so repeated notes do not count as overlapping.
    private struct NoteCounter {
        var notes = Notes(count: 0, lowest: nil, highest: nil, polyphonyPeak: 0, drums: false)
        private var held = NotePairing<Void>()
        private var sounding = 0
        /// The note messages at `tick`, not yet counted.
        private var pending: [MIDIMessage] = []
        private var tick: Int64?

        mutating func add(_ message: MIDIMessage, at tick: Int64) {
            if tick != self.tick {
                countPending()
                self.tick = tick
            }
            if message.isNoteOn || message.isNoteOff { pending.append(message) }
        }

        mutating func finish() -> Notes {
            countPending()
            return notes
        }

        private mutating func countPending() {
            for pass in 0..<2 {
                for message in pending where pass == 1 ? message.isNoteOn : message.isNoteOff {
                    if held.pair(message, start: { _, _, _ in }) != nil { sounding -= 1 }
                    guard case .noteOn(let channel, let key, _) = message, message.isNoteOn else { continue }
                    notes.count += 1
                    if channel == 9 {
                        notes.drums = true
                    } else {
                        notes.lowest = min(notes.lowest ?? Int(key), Int(key))
                        notes.highest = max(notes.highest ?? Int(key), Int(key))
                    }
                    sounding += 1
                }
                notes.polyphonyPeak = max(notes.polyphonyPeak, sounding)
            }
            pending.removeAll(keepingCapacity: true)
        }
    }

    private static func name(of kind: MetaTextKind) -> String {
        switch kind {
        case .copyright: return "copyright"
        case .cuePoint: return "cue"
        default: return "text"
        }
    }
}
