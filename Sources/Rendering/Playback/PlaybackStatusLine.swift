import AudioGraph
import MIDIFile
import Player

/// The one-line playback display: position / duration, bar:beat, tempo, voices, xruns and a level meter.
public struct PlaybackStatusLine {
    public let player: MusicPlayer

    /// The line of `player`'s song.
    public init(player: MusicPlayer) { self.player = player }

    /// The line for this moment; `position` is in seconds of playback. Bar and tempo are those of
    /// the song position (a `--loop` repeat shows the loop's bars again).
    public func text(paused: Bool, position: Double, duration: Double, voices: Int, xruns: Int, level: LevelMeterTap.Level?) -> String {
        let sample = Int64((position * Double(player.sampleRate)).rounded(.down))
        let place = player.tempoMap.barBeatTick(atTick: player.songTick(atSample: sample))
        let tempo = player.beatsPerMinute(atSample: sample)
        let tempoText = tempo.isFinite ? "\(Int(tempo.rounded()))" : "-"
        return "\(paused ? "||" : "> ") \(Self.clock(position)) / \(Self.clock(duration))  bar \(place.bar):\(place.beat)"
            + "  \(tempoText) bpm  voices \(voices)  xruns \(xruns)" + (level.map { "  " + Self.meter($0) } ?? "")
    }

    /// `m:ss.s`.
    public static func clock(_ seconds: Double) -> String {
        let tenths = Int((max(0, seconds) * 10).rounded(.down))
        let secondsPart = tenths % 600
        return "\(tenths / 600):\(secondsPart < 100 ? "0" : "")\(secondsPart / 10).\(secondsPart % 10)"
    }

    /// A 20-cell bar over −60…0 dBFS of the peak, the held peak marked, and the RMS in dB.
    public static func meter(_ level: LevelMeterTap.Level, cells: Int = 20) -> String {
        func cell(_ decibels: Float) -> Int {
            guard decibels.isFinite else { return 0 }
            return Int(((decibels + 60) / 60 * Float(cells)).rounded()).clamped(to: 0...cells)
        }
        let lit = cell(level.peak), held = cell(level.heldPeak)
        var bar = (0..<cells).map { $0 < lit ? "#" : "-" }
        if held > 0 && held > lit { bar[held - 1] = "|" }
        let rms = level.rms.isFinite ? "\(Int(level.rms.rounded())) dB" : "-inf dB"
        return "[" + bar.joined() + "] " + rms
    }
}

extension Comparable {
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
