import JACK

/// A JACK MIDI input port plays in a `LiveSamplerSession` (`LiveSamplerConfiguration.inputs`): its
/// `attach(to:destination:output:)` and `stop()` are the protocol's.
extension JACKMIDIInput: LiveSamplerInput {}
