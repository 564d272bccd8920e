import CFluidSynth
import Foundation
import MIDICore

/// What a note costs this synthesizer to render, before it is rendered: the voices it starts (one
/// per matching zone: stereo samples and layers start several) and how long each lasts after the
/// note is released. FluidSynth's time goes almost all into voices, sample by sample, so a song's
/// voice-seconds stand for its rendering cost (`ChannelGroups.balanced` splits channels by it).
public struct NoteVoices: Hashable, Sendable {
    /// Voices the note starts.
    public var voices: Int
    /// The sum over those voices of their release time in seconds (volume envelope release).
    public var releaseSeconds: Double

    public init(voices: Int, releaseSeconds: Double) {
        self.voices = voices
        self.releaseSeconds = releaseSeconds
    }

    /// Voice-seconds for the note held `seconds`, each voice's release counted up to `releaseCap`
    /// seconds (a long release usually fades below hearing, where FluidSynth ends the voice, early).
    public func voiceSeconds(held seconds: Double, releaseCap: Double = 2) -> Double {
        Double(voices) * max(0, seconds) + min(releaseSeconds, releaseCap * Double(voices))
    }
}

extension Synthesizer {
    /// The voices `noteOn` would start after `setup` (the channel's bank selects and program change),
    /// found by playing the note on this synthesizer and silencing it at once. For a synthesizer that
    /// estimates, not one that renders a song: it changes the channel's program and renders 64 frames.
    public func noteVoices(after setup: [MIDIMessage], noteOn channel: UInt8, key: UInt8, velocity: UInt8) -> NoteVoices {
        withSynthBetweenCycles {
            for message in setup { receive(message) }
            fluid_synth_noteon(synth, Int32(channel), Int32(key), Int32(velocity))
            let capacity = 64
            var started = [OpaquePointer?](repeating: nil, count: capacity)
            fluid_synth_get_voicelist(synth, &started, Int32(capacity), -1)
            var result = NoteVoices(voices: 0, releaseSeconds: 0)
            for case let voice? in started where fluid_voice_get_channel(voice) == Int32(channel) && fluid_voice_is_on(voice) != 0 {
                result.voices += 1
                // Timecents: 2^(tc/1200) seconds.
                let release = Double(fluid_voice_gen_get(voice, Int32(GEN_VOLENVRELEASE.rawValue)))
                result.releaseSeconds += pow(2, min(release, 12_000) / 1200)
            }
            fluid_synth_all_sounds_off(synth, Int32(channel))
            // Lets FluidSynth free the silenced voices (its voice events are applied as it renders).
            var left = [Float](repeating: 0, count: 64), right = left
            fluid_synth_write_float(synth, 64, &left, 0, 1, &right, 0, 1)
            return result
        }
    }
}
