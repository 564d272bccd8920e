import Foundation
import MIDICore
import MIDIFile

/// One note as it sounds in a render: when the sampler was told to start and end it, in samples of
/// the output: the times the scheduler stamped the events with, each the sample its exact tempo-map
/// time falls in (the sampler then starts it at the 64-sample block boundary nearest that time).
public struct SoundingNote: Sendable, Equatable {
    public var onsetSample: Int64
    public var offsetSample: Int64
    public var pitch: UInt8
    public var velocity: UInt8
    /// 0-based (channel 10 is 9).
    public var channel: UInt8
    /// The GM program the channel played at the onset.
    public var program: UInt8
}

/// What the instruments of a render were: per channel that sounded, its program (the first one a
/// note sounded with) and how many notes.
public struct RenderedPart: Sendable, Equatable {
    public var channel: UInt8
    public var program: UInt8
    public var noteCount: Int
    public var isDrums: Bool { channel == 9 }
    /// The General MIDI name of the program (drum kit on channel 10).
    public var instrumentName: String { GeneralMIDI.instrumentName(program: program, channel: channel) }
}

/// Stands between a renderer's scheduler and its sampler and writes down every note the sampler
/// gets, stamped with the sample time the scheduler gave it: the labels come from the very events
/// the audio was rendered from. Delivers exactly what the scheduler would, in the same order.
final class NoteRecorder: ScheduledMIDISource, MIDIReceiver {
    private let source: any ScheduledMIDISource
    /// Output frames per scheduler sample (1/varispeed rate).
    private let frameScale: Double
    private var receiver: (any MIDIReceiver)?
    private var now: Int64 = 0
    private var programs = [UInt8](repeating: 0, count: 16)
    private var open = NotePairing<Int>()   // indexes in notes
    private(set) var notes: [SoundingNote] = []

    init(source: any ScheduledMIDISource, frameScale: Double) {
        self.source = source
        self.frameScale = frameScale
    }

    var nextEventSampleTime: Int64? { source.nextEventSampleTime }

    func deliverEvents(before sampleTime: Int64, to receiver: any MIDIReceiver) {
        self.receiver = receiver
        defer { self.receiver = nil }
        // What a source hands over without a time is noted as due just before `sampleTime`.
        now = sampleTime - 1
        source.deliverEvents(before: sampleTime, to: self)
    }

    func receive(_ message: MIDIMessage, at sampleTime: Int64) {
        now = sampleTime
        receiver?.receive(message, at: sampleTime)
        note(message)
    }

    func receive(_ message: MIDIMessage) {
        receiver?.receive(message)
        note(message)
    }

    /// Writes down what `message`, due at `now`, starts or ends.
    private func note(_ message: MIDIMessage) {
        switch message {
        case .programChange(let channel, let program): programs[Int(channel)] = program
        case .noteOn, .noteOff:
            let ended = open.pair(message) { channel, pitch, velocity in
                notes.append(SoundingNote(onsetSample: frames(now), offsetSample: -1, pitch: pitch, velocity: velocity,
                                          channel: channel, program: programs[Int(channel)]))
                return notes.count - 1
            }
            if let ended { notes[ended.start].offsetSample = frames(now) }
        case .controlChange(let channel, let controller, _) where controller == 120 || controller == 123:
            for ended in open.endAll(channel: channel) { notes[ended.start].offsetSample = frames(now) }
        default: break
        }
    }

    private func frames(_ sampleTime: Int64) -> Int64 { Int64((Double(sampleTime) * frameScale).rounded()) }

    /// The notes, those still held at the end closing at `endFrame`.
    func finishedNotes(endFrame: Int64) -> [SoundingNote] {
        notes.map { note in
            var note = note
            if note.offsetSample < 0 { note.offsetSample = endFrame }
            return note
        }
    }

    /// The parts that sounded, by channel.
    func parts() -> [RenderedPart] {
        var byChannel: [UInt8: RenderedPart] = [:]
        for note in notes {
            byChannel[note.channel, default: RenderedPart(channel: note.channel, program: note.program, noteCount: 0)].noteCount += 1
        }
        return byChannel.values.sorted { $0.channel < $1.channel }
    }
}

/// The labels file written beside an output (`--labels`): one CSV line per note as it sounds.
enum NoteLabels {
    static let header = "onset_seconds,offset_seconds,onset_sample,offset_sample,pitch,velocity,channel,program,stem"

    /// The labels path for the output at `outputPath`.
    static func path(besideOutput outputPath: String) -> String {
        (outputPath as NSString).deletingPathExtension + ".labels.csv"
    }

    static func text(_ notes: [SoundingNote], sampleRate: Int, stem: (SoundingNote) -> String) -> String {
        var text = header + "\n"
        let rate = Double(sampleRate)
        for note in notes {
            text += "\(seconds(note.onsetSample, rate)),\(seconds(note.offsetSample, rate)),\(note.onsetSample),\(note.offsetSample),"
                + "\(note.pitch),\(note.velocity),\(note.channel + 1),\(note.program),\(stem(note))\n"
        }
        return text
    }

    private static func seconds(_ sample: Int64, _ rate: Double) -> String {
        String(Double(sample) / rate)
    }
}
