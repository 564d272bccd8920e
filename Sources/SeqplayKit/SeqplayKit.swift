// SeqplayKit: every seqplay library module in one import.
//
//     import SeqplayKit
//
// Where a name clashes with one of Apple's (on macOS `AudioBuffer` is also a CoreAudio type, and
// `MusicPlayer` and `MusicSequence` are AudioToolbox types), qualify it with the module:
// `SeqplayKit.AudioBuffer`, `SeqplayKit.MusicSequence`.
@_exported import ALSA
@_exported import AudioFiles
@_exported import AudioGraph
@_exported import Control
@_exported import ControlHTTP
@_exported import Effects
@_exported import JACK
@_exported import LiveInput
@_exported import LV2
@_exported import MIDICore
@_exported import MIDIFile
@_exported import MediaLibrary
@_exported import NetworkMIDI
@_exported import Pictures
@_exported import Player
@_exported import Rendering
@_exported import Sampler
@_exported import Sessions
@_exported import SoundFontFile
@_exported import SeqplaySupport
