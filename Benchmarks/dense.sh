#!/usr/bin/env bash
# Dense ("black MIDI") songs, in one run: a generated 4-minute, 16-channel song of 1M notes and one of
# 10M (random keys, 20-240 ticks long; Benchmarks/make-dense-song.py, numpy), rendered by
# `fluidsynth -F` and by seqplay (release build) at the same voice budget (POLYPHONY, default 256)
# with FluidR3_GM, 44.1 kHz, reverb and chorus on: seqplay on one thread and on all threads. Prints
# wall and CPU seconds, peak RSS (/usr/bin/time -v), seconds of audio, and the ratios to FluidSynth;
# then `seqplay info` and `seqplay library add` on the 10M file.
# Targets (issue 24): 1M notes, one thread <= 1.1x FluidSynth's wall time, all threads (2 here)
# <= 1/1.5 of it, peak RSS <= FluidSynth's + 40 MB on one thread; 10M notes under 1 GB; info and
# library add on 10M in seconds.
#   Benchmarks/dense.sh                 (SKIP_10M=1: the 1M song only; SKIP_FLUID_10M=1: no FluidSynth on 10M)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/timed-run.sh
bench_setup dense
threads=$(nproc)

songs=(1000000)
[ "${SKIP_10M:-0}" = 1 ] || songs+=(10000000)
for notes in "${songs[@]}"; do
    [ -f "$bench/dense-$notes.mid" ] || python3 Benchmarks/make-dense-song.py "$bench/dense-$notes.mid" "$notes"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

printf '%-44s %8s %8s %9s %8s  %s\n' "" "wall s" "CPU s" "peak MB" "audio s" "vs fluidsynth (wall, RSS)"
for notes in "${songs[@]}"; do
    song="$bench/dense-$notes.mid"
    label="$((notes / 1000000))M notes"
    fluid_wall=; fluid_rss=
    if [ "$notes" -lt 10000000 ] || [ "${SKIP_FLUID_10M:-0}" != 1 ]; then
        run "$label fluidsynth -F (polyphony $polyphony)" "$work/f.wav" \
            fluidsynth -ni -q -F "$work/f.wav" -r 44100 -o synth.polyphony="$polyphony" "$font" "$song"
        fluid_wall=$last_wall; fluid_rss=$last_rss
        echo
    fi
    for t in 1 "$threads"; do
        run "$label seqplay --threads $t (polyphony $polyphony)" "$work/s.wav" \
            "$seqplay" "$song" --sf2 "$font" -o "$work/s.wav" --polyphony "$polyphony" --threads "$t"
        if [ -n "$fluid_wall" ]; then
            printf '  %sx, %+.1f MB' "$(ratio "$last_wall" "$fluid_wall")" "$(awk -v a="$last_rss" -v b="$fluid_rss" 'BEGIN { print a - b }')"
        fi
        echo
    done
done

if [ "${SKIP_10M:-0}" != 1 ]; then
    song="$bench/dense-10000000.mid"
    run "10M notes seqplay info" "" "$seqplay" info "$song"; echo
    rm -f "$work/library.db"
    run "10M notes seqplay library add" "" "$seqplay" library add --db "$work/library.db" "$song"; echo
fi
