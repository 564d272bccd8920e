#!/usr/bin/env python3
"""Generate seqplay's demo songs as Standard MIDI Files.

    python3 Scripts/make-songs.py [OUTDIR]      (default: Songs/)

All three pieces are public-domain compositions (composers died more than
a hundred years ago); the arrangements, voicings and performance data
(tempo curves, dynamics, pedalling, drums) are seqplay's own, MIT licensed.
Standard library only; the output is byte-for-byte deterministic.
"""

import os
import struct
import sys

PPQ = 480
Q = PPQ            # quarter
E = PPQ // 2       # eighth
S = PPQ // 4       # sixteenth
H = PPQ * 2        # half
W = PPQ * 4        # whole (one 4/4 bar)

COPYRIGHT = ("Composition in the public domain. Arrangement (c) seqplay "
             "contributors, MIT license.")

# --------------------------------------------------------------------------
# Minimal SMF writer
# --------------------------------------------------------------------------


def vlq(n):
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


# ordering of simultaneous events: metas, note-offs, program changes,
# controllers, pitch bend, then note-ons
META, OFF, PROG, CC, BEND, ON = range(6)


class Track:
    def __init__(self, name, channel=None):
        self.channel = channel
        self.events = []
        self.seq = 0
        self.meta(0, 0x03, name.encode("ascii"))

    def _add(self, tick, prio, data):
        assert tick >= 0, tick
        self.events.append((int(tick), prio, self.seq, data))
        self.seq += 1

    def meta(self, tick, kind, data):
        self._add(tick, META, bytes([0xFF, kind]) + vlq(len(data)) + data)

    def text(self, tick, kind, s):
        self.meta(tick, kind, s.encode("ascii"))

    def tempo(self, tick, bpm):
        us = int(round(60000000.0 / bpm))
        self.meta(tick, 0x51, us.to_bytes(3, "big"))

    def timesig(self, tick, num, den):
        self.meta(tick, 0x58, bytes([num, den.bit_length() - 1, 24, 8]))

    def keysig(self, tick, sharps, minor=False):
        self.meta(tick, 0x59, struct.pack("bB", sharps, 1 if minor else 0))

    def program(self, tick, prog):
        self._add(tick, PROG, bytes([0xC0 | self.channel, prog]))

    def cc(self, tick, num, val):
        self._add(tick, CC, bytes([0xB0 | self.channel, num, val]))

    def bend(self, tick, value):
        """value in -8192..8191"""
        v = max(0, min(16383, value + 8192))
        self._add(tick, BEND, bytes([0xE0 | self.channel, v & 0x7F, v >> 7]))

    def note(self, tick, key, dur, vel):
        assert 0 <= key < 128 and 1 <= vel < 128 and dur > 0, (key, vel, dur)
        self._add(tick, ON, bytes([0x90 | self.channel, key, vel]))
        self._add(tick + dur, OFF, bytes([0x80 | self.channel, key, 0]))

    def bend_range(self, tick, semitones):
        for num, val in ((101, 0), (100, 0), (6, semitones), (38, 0), (101, 127), (100, 127)):
            self.cc(tick, num, val)

    def chunk(self):
        evs = sorted(self.events)
        out = bytearray()
        now = 0
        for tick, _, _, data in evs:
            out += vlq(tick - now) + data
            now = tick
        out += vlq(0) + b"\xFF\x2F\x00"
        return b"MTrk" + struct.pack(">I", len(out)) + bytes(out)


def write_smf(path, tracks):
    data = b"MThd" + struct.pack(">IHHH", 6, 1, len(tracks), PPQ)
    data += b"".join(t.chunk() for t in tracks)
    with open(path, "wb") as fh:
        fh.write(data)


def duration_seconds(conductor):
    """Length in seconds, from the conductor's tempo map up to the last event
    of any track (passed in as conductor.end)."""
    tempos = sorted((t, d) for t, p, s, d in conductor.events if d[:2] == b"\xFF\x51")
    end = conductor.end
    secs, last_tick, us = 0.0, 0, 500000
    for tick, d in tempos:
        if tick > end:
            break
        secs += (tick - last_tick) * us / PPQ / 1e6
        last_tick, us = tick, int.from_bytes(d[3:6], "big")
    return secs + (end - last_tick) * us / PPQ / 1e6


def conductor(title, composer, num, den, sharps, minor=False):
    c = Track(title)
    c.text(0, 0x02, COPYRIGHT)
    c.text(0, 0x01, composer)
    c.timesig(0, num, den)
    c.keysig(0, sharps, minor)
    return c


def finish(path, tracks):
    c = tracks[0]
    c.end = max(t for tr in tracks for t, _, _, _ in tr.events)
    write_smf(path, tracks)
    return duration_seconds(c)


# pitch names -> MIDI numbers (C4 = 60)
def N(name):
    steps = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
    n = steps[name[0]]
    rest = name[1:]
    while rest and rest[0] in "#b":
        n += 1 if rest[0] == "#" else -1
        rest = rest[1:]
    return 12 * (int(rest) + 1) + n


def NS(text):
    return [N(x) for x in text.split()]


# --------------------------------------------------------------------------
# 1. J. S. Bach: Prelude in C major, BWV 846 (Well-Tempered Clavier I, 1722)
# --------------------------------------------------------------------------

BACH_BARS = [   # the five pitches of each bar's broken-chord figure
    "C4 E4 G4 C5 E5", "C4 D4 A4 D5 F5", "B3 D4 G4 D5 F5", "C4 E4 G4 C5 E5",
    "C4 E4 A4 E5 A5", "C4 D4 F#4 A4 D5", "B3 D4 G4 D5 G5", "B3 C4 E4 G4 C5",
    "A3 C4 E4 G4 C5", "D3 A3 D4 F#4 C5", "G3 B3 D4 G4 B4", "G3 Bb3 E4 G4 C#5",
    "F3 A3 D4 A4 D5", "F3 Ab3 D4 F4 B4", "E3 G3 C4 G4 C5", "E3 F3 A3 C4 F4",
    "D3 F3 A3 C4 F4", "G2 D3 G3 B3 F4", "C3 E3 G3 C4 E4", "C3 G3 Bb3 C4 E4",
    "F2 F3 A3 C4 E4", "F#2 C3 A3 C4 Eb4", "Ab2 F3 B3 C4 D4", "G2 F3 G3 B3 D4",
    "G2 E3 G3 C4 E4", "G2 D3 G3 C4 F4", "G2 D3 G3 B3 F4", "G2 Eb3 A3 C4 F#4",
    "G2 E3 G3 C4 G4", "G2 D3 G3 C4 F4", "G2 D3 G3 B3 F4", "C2 C3 G3 Bb3 E4",
]
BACH_33 = "C2 C3 F3 A3 C4 F4 C4 A3 C4 A3 F3 A3 F3 D3 F3 D3"
BACH_34 = "C2 B2 G4 B4 D5 F5 D5 B4 D5 B4 G4 B4 D4 F4 E4 D4"
BACH_35 = "C2 C3 E4 G4 C5"


def bach(path):
    c = conductor("Prelude in C major, BWV 846",
                  "Johann Sebastian Bach (1685-1750)", 4, 4, 0)
    rh = Track("Piano right hand", 0)
    lh = Track("Piano left hand", 1)
    for t in (rh, lh):
        t.program(0, 0)
        t.cc(0, 7, 110)
        t.cc(0, 10, 72 if t is rh else 56)
        t.cc(0, 91, 40)
    c.tempo(0, 92)
    c.text(0, 0x06, "Opening")
    c.tempo(W, 104)
    c.text(11 * W, 0x06, "Modulation")
    c.text(23 * W, 0x06, "Dominant pedal")
    c.text(31 * W, 0x06, "Tonic pedal")

    # dynamics: swell towards the dominant pedal, relax at the end
    def level(bar):
        shape = [0, 1, 2, 2, 3, 4, 4, 3, 2, 3, 4, 5, 5, 6, 5, 4, 3, 4, 3, 4, 5, 6,
                 7, 8, 8, 9, 9, 10, 9, 8, 7, 6, 5, 4, 3]
        return 74 + 3 * shape[bar]

    for bar, chord in enumerate(BACH_BARS):
        p = NS(chord)
        t0 = bar * W
        v = level(bar)
        for half in (0, H):
            b = t0 + half
            lh.note(b, p[0], H, v + 6)
            lh.note(b + S, p[1], H - S, v + 2)
            for i, key in enumerate([p[2], p[3], p[4]] * 2):
                accent = 6 if i == 0 else (3 if i == 3 else 0)
                rh.note(b + 2 * S + i * S, key, S - 10, v + accent)
        # pedal: lift at the barline, catch it again after the new bass note
        lh.cc(t0, 64, 0)
        lh.cc(t0 + 60, 64, 127)

    for bar, seq in ((32, BACH_33), (33, BACH_34)):
        p = NS(seq)
        t0 = bar * W
        v = level(bar)
        lh.cc(t0, 64, 0)
        lh.cc(t0 + 60, 64, 127)
        lh.note(t0, p[0], W, v + 6)
        lh.note(t0 + S, p[1], W - S, v + 2)
        for i, key in enumerate(p[2:]):
            tr = rh if key >= 60 or bar == 33 else lh
            tr.note(t0 + (i + 2) * S, key, S - 10, v + (4 if i % 4 == 2 else 0))

    # ritardando over the last two bars, one set-tempo per beat
    for i, bpm in enumerate((96, 92, 88, 84, 80, 75, 70, 64)):
        c.tempo(32 * W + i * Q, bpm)
    end = 34 * W
    c.tempo(end, 52)
    c.text(end, 0x06, "Final chord")
    p = NS(BACH_35)
    lh.cc(end, 64, 0)
    lh.cc(end + 60, 64, 127)
    for i, key in enumerate(p):
        tr = lh if i < 2 else rh
        tr.note(end + i * 40, key, W + W // 2 - i * 40, 84)   # gently spread
    lh.cc(end + W + W // 2 + 120, 64, 0)
    return finish(path, [c, rh, lh])


# --------------------------------------------------------------------------
# 2. Johann Pachelbel: Canon in D (c. 1680-1706), opening variations
# --------------------------------------------------------------------------

GROUND = NS("D3 A2 B2 F#2 G2 D2 G2 A2")
GROUND_CHORDS = ["D4 F#4 A4", "C#4 E4 A4", "D4 F#4 B4", "C#4 F#4 A4",
                 "D4 G4 B4", "D4 F#4 A4", "D4 G4 B4", "C#4 E4 A4"]
CANON = [   # each variation spans one statement of the ground (two bars)
    [(k, Q) for k in NS("F#5 E5 D5 C#5 B4 A4 B4 C#5")],
    [(k, Q) for k in NS("D5 C#5 B4 A4 G4 F#4 G4 E4")],
    [(k, E) for k in NS("D4 F#4 A4 G4 F#4 D4 F#4 E4 D4 B3 D4 A4 G4 B4 A4 G4")],
    [(k, E) for k in NS("F#4 D4 E4 C#5 D5 F#5 A5 A4 B4 G4 A4 F#4 D4 D5")]
    + [(N("D5"), E + S), (N("C#5"), S)],
    [(k, S) for k in NS("D5 C#5 D5 D4 C#4 A4 E4 F#4 D4 D5 C#5 B4 C#5 F#5 A5 B5 "
                        "G5 F#5 E5 G5 F#5 E5 D5 C#5 B4 A4 G4 F#4 E4 G4 F#4 E4")],
]


def pachelbel(path):
    c = conductor("Canon in D", "Johann Pachelbel (1653-1706)", 4, 4, 2)
    c.tempo(0, 58)
    vlns = [Track("Violin I", 0), Track("Violin II", 1), Track("Violin III", 2)]
    cello = Track("Continuo cello", 3)
    organ = Track("Continuo organ", 4)
    for t, prog, pan, vol in ((vlns[0], 40, 34, 100), (vlns[1], 40, 94, 96),
                              (vlns[2], 40, 64, 92), (cello, 42, 50, 100),
                              (organ, 19, 78, 62)):
        t.program(0, prog)
        t.cc(0, 7, vol)
        t.cc(0, 10, pan)
        t.cc(0, 91, 70)
        t.cc(0, 11, 100)
    c.text(0, 0x06, "Ground")
    statements = 6                      # 12 bars of ground, then a final bar
    for s in range(statements):
        t0 = s * 2 * W
        for i, key in enumerate(GROUND):
            cello.note(t0 + i * Q, key, Q - 20, 100 if i % 4 == 0 else 92)
            for k in NS(GROUND_CHORDS[i]):
                organ.note(t0 + i * Q, k, Q - 30, 72)
    for v, vln in enumerate(vlns):
        start = (1 + v) * 2 * W
        c.text(start, 0x06, "Violin %s enters" % ("I" * (v + 1)))
        t = start
        for var in CANON[: statements - 1 - v]:
            for j, (key, dur) in enumerate(var):
                vel = 96 + (8 if (t - start) % W == 0 else 0) - 2 * v
                vln.note(t, key, dur - 12, vel)
                t += dur
        # gentle swell on each voice as it enters
        for k in range(8):
            vln.cc(start + k * Q // 2, 11, 88 + 4 * k)
    end = statements * 2 * W
    # ritardando over the last ground statement
    for i, bpm in enumerate((56, 55, 54, 52, 50, 48, 46, 44)):
        c.tempo(end - 2 * W + i * Q, bpm)
    c.tempo(end, 40)
    c.text(end, 0x06, "Final chord")
    for vln, key in zip(vlns, NS("F#4 D5 A4")):
        vln.note(end, key, W, 76)
    cello.note(end, N("D2"), W, 84)
    cello.note(end, N("D3"), W, 70)
    for k in NS("D4 F#4 A4"):
        organ.note(end, k, W, 56)
    for t in vlns + [cello]:
        for k in range(8):
            t.cc(end + k * Q // 2, 11, 100 - 6 * k)
    return finish(path, [c] + vlns + [cello, organ])


# --------------------------------------------------------------------------
# 3. Ludwig van Beethoven: "Ode to Joy" theme, Symphony No. 9 Op. 125 (1824)
# --------------------------------------------------------------------------

# theme in D major as in the symphony: (key, beats) per bar
ODE = [
    "F#4 F#4 G4 A4", "A4 G4 F#4 E4", "D4 D4 E4 F#4", "F#4:1.5 E4:.5 E4:2",
    "F#4 F#4 G4 A4", "A4 G4 F#4 E4", "D4 D4 E4 F#4", "E4:1.5 D4:.5 D4:2",
    "E4 E4 F#4 D4", "E4 F#4:.5 G4:.5 F#4 D4", "E4 F#4:.5 G4:.5 F#4 E4", "D4 E4 A3:2",
    "F#4 F#4 G4 A4", "A4 G4 F#4 E4", "D4 D4 E4 F#4", "E4:1.5 D4:.5 D4:2",
]
# harmony: two chords per bar (one per half bar)
ODE_HARMONY = [
    ("D", "D"), ("D", "A"), ("D", "D"), ("D", "A"),
    ("D", "D"), ("D", "A"), ("D", "D"), ("A", "D"),
    ("A", "D"), ("A", "D"), ("A", "Bm"), ("E7", "A"),
    ("D", "D"), ("D", "A"), ("D", "D"), ("A", "D"),
]
CHORDS = {"D": ("D2", "A2", "D4 F#4 A4"), "A": ("A1", "E2", "C#4 E4 A4"),
          "Bm": ("B1", "F#2", "D4 F#4 B4"), "E7": ("E2", "B1", "D4 E4 G#4 B4")}


def parse_bar(text):
    out = []
    for tok in text.split():
        name, _, beats = tok.partition(":")
        out.append((N(name), int(round(float(beats or 1) * Q))))
    return out


def ode(path):
    c = conductor("Ode to Joy", "Ludwig van Beethoven (1770-1827)", 4, 4, 2)
    lead = Track("Lead", 0)
    strings = Track("Strings", 1)
    bass = Track("Bass", 2)
    guitar = Track("Guitar", 3)
    drums = Track("Drums", 9)
    for t, prog, pan, vol in ((lead, 56, 64, 104), (strings, 48, 40, 80),
                              (bass, 33, 64, 108), (guitar, 25, 92, 78)):
        t.program(0, prog)
        t.cc(0, 7, vol)
        t.cc(0, 10, pan)
        t.cc(0, 91, 50)
    drums.cc(0, 7, 110)
    drums.cc(0, 91, 30)
    lead.bend_range(0, 2)

    intro, bars = 2, len(ODE)
    p1 = intro * W
    p2 = p1 + bars * W
    coda = p2 + bars * W

    c.tempo(0, 108)
    c.text(0, 0x06, "Intro")
    c.text(p1, 0x06, "Theme")
    c.text(p2, 0x06, "Theme again (accelerando)")
    c.text(coda, 0x06, "Coda")
    for i in range(8):                  # accelerando over the first 8 bars of pass 2
        c.tempo(p2 + i * W, 110 + 3 * i)
    for i, bpm in enumerate((128, 124, 120, 114, 108, 100, 94, 88)):
        c.tempo(coda - 2 * W + i * Q, bpm)   # ritardando into the coda
    c.tempo(coda, 84)

    # --- lead: trumpet first time, flute an octave higher second time
    lead.program(p2 - Q, 73)
    for pas, start in enumerate((p1, p2)):
        shift = 12
        for b, text in enumerate(ODE):
            t = start + b * W
            notes = parse_bar(text)
            for j, (key, dur) in enumerate(notes):
                vel = 96 if j == 0 else 84
                if pas == 1:
                    vel -= 6
                if pas == 0 and b % 4 == 0 and j == 0:
                    # scoop up into each phrase
                    for k in range(6):
                        lead.bend(t + k * 20, -1600 + k * 320)
                    lead.bend(t + 120, 0)
                lead.note(t, key + shift, dur - 30, vel)
                t += dur
    # fall-off at the end of the first pass
    t = p2 - H + Q
    for k in range(8):
        lead.bend(t + k * 30, -k * 400)
    lead.bend(p2 - 10, 0)

    # --- strings, bass, guitar from the harmony
    for pas, start in enumerate((p1, p2)):
        for b, pair in enumerate(ODE_HARMONY):
            for h, name in enumerate(pair):
                t = start + b * W + h * H
                root, fifth, triad = CHORDS[name]
                for k in NS(triad):
                    strings.note(t, k - 12 if pas == 0 else k, H - 20, 64 if pas == 0 else 72)
                if pas == 0:
                    bass.note(t, N(root), Q - 40, 96)
                    bass.note(t + Q, N(fifth), Q - 40, 86)
                else:
                    for k, key in enumerate((root, root, fifth, root)):
                        n = N(key) + (12 if k == 3 else 0)
                        bass.note(t + k * E, n, E - 30, 100 if k == 0 else 84)
                    # guitar strums on beats 2 and 4 of each half bar
                    for beat, vel in ((0, 70), (Q, 78)):
                        for s, k in enumerate(NS(triad)):
                            guitar.note(t + beat + s * 15, k, Q - 60, vel)

    # --- drums (GM key numbers)
    KICK, STICK, SNARE, CLAP, CHH, PHH, OHH = 36, 37, 38, 39, 42, 44, 46
    CRASH, RIDE, CRASH2 = 49, 51, 57
    TOMS = (50, 48, 47, 45, 43, 41)
    # intro: hi-hat count-in, then a tom fill
    for i in range(8):
        drums.note(i * E, CHH, 60, 70 if i % 2 else 90)
    drums.note(0, KICK, 60, 100)
    drums.note(Q * 2, KICK, 60, 90)
    for i, tom in enumerate(TOMS):
        drums.note(W + 2 * Q + i * (2 * Q // 6) // 1, tom, 60, 90 + i * 4)
    drums.note(W, PHH, 60, 70)
    for pas, start in enumerate((p1, p2)):
        for b in range(bars):
            t0 = start + b * W
            last = b == bars - 1
            if b % 4 == 0:
                drums.note(t0, CRASH if b % 8 == 0 else CRASH2, 120, 104)
            for i in range(8):
                t = t0 + i * E
                if pas == 0:
                    drums.note(t, OHH if (i == 7 and b % 2 == 1) else CHH, 60,
                               86 if i % 2 == 0 else 66)
                else:
                    drums.note(t, RIDE, 60, 88 if i % 2 == 0 else 70)
            kicks = (0, 2 * Q) if pas == 0 else (0, Q + E, 2 * Q)
            for k in kicks:
                drums.note(t0 + k, KICK, 60, 108)
            if last and pas == 0:
                for i, tom in enumerate(TOMS):
                    drums.note(t0 + 2 * Q + i * (H // 6), tom, 60, 92 + 4 * i)
                drums.note(t0 + Q, SNARE, 60, 100)
                continue
            for k in (Q, 3 * Q):
                if pas == 0:
                    drums.note(t0 + k, STICK if b < 4 else SNARE, 60, 96)
                else:
                    drums.note(t0 + k, SNARE, 60, 104)
                    drums.note(t0 + k, CLAP, 60, 80)
            if last and pas == 1:
                for i in range(4):
                    drums.note(t0 + 2 * Q + i * E, SNARE, 60, 80 + 10 * i)

    # --- coda: held tonic chord with a crash
    drums.note(coda, CRASH, 120, 120)
    drums.note(coda, CRASH2, 120, 110)
    drums.note(coda, KICK, 60, 120)
    lead.note(coda, N("D5") + 12, W + H, 92)
    for k in NS("D4 F#4 A4 D5"):
        strings.note(coda, k, W + H, 76)
    bass.note(coda, N("D2"), W + H, 104)
    for s, k in enumerate(NS("D3 A3 D4 F#4 A4")):
        guitar.note(coda + s * 25, k, W + H - s * 25, 84)
    lead.cc(coda + W, 64, 0)            # harmless: makes the end explicit
    return finish(path, [c, lead, strings, bass, guitar, drums])


SONGS = [
    ("bach-prelude-c.mid", bach),
    ("pachelbel-canon.mid", pachelbel),
    ("beethoven-ode-to-joy.mid", ode),
]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[1] if len(argv) > 1 else os.path.normpath(os.path.join(here, "..", "Songs"))
    os.makedirs(outdir, exist_ok=True)
    for name, fn in SONGS:
        p = os.path.join(outdir, name)
        secs = fn(p)
        print("wrote %s (%d bytes, %.1f s)" % (p, os.path.getsize(p), secs))


if __name__ == "__main__":
    main(sys.argv)
