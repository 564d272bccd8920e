import AudioFiles
import Foundation
import MIDICore
import MIDIFile
import Player

/// How `--stems` splits a song: one stem per MIDI channel, per track, or per General MIDI
/// instrument (the channels playing the same program together, drums apart).
public enum StemMode: String, Sendable, CaseIterable {
    case channel, track, program
}

/// One stem written beside a mix (or not, when silent).
public struct StemOutput: Sendable {
    /// Its name in file names and labels: `ch10`, `track3`, `program033`, `drums`.
    public var name: String
    /// The file, nil when the stem was silent and not written.
    public var path: String?
    public var peak: Float = 0
    /// The channels (0-based) it holds; for a track stem, none listed.
    public var channels: [UInt8]
    public var track: Int?
    public var program: UInt8?
    public var isDrums: Bool
}

/// The stems of a song, each a restriction of the render options (solo sets).
struct StemPlan {
    var name: String
    var output: StemOutput
    var restrict: (inout RenderOptions) -> Void

    static func stems(_ mode: StemMode, parts: [RenderedPart], sequence: MusicSequence, options: RenderOptions) -> [StemPlan] {
        switch mode {
        case .channel:
            return parts.map { part in
                let name = MIDIChannel.name(part.channel)
                return StemPlan(name: name, output: StemOutput(name: name, channels: [part.channel], program: part.program, isDrums: part.isDrums)) {
                    $0.song.soloedChannels = [Int(part.channel)]
                }
            }
        case .program:
            var groups: [String: [RenderedPart]] = [:]
            for part in parts { groups[stemName(program: part.program, drums: part.isDrums), default: []].append(part) }
            return groups.keys.sorted().map { name in
                let members = groups[name]!
                return StemPlan(name: name, output: StemOutput(name: name, channels: members.map(\.channel),
                                                               program: members[0].program, isDrums: members[0].isDrums)) {
                    $0.song.soloedChannels = Set(members.map { Int($0.channel) })
                }
            }
        case .track:
            let playing = sequence.tracks.indices.filter { index in
                sequence.tracks[index].events.contains { if case .midi(.noteOn) = $0.event { return true } else { return false } }
                    && options.song.isTrackAudible(index)
            }
            return playing.map { track in
                let name = "track\(track)"
                return StemPlan(name: name, output: StemOutput(name: name, channels: [], track: track, isDrums: false)) {
                    $0.song.soloedTracks = [track]
                }
            }
        }
    }


    /// Whether `name` is the name of a stem of `mode` (`ch01`…`ch16`, `program000`…`program127` and
    /// `drums`, `track` and a number).
    static func isStemName(_ name: String, mode: StemMode) -> Bool {
        switch mode {
        case .channel: return (0..<16).contains { MIDIChannel.name($0) == name }
        case .program: return name == "drums" || (0...127).contains { stemName(program: UInt8($0), drums: false) == name }
        case .track: return name.hasPrefix("track") && name.count > 5 && name.dropFirst(5).allSatisfy { ("0"..."9").contains($0) }
        }
    }

    static func stemName(program: UInt8, drums: Bool) -> String {
        drums ? "drums" : "program" + String(repeating: "0", count: 3 - "\(program)".count) + "\(program)"
    }

    /// The stem a note belongs to, for the labels (a track stem cannot be told from the note: "mix").
    static func stemName(of note: SoundingNote, mode: StemMode) -> String {
        switch mode {
        case .channel: return MIDIChannel.name(note.channel)
        case .program: return stemName(program: note.program, drums: note.channel == 9)
        case .track: return "mix"
        }
    }
}

extension StemPlan {
    /// The parts of `sequence` as a render with `options` will sound them (channel, program of its
    /// first note, note count), worked out from the scheduler's events without rendering (a rerun
    /// asks which stems a finished song has).
    static func parts(of sequence: MusicSequence, options: RenderOptions) throws -> [RenderedPart] {
        let recorder = NoteRecorder(source: try MusicPlayer(sequence: sequence, sampleRate: options.sampleRate, options: options.song),
                                    frameScale: 1)
        recorder.deliverEvents(before: .max, to: DiscardingReceiver())
        return recorder.parts()
    }

    /// Channel and program stems in one pass: the stems of `mode` of the song's `parts` as channel
    /// groups, nil for modes a channel group cannot make (track stems) or with `--fx` (the effects
    /// act on the mix).
    static func channelGroups(_ mode: StemMode, parts: [RenderedPart], sequence: MusicSequence, options: RenderOptions) -> [StemPlan]? {
        guard mode != .track, options.effects == nil else { return nil }
        let stems = Self.stems(mode, parts: parts, sequence: sequence, options: options)
        return stems.isEmpty ? nil : stems
    }
}

private final class DiscardingReceiver: MIDIReceiver {
    func receive(_ message: MIDIMessage) {}
}
