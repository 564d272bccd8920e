import JACK
import MIDIFile
import Player

/// The song as JACK's timebase: for any transport frame, the bar, beat and tick the song plays
/// there, the time signature and the tempo, from the player's tempo map (its `--start`, loops and
/// `--rate` included; transport frame f is player sample f). A beat is one 1/denominator note of the
/// time signature; ticks are the song's own (`ticksPerBeat` = division × 4 / denominator);
/// `beatsPerMinute` is the song's tempo in quarter notes per minute, as the MIDI file states it.
/// Runs on JACK's real-time thread: reads only the player's immutable tempo map and schedule.
final class SongTimebase: JACKTimebaseHandler {
    private let player: MusicPlayer

    init(player: MusicPlayer) { self.player = player }

    func updatePosition(_ position: inout JACKPosition, state: JACKTransportState, frameCount: Int, isNewPosition: Bool) {
        let frame = Int64(position.frame)
        let map = player.tempoMap
        let songTick = player.songTick(atSample: frame)
        let place = map.barBeatTick(atTick: songTick)
        let signatures = map.timeSignatures
        var index = signatures.count - 1  // never empty: 4/4 at tick 0 when the file sets none
        while index > 0 && signatures[index].tick > songTick { index -= 1 }
        let signature = signatures[index]
        let ticksPerQuarter = Double(map.division.ticksPerQuarterNote)
        position.hasBarBeatTick = true
        position.bar = Int(clamping: place.bar)
        position.beat = Int(clamping: place.beat)
        position.tick = Int(clamping: place.tick)
        position.barStartTick = Double(map.tick(at: BarBeatTick(bar: place.bar)))
        position.beatsPerBar = Float(signature.numerator)
        position.beatType = Float(signature.denominator)
        position.ticksPerBeat = ticksPerQuarter * 4 / Double(signature.denominator)
        position.beatsPerMinute = player.beatsPerMinute(atSample: frame)
    }
}
