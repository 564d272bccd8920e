#!/bin/bash
# Network MIDI benchmark: two NetworkMIDI sessions on 127.0.0.1 (real UDP sockets, one process),
# playout latency 0 (delivery as soon as a packet is decoded).
#   - send→receive latency over N events (default 10,000), one event per packet, 200 µs apart:
#     median and p99;
#   - sustained events per second, one event per packet, sender flat out for 2 s.
# Anchor: a 5-pin DIN MIDI cable (31,250 baud) needs 960 µs for one 3-byte note-on and carries at
# most ~1,042 such messages per second.
# Usage: Benchmarks/network-latency.sh [EVENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
EVENTS=${1:-10000}
swift build -c release --product network-midi-probe >/dev/null
PROBE=$(swift build -c release --product network-midi-probe --show-bin-path)/network-midi-probe
OUTPUT=$("$PROBE" bench --events "$EVENTS")
echo "$OUTPUT"
echo "$OUTPUT" | awk '
    /^latency/ { for (i = 1; i <= NF; i++) { if ($i == "median") median = $(i + 1); if ($i == "p99") p99 = $(i + 1) } }
    /^throughput/ { for (i = 1; i <= NF; i++) if ($i == "events/s") rate = $(i - 1) }
    END {
        printf "vs DIN MIDI anchor: median latency %.3fx and p99 %.3fx of 960 µs; throughput %.0fx of 1042 events/s\n",
               median / 960, p99 / 960, rate / 1042
    }'
