// SeqplayKit: every seqplay library module in one import.
//
//     import SeqplayKit
//
// Where a name clashes with one of Apple's (on macOS `AudioBuffer` is also a CoreAudio type, and
// `MusicPlayer` and `MusicSequence` are AudioToolbox types), qualify it with the module:
// `SeqplayKit.AudioBuffer`, `SeqplayKit.MusicSequence`.
@_exported import ALSA
@_exported import ALSAAudio
@_exported import AudioFiles
@_exported import AudioGraph
@_exported import AudioGraphFiles
@_exported import AudioOutput
@_exported import BatchRendering
@_exported import Control
@_exported import ControlHTTP
@_exported import Drawing
@_exported import Effects
@_exported import FluidSynth
@_exported import JACKDriver
@_exported import LiveSampler
@_exported import LV2
@_exported import MIDICore
@_exported import MIDIFile
@_exported import MediaLibrary
@_exported import NetworkMIDI
@_exported import OSC
@_exported import OutputFiles
@_exported import Pictures
@_exported import Player
@_exported import RealtimeSupport
@_exported import Rendering
@_exported import Sampler
@_exported import SequencerRecording
@_exported import SongSessions
@_exported import SoundFontFile
