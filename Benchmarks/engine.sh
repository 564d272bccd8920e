#!/usr/bin/env bash
# seqplay's own SoundFont engine (issue 31) against libfluidsynth, in one run: the generated 1M-note,
# 16-channel dense song (Benchmarks/make-dense-song.py, numpy) and a typical song (Songs/bach-prelude-c.mid),
# rendered dry (no reverb, no chorus) at the same voice budget (POLYPHONY, default 256) with FluidR3_GM at
# 44.1 kHz by `fluidsynth -F`, by seqplay `--engine fluidsynth` and by seqplay `--engine seqplay` (release
# build), each on one thread, and `--engine seqplay` on all threads too (its voices' sample work split over
# them, the same bytes). Prints wall and CPU seconds, peak RSS (/usr/bin/time -v), the ratios to
# `fluidsynth -F`, and the CPU ns per voice-sample at a full pool (CPU time / (frames × POLYPHONY): the
# dense song keeps the pool nearly full; for the typical song, where it is not, it is only a lower bound).
# Targets (issue 31): the dense song at 3× fluidsynth -F's speed on one thread and 5.5× on two, peak RSS
# within its + 40 MB. Then the typical song with an SF3 font: both decode its Ogg Vorbis samples at load, so
# the rows compare the memory each holds. The machine's load average is printed first: other work on the
# cores skews wall times.
#   Benchmarks/engine.sh   (SONG=FILE: the typical song; FONT=FILE: the font; SF3=FILE: the SF3 font, Debian's
#                           MuseScore_General.sf3 by default, its rows left out when it is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/timed-run.sh
bench_setup engine
typical=${SONG:-Songs/bach-prelude-c.mid}
dense="$bench/dense-1000000.mid"
[ -f "$dense" ] || python3 Benchmarks/make-dense-song.py "$dense" 1000000

# row: the ratio of fluidsynth's wall time to this one's (speed) and of its CPU time to this one's (the speed
# on an idle machine, for one thread), the RSS difference, ns per voice-sample
compared() {
    awk -v w="$last_wall" -v fw="$fluid_wall" -v fc="$fluid_cpu" -v r="$last_rss" -v fr="$fluid_rss" -v c="$last_cpu" -v a="$last_audio" -v p="$polyphony" \
        'BEGIN { printf "  %5.2fx (CPU %5.2fx)  %+7.1f MB  %6.2f ns\n", fw / w, fc / c, r - fr, (a > 0 ? c * 1e9 / (a * 44100 * p) : 0) }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-44s %8s %8s %9s %8s  %s\n' "" "wall s" "CPU s" "peak MB" "audio s" "speed vs fluidsynth (wall, CPU), RSS, ns/voice-sample"
for song in "$dense" "$typical"; do
    label=$(basename "$song" .mid)
    run "$label: fluidsynth -F" "$work/f.wav" \
        fluidsynth -ni -q -R 0 -C 0 -F "$work/f.wav" -r 44100 -o synth.polyphony="$polyphony" "$font" "$song"
    fluid_wall=$last_wall; fluid_cpu=$last_cpu; fluid_rss=$last_rss
    compared
    for engine in fluidsynth seqplay seqplay-threads; do
        threads=1
        [ "$engine" = seqplay-threads ] && { engine=seqplay; threads=$(nproc); }
        run "$label: seqplay --engine $engine --threads $threads" "$work/s.wav" "$seqplay" "$song" --sf2 "$font" -o "$work/s.wav" \
            --polyphony "$polyphony" --no-reverb --no-chorus --threads "$threads" --engine "$engine"
        compared
    done
done

# An SF3 font (Ogg Vorbis samples, decoded at load by both): the memory each holds, the typical song on one thread.
sf3=${SF3:-/usr/share/sounds/sf3/MuseScore_General.sf3}
if [ -f "$sf3" ]; then
    label="$(basename "$typical" .mid), $(basename "$sf3")"
    run "$label: fluidsynth -F" "$work/f.wav" \
        fluidsynth -ni -q -R 0 -C 0 -F "$work/f.wav" -r 44100 -o synth.polyphony="$polyphony" "$sf3" "$typical"
    fluid_wall=$last_wall; fluid_cpu=$last_cpu; fluid_rss=$last_rss
    compared
    run "$label: seqplay --engine seqplay" "$work/s.wav" "$seqplay" "$typical" --sf2 "$sf3" -o "$work/s.wav" \
        --polyphony "$polyphony" --no-reverb --no-chorus --threads 1 --engine seqplay
    compared
fi
