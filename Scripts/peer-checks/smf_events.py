"""Reads a format 0/1 Standard MIDI File into (seconds, bytes-hex) channel events, for the peer checks.
Usage as a module: events(path) -> list of (seconds, "90 3C 64"), events(path, ticks=True) -> list of
(seconds, "90 3C 64", tick); the file must be complete (MTrk lengths and an end-of-track), else ValueError."""
import struct


def events(path, ticks=False):
    data = open(path, "rb").read()
    if data[:4] != b"MThd":
        raise ValueError("no MThd")
    _, _, ntracks, division = struct.unpack(">IHHH", data[4:14])
    pos, found, tempo_changes = 14, [], [(0, 500000)]
    for _ in range(ntracks):
        if data[pos:pos + 4] != b"MTrk":
            raise ValueError("no MTrk")
        length = struct.unpack(">I", data[pos + 4:pos + 8])[0]
        track, pos = data[pos + 8:pos + 8 + length], pos + 8 + length
        i, tick, status, ended = 0, 0, None, False
        while i < len(track):
            delta = 0
            while True:
                b = track[i]; i += 1; delta = delta << 7 | (b & 0x7F)
                if b < 0x80: break
            tick += delta
            if track[i] & 0x80: status = track[i]; i += 1
            if status == 0xFF:
                kind, n = track[i], track[i + 1]; meta = track[i + 2:i + 2 + n]; i += 2 + n
                if kind == 0x51: tempo_changes.append((tick, int.from_bytes(meta, "big")))
                if kind == 0x2F: ended = True
            elif status in (0xF0, 0xF7):
                n = track[i]; i += 1 + n
            else:
                n = 1 if status & 0xF0 in (0xC0, 0xD0) else 2
                found.append((tick, " ".join(f"{b:02X}" for b in [status] + list(track[i:i + n])))); i += n
        if not ended:
            raise ValueError("track without end-of-track")

    def seconds(tick):
        t, last_tick, us = 0.0, 0, 500000
        for at, value in sorted(tempo_changes):
            if at > tick: break
            t += (at - last_tick) * us / division / 1e6; last_tick, us = at, value
        return t + (tick - last_tick) * us / division / 1e6
    return [(seconds(t), b, t) if ticks else (seconds(t), b) for t, b in found]
