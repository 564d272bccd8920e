#!/bin/bash
# Soak: `seqplay serve` as an always-on sound module fed dense MIDI over the network for MINUTES (default 30),
# with its control faces in use (a FluidSynth shell program change and an OSC volume change every second).
# Prints the server's RSS every minute, then: RSS growth over the last 20 minutes (over the second half when
# shorter), late events and underruns (serve's own count), and stuck notes (voices still sounding 5 s after
# the feed ended, every note of the song released; nothing sends notes-off for it). Allocations on the render thread are counted by the tests
# (SamplerControlPathTests, SamplerNodeTests: 0); a product binary does not link the counter.
# Output to /dev/null on the system clock (-o /dev/null), so no sound card is needed.
#   Benchmarks/soak.sh [MINUTES]             release build
#   SEQPLAY=.build/debug/seqplay Benchmarks/soak.sh 2     a binary of your own
# Pass: RSS growth under 1 MB, 0 stuck notes.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-30}
if [ -z "${SEQPLAY:-}" ]; then
    swift build -c release --product seqplay >/dev/null
    SEQPLAY=$(swift build -c release --show-bin-path)/seqplay
fi
work=$(mktemp -d /tmp/seqplay-soak.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
font=SoundFonts/seqplay-gm.sf2

# A dense song: 16 channels, a chord on each every beat at 240 BPM (~1100 events/s with controllers and
# pitch bends), every note released in the song; 60 s long, looped for the whole soak.
python3 - "$work/dense.mid" <<'PY'
import struct, sys
def vlq(v):
    out = [v & 0x7F]; v >>= 7
    while v: out.insert(0, (v & 0x7F) | 0x80); v >>= 7
    return bytes(out)
events = []  # (tick, bytes)
ppq, beats = 480, 240
for beat in range(beats):
    t = beat * ppq
    for ch in range(16):
        for k, key in enumerate((48, 52, 55)):
            note = key + (beat + ch) % 12
            events.append((t + ch, bytes([0x90 | ch, note, 90])))
            events.append((t + ppq // 2 + ch, bytes([0x80 | ch, note, 0])))
        events.append((t + 100 + ch, bytes([0xB0 | ch, 1, (beat * 5) % 128])))
        events.append((t + 200 + ch, bytes([0xE0 | ch, 0, 32 + beat % 64])))
        events.append((t + 300 + ch, bytes([0xE0 | ch, 0, 64])))
events.sort(key=lambda e: e[0])
body, last = bytearray(b"\x00\xff\x51\x03\x03\xd0\x90"), 0  # 250000 µs per beat: 240 BPM
for tick, data in events:
    body += vlq(tick - last) + data; last = tick
body += b"\x00\xff\x2f\x00"
chunk = lambda kind, b: kind + struct.pack(">I", len(b)) + b
open(sys.argv[1], "wb").write(chunk(b"MThd", struct.pack(">HHH", 0, 1, ppq)) + chunk(b"MTrk", bytes(body)))
PY

source Benchmarks/timed-run.sh
network=$(free_port DGRAM); shell=$(free_port STREAM); osc=$(free_port DGRAM)
"$SEQPLAY" serve --network --listen "127.0.0.1:$network" --sf2 "$font" -o /dev/null --no-state \
    --shell "$shell" --osc "$osc" >"$work/serve.out" 2>"$work/serve.log" &
serve=$!
sleep 2
loops=$MINUTES
"$SEQPLAY" "$work/dense.mid" --sf2 "$font" --network-connect "127.0.0.1:$network" --no-audio --loop "$loops" \
    >"$work/feed.log" 2>&1 &
feed=$!

shell_send() { python3 - "$shell" "$@" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(("\n".join(sys.argv[2:]) + "\necho .\n").encode())
s.settimeout(5)
out = b""
while not out.endswith(b".\n"):
    data = s.recv(65536)
    if not data: break
    out += data
print(out.decode()[:-2], end="")
PY
}
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$serve/status"; }

declare -a samples
start=$(date +%s)
for minute in $(seq 1 "$MINUTES"); do
    second=0
    while [ "$(date +%s)" -lt $(( start + minute * 60 )) ]; do
        sleep 1
        second=$(( second + 1 ))
        shell_send "prog $(( second % 16 )) $(( (second * 7) % 50 ))" >/dev/null
        oscsend localhost "$osc" "/seqplay/channel/$(( second % 16 + 1 ))/volume" f 0.$(( second % 9 + 1 )) 2>/dev/null || true
    done
    samples[$minute]=$(rss)
    printf 'minute %3d: RSS %d kB\n' "$minute" "${samples[$minute]}"
done
# The feed ends by itself (the song looped MINUTES times); every note it played has been released.
wait "$feed" || echo "soak: the feed failed: $(tail -1 "$work/feed.log")"
sleep 5
voices=$(shell_send "voice_count" | awk '{ print $2 }')
kill -TERM "$serve"
wait "$serve" || true
late=$(grep -o 'late events: [0-9]*, underruns: [0-9]*' "$work/serve.out" || echo "late events: ?, underruns: ?")

from=$(( MINUTES > 20 ? MINUTES - 20 : (MINUTES + 1) / 2 ))
growth=$(( ${samples[$MINUTES]} - ${samples[$from]} ))
echo "soak: $MINUTES min, $(( $(date +%s) - start )) s; RSS ${samples[1]} kB after 1 min, ${samples[$MINUTES]} kB at the end"
echo "soak: RSS growth from minute $from to $MINUTES: $growth kB ($( [ "$growth" -lt 1024 ] && echo pass || echo FAIL: over 1 MB))"
echo "soak: $late"
echo "soak: stuck notes (voices 5 s after every note was released): $voices ($( [ "$voices" = 0 ] && echo pass || echo FAIL))"
