"""Writes a format 1 Standard MIDI File with N events, for Benchmarks/smf-load.sh.

Usage: python3 make-events-file.py N OUT.mid
Track 0 holds tempo and time signature; track 1 notes, controller sweeps and pitch bends on all 16
channels with running status where a writer would use it (standard library only, so it runs before
mido is installed).
"""
import struct
import sys


def vlq(value):
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.insert(0, (value & 0x7F) | 0x80)
        value >>= 7
    return bytes(out)


def chunk(kind, body):
    return kind + struct.pack(">I", len(body)) + body


def main():
    count, path = int(sys.argv[1]), sys.argv[2]
    tempo_track = b"\x00\xff\x51\x03\x07\xa1\x20" + b"\x00\xff\x58\x04\x04\x02\x18\x08" + b"\x00\xff\x2f\x00"
    body = bytearray()
    previous_status = None
    for i in range(count - 4):  # 3 metas in track 0 and End of Track in track 1 make up the rest
        channel = (i // 64) % 16
        kind = i % 8
        if kind < 6:
            status = (0x90 if kind % 2 == 0 else 0x80) | channel
            data = bytes([36 + (i * 7) % 60, 100 if kind % 2 == 0 else 64])
        elif kind == 6:
            status, data = 0xB0 | channel, bytes([7, (i * 3) % 128])
        else:
            status, data = 0xE0 | channel, bytes([i % 128, (i >> 7) % 128])
        body += vlq(i % 3 * 40)
        if status != previous_status:
            body.append(status)
            previous_status = status
        body += data
    body += b"\x00\xff\x2f\x00"
    header = chunk(b"MThd", struct.pack(">HHH", 1, 2, 480))
    with open(path, "wb") as out:
        out.write(header + chunk(b"MTrk", tempo_track) + chunk(b"MTrk", bytes(body)))


main()
