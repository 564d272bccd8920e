#!/bin/bash
# Check 12 of Scripts/test-sequencer-peers (also runs alone in the alsa-vm guest):
# network peers as ALSA ports. seqplay serve --network (sound to a file) gets a peer (network-midi-probe
# send); the peer's port must appear in aconnect -l, aseqdump on it must show the peer's phrase in order,
# notes written to the port from VirMIDI must reach the peer over the network, and when the peer leaves
# its port sends All Notes Off and disappears.
#   Scripts/peer-checks/network-bridge.sh SEQPLAY PROBE OUTDIR      (exit status: number of failures)
set -uo pipefail
seqplay=$1 probe=$2 out=$3
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# Waits up to 120 s: in the guest of a loaded host a debug seqplay takes tens of seconds to start.
wait_for() { for _ in $(seq 1200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
virmidi=$(aplaymidi -l | awk '/VirMIDI 0-0/{print $1; exit}')
port=5104
ip link set lo up  # the guest's init leaves the loopback interface down

"$seqplay" serve --network --listen 127.0.0.1:$port -o "$out/bridge.wav" --duration 60 \
    --sf2 /usr/share/sounds/sf2/FluidR3_GM.sf2 >"$out/bridge-serve.out" 2>"$out/bridge-serve.err" & serve=$!
wait_for "$out/bridge-serve.err" "serving on" || fail "serve did not start"
# The probe sends its phrase once aseqdump listens on its port (the go-ahead file), not after a fixed time:
# under load the guest took longer than the clock syncs to announce the port.
rm -f "$out/bridge-go"
"$probe" send --connect 127.0.0.1:$port --notes 4 --sync 2 --stay 25 --timeout 120 --go-when "$out/bridge-go" \
    >"$out/bridge-probe.out" 2>&1 & probe_pid=$!
wait_for "$out/bridge-serve.err" "is ALSA port" || fail "no ALSA port announced for the peer"
peer_port=$(sed -nE "s/.*network peer 'seqplay probe' is ALSA port ([0-9]+:[0-9]+).*/\1/p" "$out/bridge-serve.err")
if [ -n "$peer_port" ]; then
    stdbuf -oL aseqdump -p "$peer_port" >"$out/bridge-aseqdump.txt" 2>&1 & dump=$!
    wait_for "$out/bridge-aseqdump.txt" "Waiting for data" || fail "aseqdump did not subscribe to $peer_port"
else
    dump=; : >"$out/bridge-aseqdump.txt"
fi
touch "$out/bridge-go"
aconnect -l >"$out/bridge-aconnect-connected.txt"
client=${peer_port%%:*} number=${peer_port##*:}
grep -A20 "^client $client: 'seqplay serve'" "$out/bridge-aconnect-connected.txt" | grep -qE "^ +$number 'seqplay probe *'" \
    && pass "network peer 'seqplay probe' appears as port $peer_port of client 'seqplay serve' in aconnect -l" \
    || { fail "peer port $peer_port not in aconnect -l"; cat "$out/bridge-aconnect-connected.txt"; }

# ALSA → network: once the phrase is through, VirMIDI (rawmidi bytes) → the peer's port → the session → the probe.
wait_for "$out/bridge-aseqdump.txt" "System exclusive" || fail "the phrase did not reach aseqdump"
aconnect "$virmidi" "$peer_port" && amidi -p hw:VirMIDI,0 -S '90 45 50 80 45 00 B3 0A 22'
wait $probe_pid; echo "probe exit status $?"
wait_for "$out/bridge-serve.err" "of network peer 'seqplay probe' removed" || fail "the peer's port was not removed"
sleep 0.5; aconnect -l >"$out/bridge-aconnect-left.txt"; kill -0 $serve && serve_running=yes || serve_running=no
kill -TERM $serve; wait $serve; echo "serve exit status $?"
[ -n "$dump" ] && { kill $dump; wait $dump 2>/dev/null; }
cat "$out/bridge-serve.err" "$out/bridge-probe.out" "$out/bridge-aseqdump.txt"

python3 - "$out/bridge-aseqdump.txt" "$peer_port" <<'PY' && pass "aseqdump on the peer's port: the peer's phrase in order, then All Notes Off on 16 channels as it left" || fail "aseqdump on the peer's port"
import re, sys
events = []
for line in open(sys.argv[1]):
    if m := re.match(r"\s*" + sys.argv[2] + r"\s+([A-Za-z ]+?)\s{2,}(.*)$", line.rstrip()):
        events.append((m[1], tuple(int(n) for n in re.findall(r"-?\d+", m[2])) if m[1] != "System exclusive" else m[2].strip()))
expected = [("Program change", (0, 5)), ("Control change", (0, 7, 100))]
for i in range(4):
    expected += [("Note on", (0, 60 + i, 100)), ("Pitch bend", (0, i * 100)), ("Note off", (0, 60 + i, 0))]
expected += [("System exclusive", "F0 7E 7F 09 01 F7")]
expected += [("Control change", (channel, 123, 0)) for channel in range(16)]
print("aseqdump events:", len(events), "expected:", len(expected))
for got, want in zip(events, expected):
    if got != want: print("  got", got, "want", want)
sys.exit(0 if events == expected else 1)
PY
grep -q "noteOn(channel: 0, note: 69, velocity: 80)" "$out/bridge-probe.out" \
    && grep -q "noteOff(channel: 0, note: 69" "$out/bridge-probe.out" \
    && grep -q "controlChange(channel: 3, controller: 10, value: 34)" "$out/bridge-probe.out" \
    && pass "notes written to the peer's ALSA port (from VirMIDI) reached the network peer" \
    || fail "the network peer did not receive what was written to its ALSA port"
! grep -q "'seqplay probe" "$out/bridge-aconnect-left.txt" && [ $serve_running = yes ] \
    && pass "after the peer left, its port is gone from aconnect -l (seqplay serve still running)" \
    || { fail "the peer's port is still listed after it left"; cat "$out/bridge-aconnect-left.txt"; }
exit $fails
