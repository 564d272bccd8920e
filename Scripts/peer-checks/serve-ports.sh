#!/bin/bash
# Check 16 of Scripts/test-sequencer-peers (runs in the alsa-vm guest): seqplay serve --ports 2 plays what
# other programs send to its ports through the sampler to hw:Loopback,0,0 (captured from hw:Loopback,1,0).
# VirMIDI 0 → in-1 with program 0 (piano), VirMIDI 1 → in-2 with program 19 (church organ), both on channel 1:
# both notes sound, in-1's note decays while held as a piano does (in-2's program change did not reach it),
# the organ sustains, and disconnecting its source mid-note lets it decay to silence within 2 s.
#   Scripts/peer-checks/serve-ports.sh SEQPLAY FONT OUTDIR      (exit status: number of failures)
set -uo pipefail
seqplay=$1 font=$2 out=$3
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
wait_up_to() { for _ in $(seq $(($3 * 10))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
now() { date +%s.%N; }
virmidi0=$(aplaymidi -l | awk '/VirMIDI 0-0/{print $1; exit}')
virmidi1=$(aplaymidi -l | awk '/VirMIDI 0-1/{print $1; exit}')

# Capture first (raw S16_LE stereo 48 kHz, 4 s buffer); capture_at = the wall time it started running.
arecord -q -D hw:Loopback,1,0 -t raw -f S16_LE -r 48000 -c 2 --buffer-time=4000000 --period-time=250000 \
    "$out/serve-ports.raw" & capture=$!
for _ in $(seq 600); do
    grep -q "state: RUNNING" /proc/asound/Loopback/pcm1c/sub0/status 2>/dev/null && break; sleep 0.05
done
capture_at=$(now)
# A 683 ms buffer: the guest stalls under load.
"$seqplay" serve --ports 2 --sf2 "$font" --device hw:Loopback,0,0 --period 2048 --periods 16 --no-reverb --no-chorus \
    >"$out/serve-ports.out" 2>"$out/serve-ports.err" & serve=$!
wait_up_to "$out/serve-ports.err" "^Playing" 90 || fail "seqplay serve --ports 2 did not say Playing within 90 s"
ports=$(sed -nE 's/.*ports ([0-9]+:[0-9]+) ([0-9]+:[0-9]+);.*/\1 \2/p' "$out/serve-ports.err")
in1=${ports% *} in2=${ports#* }
aconnect "$virmidi0" "$in1"; aconnect "$virmidi1" "$in2"
aconnect -l >"$out/serve-ports-aconnect.txt"
python3 - "$out/serve-ports-aconnect.txt" "$in1" "$in2" "$virmidi0" "$virmidi1" <<'PY' \
    && pass "serve --ports 2: aconnect -l shows ports in-1 ($in1) and in-2 ($in2) of 'seqplay serve', fed by $virmidi0 and $virmidi1" \
    || fail "serve --ports 2: ports or connections not as expected in aconnect -l"
import re, sys
listing, in1, in2, v0, v1 = sys.argv[1:6]
client, port, ports, sources = None, None, {}, {}
for line in open(listing):
    if m := re.match(r"client (\d+): '(.*)'", line): client = (m[1], m[2])
    elif m := re.match(r"\s+(\d+) '(.*)'$", line.rstrip("\n")):
        port = f"{client[0]}:{m[1]}"; ports[port] = (client[1], m[2].rstrip())
    elif m := re.match(r"\s+Connected From: (.*)", line): sources[port] = [s.strip().split("[")[0] for s in m[1].split(",")]
print({p: ports.get(p) for p in (in1, in2)}, {p: sources.get(p) for p in (in1, in2)})
sys.exit(0 if ports.get(in1) == ("seqplay serve", "in-1") and ports.get(in2) == ("seqplay serve", "in-2")
         and sources.get(in1) == [v0] and sources.get(in2) == [v1] else 1)
PY
amidi -p hw:VirMIDI,0 -S 'C0 00'; amidi -p hw:VirMIDI,1 -S 'C0 13'; sleep 0.5
piano_before=$(now); amidi -p hw:VirMIDI,0 -S '90 3C 7F'; piano_after=$(now); sleep 1; amidi -p hw:VirMIDI,0 -S '80 3C 00'; sleep 2
organ_before=$(now); amidi -p hw:VirMIDI,1 -S '90 43 7F'; organ_after=$(now); sleep 1.5
cut_before=$(now); aconnect -d "$virmidi1" "$in2"; cut_after=$(now); sleep 4
kill -TERM $serve; wait $serve; echo "serve exit status $?"; cat "$out/serve-ports.err" "$out/serve-ports.out"
sleep 0.5; kill -TERM $capture; wait $capture
underruns=$(sed -nE 's/.*underruns: ([0-9]+).*/\1/p' "$out/serve-ports.out" | tail -1)
python3 - "$out/serve-ports.raw" "$capture_at" "$piano_before" "$piano_after" "$organ_before" "$organ_after" "$cut_before" "$cut_after" \
    "${underruns:-0}" <<'PY' \
    && pass "serve --ports 2: both ports sound on channel 1, independently (in-1 a decaying piano after in-2 took the organ); the organ decays to silence after its source is disconnected" \
    || fail "serve --ports 2: two independent ports / release on disconnect"
import array, sys
a = array.array("h"); a.frombytes(open(sys.argv[1], "rb").read()); left = a[0::2]
capture_at, piano_before, piano_after, organ_before, organ_after, cut_before, cut_after = map(float, sys.argv[2:9])
underruns = int(sys.argv[9])
at = lambda t: (t - capture_at) * 48000  # wall time → capture sample (roughly, under emulation)
loud = [i for i, v in enumerate(left) if abs(v) > 200]
if not loud: print("no sound captured"); sys.exit(1)
regions, start, last = [], loud[0], loud[0]
for i in loud[1:]:
    if i - last > 48000 * 0.3: regions.append((start, last)); start = i
    last = i
regions.append((start, last))
print(f"capture {len(left) / 48000:.1f} s; sound regions (s):", [(round(s / 48000, 2), round(e / 48000, 2)) for s, e in regions])
if len(regions) != 2 and underruns > 0:
    # The guest stalled: every underrun puts a gap of silence into what is heard, so the notes come in pieces and
    # their shapes cannot be judged. What seqplay controls still shows: both ports sounded, and after the
    # disconnect the organ was released (the capture ends in silence).
    silent_end = (len(left) - regions[-1][1]) / 48000
    print(f"{underruns} underrun(s) reported by serve: {len(regions)} pieces of sound, the decays not judged; silence at the end {silent_end:.1f} s")
    sys.exit(0 if len(regions) >= 2 and silent_end > 2 else 1)
if len(regions) != 2: print("expected 2 sound regions (piano on in-1, organ on in-2)"); sys.exit(1)
piano, organ = regions
rms = lambda s, e: (sum(v * v for v in left[int(s):int(e)]) / max(int(e) - int(s), 1)) ** 0.5
level = lambda onset, t: rms(onset + t * 48000, onset + (t + 0.1) * 48000)
# Held, a piano (program 0) falls to ~30 % in 0.6 s; an organ (program 19) stays level. Had in-2's program
# change reached in-1's channel, both would be organs.
piano_decay = level(piano[0], 0.6) / level(piano[0], 0.05)
organ_decay = level(organ[0], 0.6) / level(organ[0], 0.05)
print(f"held-note level after 0.6 s: piano {piano_decay:.2f}, organ {organ_decay:.2f} of the onset's")
delay = (organ[0] - at(organ_after)) / 48000  # amidi → capture, measured on the organ key
held = organ[1] > at(cut_before) + delay * 48000
decay = (organ[1] - at(cut_after)) / 48000 - delay
print(f"organ key → sound {delay * 1000:.0f} ms; it sounds until {decay * 1000:.0f} ms after the disconnect (delay removed), "
      f"then silence for {(len(left) - organ[1]) / 48000:.1f} s")
ok = (piano_decay < 0.5 and organ_decay > 0.7 and organ[0] - piano[1] > 0.3 * 48000 and delay < 5 and held
      and decay < 2.0 and len(left) - organ[1] > 2 * 48000)
sys.exit(0 if ok else 1)
PY
exit $fails
