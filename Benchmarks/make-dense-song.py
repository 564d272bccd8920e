#!/usr/bin/env python3
"""Writes a dense ("black MIDI") test song: NOTES notes spread at random over MINUTES minutes on 16
channels (one track each, plus a tempo track), random keys 21-108, random velocities 1-127, each
note 20-240 ticks long at 480 ticks per quarter and 120 BPM; channel c plays program 8*c (channel 10
drums). Seeded, so the same arguments always give the same bytes.

    make-dense-song.py OUTPUT.mid NOTES [MINUTES] [SEED]
"""
import struct
import sys

import numpy as np

PPQ = 480


def vlq_lengths(values):
    lengths = np.ones(len(values), dtype=np.int64)
    for shift in (7, 14, 21):
        lengths += values >= (1 << shift)
    return lengths


def track_bytes(ticks, statuses, data1, data2, prefix=b""):
    """One MTrk chunk: `prefix` (already encoded events) then the channel events in tick order."""
    deltas = np.diff(ticks, prepend=0).astype(np.int64)
    lengths = vlq_lengths(deltas) + 3
    ends = np.cumsum(lengths)
    starts = ends - lengths
    out = np.zeros(int(ends[-1]) if len(ends) else 0, dtype=np.uint8)
    vlen = lengths - 3
    for byte in range(4):
        # byte b of the VLQ (most significant first) for events whose VLQ has more than b bytes
        has = vlen > byte
        shift = 7 * (vlen[has] - 1 - byte)
        value = (deltas[has] >> shift) & 0x7F
        value |= np.where(byte < vlen[has] - 1, 0x80, 0)
        out[starts[has] + byte] = value
    out[starts + vlen] = statuses
    out[starts + vlen + 1] = data1
    out[starts + vlen + 2] = data2
    body = prefix + out.tobytes() + b"\x00\xff\x2f\x00"
    return b"MTrk" + struct.pack(">I", len(body)) + body


def main():
    path, notes = sys.argv[1], int(sys.argv[2])
    minutes = float(sys.argv[3]) if len(sys.argv) > 3 else 4
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = np.random.default_rng(seed)
    span = int(minutes * 60 * 2 * PPQ) - 240
    chunks = []
    tempo = b"\x00\xff\x51\x03\x07\xa1\x20"  # 500000 us per quarter
    chunks.append(b"MTrk" + struct.pack(">I", len(tempo) + 4) + tempo + b"\x00\xff\x2f\x00")
    per_channel = [notes // 16 + (1 if c < notes % 16 else 0) for c in range(16)]
    with open(path, "wb") as f:
        f.write(b"MThd" + struct.pack(">IHHH", 6, 1, 17, PPQ))
        f.write(chunks[0])
        for channel in range(16):
            count = per_channel[channel]
            start = np.sort(rng.integers(0, span, count))
            length = rng.integers(20, 241, count)
            key = rng.integers(21, 109, count)
            velocity = rng.integers(1, 128, count)
            ticks = np.concatenate([start, start + length])
            on = np.concatenate([np.ones(count, dtype=bool), np.zeros(count, dtype=bool)])
            keys = np.concatenate([key, key])
            vels = np.concatenate([velocity, np.zeros(count, dtype=np.int64)])
            # by tick, note-offs before note-ons at the same tick
            order = np.lexsort((on, ticks))
            ticks, on, keys, vels = ticks[order], on[order], keys[order], vels[order]
            statuses = np.where(on, 0x90 | channel, 0x80 | channel)
            program = bytes([0x00, 0xC0 | channel, (8 * channel) % 128])
            f.write(track_bytes(ticks, statuses, keys, vels, prefix=program))
            del start, length, key, velocity, ticks, on, keys, vels, statuses, order


if __name__ == "__main__":
    main()
