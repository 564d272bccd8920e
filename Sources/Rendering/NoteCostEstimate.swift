import Sampler
import MIDICore

/// What the notes of a song cost to render, in voice-seconds, asked of a sampler with the song's
/// fonts and sound settings that never plays (`SamplerNode.noteVoices`), for splitting the song's
/// channels into groups of equal load (`ChannelGroups.balanced`). FluidSynth spends its time on
/// voices, and how many voices a note starts and how long they ring depend on the preset (a stereo
/// or layered preset starts several, a pad rings on): note counts alone split an orchestra 60/40.
final class NoteCostEstimate {
    private let probe: SamplerNode
    private var known: [Key: NoteVoices] = [:]

    private struct Key: Hashable {
        var channel: UInt8, setup: [MIDIMessage], key: UInt8, velocityBand: UInt8
    }

    init(probe: SamplerNode) { self.probe = probe }

    /// The voice-seconds of `note`; notes differing only within a velocity band of 16 are probed once
    /// (at the band's middle), so a song costs at most a few thousand probes.
    func cost(_ note: ChannelGroups.CostedNote) -> Double {
        voices(note).voiceSeconds(held: note.heldSeconds)
    }

    /// The voices `note` starts (probed as `cost` says).
    func voices(_ note: ChannelGroups.CostedNote) -> NoteVoices {
        let key = Key(channel: note.channel, setup: note.setup, key: note.key, velocityBand: note.velocity / 16)
        if let voices = known[key] { return voices }
        let voices = probe.noteVoices(after: note.setup, noteOn: note.channel, key: note.key, velocity: key.velocityBand * 16 + 8)
        known[key] = voices
        return voices
    }
}
