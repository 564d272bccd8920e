#!/bin/bash
# Real time through JACK at 64-frame periods, by engine (issue 31): `seqplay serve --network -a jack` fed the
# 1M-note, 16-channel dense song over RTP-MIDI by `seqplay --network-connect` (its pool of 256 voices kept
# full), on a private `jackd --no-realtime -d dummy -p 64` (1.45 ms periods at 44.1 kHz), for SECONDS (default 30)
# with `--engine fluidsynth` and with `--engine seqplay`, dry. Before them the same server runs the same time
# with no client: the xruns the machine makes on its own (the dummy driver's timer waking late).
# Prints per round: serve's xruns (JACK's xrun callback, `underruns` in serve's summary) and late events, the
# server's own late wake-ups (jackd's "XRun" lines), serve's renders longer than their period ("overlong"; serve
# times every render of a period by the clock and by the render thread's CPU time) and of those the ones whose
# work alone was ("by work": the xruns seqplay's rendering made), its longest render and longest work in ms, and
# the DSP load `jack_cpu_load` reports (mean and maximum, percent of the period). An xrun with no render longer
# than its period by its work came from the machine (a late wake-up, a preempted thread), not from the engine.
#   Benchmarks/engine-realtime.sh [SECONDS]     release build; FONT=FILE (FluidR3_GM), POLYPHONY=N (256)
# On a machine shared with other work (or without real-time scheduling) both engines show the machine's xruns:
# run it on a quiet machine, and compare the rounds with each other and with the idle one.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
source Benchmarks/timed-run.sh
bench_setup engine
dense="$bench/dense-1000000.mid"
[ -f "$dense" ] || python3 Benchmarks/make-dense-song.py "$dense" 1000000
command -v jackd >/dev/null || { echo "engine-realtime: no jackd (Scripts/setup installs jackd2)"; exit 1; }

export JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1 JACK_DEFAULT_SERVER=seqplay-rt-$$
jackd --no-realtime -d dummy -r 44100 -p 64 >"$work/jackd.log" 2>&1 &
jackd=$!
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do jack_lsp >/dev/null 2>&1 && break; sleep 0.1; done

# round NAME [ENGINE]: SECONDS of the server (with serve and the feed when ENGINE is given); prints its row.
round() {
    local name=$1 engine=${2:-} serve="" before load xruns="-" late="-" overlong="-" bywork="-" longest="-" longestwork="-"
    before=$(grep -c XRun "$work/jackd.log" || true)
    jack_cpu_load >"$work/load.txt" 2>/dev/null &
    load=$!
    if [ -n "$engine" ]; then
        local network
        network=$(free_port DGRAM)
        "$seqplay" serve --network --listen "127.0.0.1:$network" --sf2 "$font" --engine "$engine" -a jack \
            --polyphony "$polyphony" --no-reverb --no-chorus --no-state >"$work/serve.out" 2>"$work/serve.log" &
        serve=$!
        sleep 2
        timeout $(( seconds + 30 )) "$seqplay" "$dense" --sf2 "$font" --network-connect "127.0.0.1:$network" --no-audio \
            --end "$seconds" >"$work/feed.log" 2>&1 || echo "engine-realtime: the feed failed: $(tail -1 "$work/feed.log")"
        kill -TERM "$serve"; wait "$serve" || true
        xruns=$(grep -o 'underruns: [0-9]*' "$work/serve.out" | grep -o '[0-9]*' || echo "?")
        late=$(grep -o 'late events: [0-9]*' "$work/serve.out" | grep -o '[0-9]*' || echo "?")
        # "renders longer than their period: N (by their work alone: M; longest X ms, longest work Y ms, mean Z ms)"
        local times
        times=$(sed -nE 's/.*renders longer than their period: ([0-9]+) \(by their work alone: ([0-9]+); longest ([0-9.]+) ms, longest work ([0-9.]+) ms.*/\1 \2 \3 \4/p' "$work/serve.out" | tail -1)
        read -r overlong bywork longest longestwork <<<"${times:-? ? ? ?}"
    else
        sleep "$seconds"
    fi
    kill "$load"; wait "$load" 2>/dev/null || true
    local server=$(( $(grep -c XRun "$work/jackd.log" || true) - before ))
    awk -v name="$name" -v x="$xruns" -v l="$late" -v s="$server" -v o="$overlong" -v b="$bywork" -v g="$longest" -v w="$longestwork" '
        /DSP load/ { v = $4 * 1; sum += v; n++; if (v > max) max = v }
        END { printf "%-28s %7s %6s %9s %9s %8s %9s %9s %9.1f %8.1f\n", name, x, l, s, o, b, g, w, (n ? sum / n : 0), max }' "$work/load.txt"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $seconds s a round, 64-frame periods, 44.1 kHz, $polyphony voices"
printf '%-28s %7s %6s %9s %9s %8s %9s %9s %9s %8s\n' "" "xruns" "late" "server's" "overlong" "by work" "longest" "work" "DSP mean" "DSP max"
round "idle server (no client)"
round "serve --engine fluidsynth" fluidsynth
round "serve --engine seqplay" seqplay
