import ArgumentParser
import JACK

/// The JACK MIDI flags: `--jack-midi-out` (songs: the song's MIDI from seqplay:midi_out) and
/// `--jack-midi-connect` (what the MIDI port is connected to). `live` and `serve` have seqplay:midi_in
/// whenever they play through JACK.
struct JACKMIDIArguments: ParsableArguments {
    @Flag(help: "JACK: also send the song's MIDI from a midi_out port, each event at its exact frame beside its audio (a DAW records both).")
    var jackMidiOut = false

    @Option(help: ArgumentHelp("JACK MIDI: connect midi_out to the MIDI input ports matching this regular expression (songs), or those MIDI output ports to midi_in (live, serve).", valueName: "pattern"))
    var jackMidiConnect: String?

    /// Checks the flags against the driver; `songs`: the command plays a song (not live input).
    func validate(audio: AudioDriverArguments, songs: Bool) throws {
        if !audio.usesJACK && (jackMidiOut || jackMidiConnect != nil) {
            throw ValidationError("--jack-midi-out and --jack-midi-connect need --audio-driver jack.")
        }
        if jackMidiOut && !songs { throw ValidationError("--jack-midi-out is for songs; live and serve take MIDI at midi_in.") }
        if jackMidiConnect != nil && songs && !jackMidiOut { throw ValidationError("--jack-midi-connect connects --jack-midi-out's port: add --jack-midi-out.") }
    }

    /// seqplay:midi_in on `output`'s client, for a live session; exits (5) when it cannot be registered.
    func midiInput(on output: JACKOutput) throws(CommandFailure) -> JACKMIDIInput {
        return try CommandFailure.describing(.inputOutput, prefix: "cannot register the JACK MIDI input: ") { try JACKMIDIInput(driver: output.jack, connecting: jackMidiConnect) }
    }
}
