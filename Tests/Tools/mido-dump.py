"""Prints what mido decodes from MIDI files, for the round-trip test (Tests/MIDIFileTests/RoundTripTests.swift).

Usage: python mido-dump.py FILE...
Output: one JSON object mapping each FILE to {"format", "division", "tracks"} in the corpus reference
notation ([tick, "midi", hex], [tick, "sysex", "f0...f7"], [tick, "meta", typeHex, dataHex]), or to
{"error": message} when mido cannot read it.
"""
import json
import sys

import mido
from mido.midifiles.meta import _META_SPEC_BY_TYPE, MetaSpec


def meta_bytes(msg):
    if msg.type == "unknown_meta":
        return msg.type_byte, bytes(msg.data)
    spec = _META_SPEC_BY_TYPE[msg.type]
    return spec.type_byte, bytes(spec.encode(msg))


def describe(msg, tick):
    if msg.is_meta:
        type_byte, data = meta_bytes(msg)
        return [tick, "meta", f"{type_byte:02x}", data.hex()]
    if msg.type == "sysex":
        return [tick, "sysex", bytes(msg.bytes()).hex()]
    return [tick, "midi", bytes(msg.bytes()).hex()]


def dump(path):
    try:
        midi = mido.MidiFile(path)
    except Exception as error:  # mido raises many kinds on files it cannot read
        return {"error": str(error)}
    tracks = []
    for track in midi.tracks:
        tick, events = 0, []
        for msg in track:
            tick += msg.time
            events.append(describe(msg, tick))
        tracks.append(events)
    return {"format": midi.type, "division": midi.ticks_per_beat, "tracks": tracks}


print(json.dumps({path: dump(path) for path in sys.argv[1:]}))
