"""aseqdump's text output as comparable events, for the peer checks.
parse(lines) -> [(kind, [numbers])], e.g. ("Note on", [0, 60, 64]), ("Clock", []); from_bytes("90 3C 40")
-> the same form for a channel message given as hex bytes (channels from 0, pitch bend centred on 0)."""
import re

KINDS = ("Note on", "Note off", "Control change", "Program change", "Pitch bend", "Channel aftertouch",
         "Polyphonic aftertouch", "Song position pointer", "Clock", "Start", "Continue", "Stop")


def parse(lines):
    found = []
    for line in lines:
        m = re.match(r"\s*\d+:\d+\s+(.*)", line)
        if not m: continue
        for kind in KINDS:
            if m[1].startswith(kind):
                found.append((kind, [int(x) for x in re.findall(r"-?\d+", m[1][len(kind):])]))
                break
    return found


def from_bytes(hex_bytes):
    status, *data = (int(x, 16) for x in hex_bytes.split())
    channel, kind = status & 0x0F, status & 0xF0
    names = {0x80: "Note off", 0x90: "Note on", 0xA0: "Polyphonic aftertouch", 0xB0: "Control change",
             0xC0: "Program change", 0xD0: "Channel aftertouch"}
    if kind == 0xE0:
        return ("Pitch bend", [channel, (data[0] | data[1] << 7) - 8192])
    return (names[kind], [channel] + data)
