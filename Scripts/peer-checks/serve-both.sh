#!/bin/bash
# Check 17 of Scripts/test-sequencer-peers (runs in the alsa-vm guest): seqplay serve --network --ports 2 serves
# both kinds of producer into one live-input layer and one sampler graph, recorded to a file (-o, on a clock).
# A network peer (network-midi-probe send) plays its phrase and leaves; its ALSA port appears in client
# 'seqplay serve network' while it is connected; then VirMIDI 0 → in-1 holds an organ note and is disconnected
# mid-note. The recording must hold the phrase, then the organ, then silence (the organ released).
#   Scripts/peer-checks/serve-both.sh SEQPLAY PROBE FONT OUTDIR      (exit status: number of failures)
set -uo pipefail
seqplay=$1 probe=$2 font=$3 out=$4
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
wait_up_to() { for _ in $(seq $(($3 * 10))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
virmidi0=$(aplaymidi -l | awk '/VirMIDI 0-0/{print $1; exit}')
port=5124
ip link set lo up  # the guest's init leaves the loopback interface down

"$seqplay" serve --network --ports 2 --listen 127.0.0.1:$port -o "$out/serve-both.wav" --sf2 "$font" --no-reverb --no-chorus \
    >"$out/serve-both.out" 2>"$out/serve-both.err" & serve=$!
wait_up_to "$out/serve-both.err" "^Playing" 90 || fail "seqplay serve --network --ports 2 did not say Playing within 90 s"
ports=$(sed -nE 's/.*ports ([0-9]+:[0-9]+) ([0-9]+:[0-9]+);.*/\1 \2/p' "$out/serve-both.err")
in1=${ports% *} in2=${ports#* }
grep -q "network session at 127.0.0.1:$port" "$out/serve-both.err" && [ -n "$in1" ] && [ -n "$in2" ] \
    && pass "serve --network --ports 2: ports $in1 $in2 and the network session at 127.0.0.1:$port in one process" \
    || fail "serve --network --ports 2 did not announce both inputs"

# --stay 8: the peer must still be there when aconnect -l runs (a loaded host makes each guest process start take seconds).
"$probe" send --connect 127.0.0.1:$port --notes 4 --sync 2 --stay 8 >"$out/serve-both-probe.out" 2>&1 & probe_pid=$!
wait_up_to "$out/serve-both.err" "is ALSA port" 60 || fail "no ALSA port announced for the peer"
peer_port=$(sed -nE "s/.*network peer 'seqplay probe' is ALSA port ([0-9]+:[0-9]+).*/\1/p" "$out/serve-both.err")
aconnect -l >"$out/serve-both-aconnect.txt"
grep -A20 "^client ${peer_port%%:*}: 'seqplay serve network'" "$out/serve-both-aconnect.txt" | grep -qE "^ +${peer_port##*:} 'seqplay probe *'" \
    && grep -qE "^client ${in1%%:*}: 'seqplay serve'" "$out/serve-both-aconnect.txt" \
    && pass "the network peer is port $peer_port of 'seqplay serve network' beside the input ports of 'seqplay serve'" \
    || { fail "aconnect -l does not show the peer's port beside the input ports"; cat "$out/serve-both-aconnect.txt"; }
wait $probe_pid; echo "probe exit status $?"
wait_up_to "$out/serve-both.err" "of network peer 'seqplay probe' removed" 30 || fail "the peer's port was not removed"
sleep 1
aconnect "$virmidi0" "$in1"; amidi -p hw:VirMIDI,0 -S 'C0 13'; sleep 0.3
amidi -p hw:VirMIDI,0 -S '90 43 7F'; sleep 1.5
aconnect -d "$virmidi0" "$in1"; sleep 3
kill -TERM $serve; wait $serve; status=$?
cat "$out/serve-both.err" "$out/serve-both.out" "$out/serve-both-probe.out"
[ $status = 0 ] && pass "serve ended on SIGTERM with status 0" || fail "serve exit status $status"
echo "note: $(grep 'late events' "$out/serve-both.out")"
# sox reads every WAV flavour seqplay writes (RF64, WAVE_FORMAT_EXTENSIBLE); the check reads raw 16-bit stereo.
sox "$out/serve-both.wav" -t raw -e signed-integer -b 16 -c 2 "$out/serve-both.raw"
python3 - "$out/serve-both.raw" <<'PY' \
    && pass "the recording holds the network peer's phrase, then the port's organ note, then silence (released on disconnect)" \
    || fail "serve --network --ports 2: recording"
import sys, array
rate = 48000
a = array.array("h"); a.frombytes(open(sys.argv[1], "rb").read()); left = a[0::2]; threshold = 200
loud = [i for i, v in enumerate(left) if abs(v) > threshold]
if not loud: print("no sound recorded"); sys.exit(1)
regions, start, last = [], loud[0], loud[0]
for i in loud[1:]:
    if i - last > rate * 0.4: regions.append((start, last)); start = i
    last = i
regions.append((start, last))
print(f"recording {len(left) / rate:.1f} s; sound regions (s):", [(round(s / rate, 2), round(e / rate, 2)) for s, e in regions])
if len(regions) != 2: print("expected 2 sound regions (the peer's phrase, the port's organ note)"); sys.exit(1)
phrase, organ = regions
rms = lambda s, e: (sum(v * v for v in left[int(s):int(e)]) / max(int(e) - int(s), 1)) ** 0.5
held = rms(organ[0] + 0.8 * rate, organ[0] + 0.9 * rate) / rms(organ[0] + 0.05 * rate, organ[0] + 0.15 * rate)
print(f"phrase {(phrase[1] - phrase[0]) / rate:.2f} s; organ {(organ[1] - organ[0]) / rate:.2f} s, level after 0.8 s {held:.2f} of its onset's; "
      f"then silence for {(len(left) - organ[1]) / rate:.1f} s")
# Released on the disconnect, not at SIGTERM (3 s after it): silence before the end. The organ's length is only
# printed: it includes however late the guest ran `aconnect -d` (4.9 s in a run with load 8 on the host).
sys.exit(0 if held > 0.7 and len(left) - organ[1] > 1.5 * rate else 1)
PY
exit $fails
