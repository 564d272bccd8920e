#!/usr/bin/env bash
# seqplay vs `fluidsynth -ni -F` rendering the same songs with the same fonts, in one run:
#   - × real time of each (audio seconds / wall seconds, font loading included) and the ratio
#     seqplay/fluidsynth (target ≥ 1.0; run with `taskset -c 0` to pin both to one core). Each tool
#     renders each song RUNS times (default 3), alternating, and its fastest run counts, so a
#     moment of load elsewhere on the machine does not decide the ratio. Both render the same
#     number of frames: `fluidsynth -F` plays on until its last voice has died away (3–12 s after
#     the last event with these fonts), so seqplay renders the song with that same tail
#     (`--tail` fixed to fluidsynth's extra length). The cpu ratio (fluidsynth's CPU seconds per
#     audio second over seqplay's, user + system, fastest run each) is the same comparison, less
#     at the mercy of other load on a shared machine,
#   - peak RSS of each (/usr/bin/time -v; target seqplay ≤ fluidsynth + 20 MB),
#   - onset error of each on the tempo-stress click song (1200 tempo changes; target ≤ 32 samples),
#   - heap allocations per 512-frame block in steady state of seqplay's render loop (target 0).
# Both render at 44100 Hz with reverb and chorus on (their defaults); the timing song renders with
# reverb and chorus off and 32-bit float output on both.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup >/dev/null
swift build -c release --product seqplay >/dev/null 2>&1
swift build -c release --product RenderBenchmark >/dev/null 2>&1
seqplay=.build/release/seqplay
helper=.build/release/RenderBenchmark
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fonts=(/usr/share/sounds/sf2/FluidR3_GM.sf2 /usr/share/sounds/sf2/TimGM6mb.sf2)
songs=(Songs/*.mid)
corpus=../shared/corpus/wellformed
for extra in "$corpus/gh-kovaxis-midly/Clementi.mid" "$corpus/gh-kovaxis-midly/Sandstorm.mid"; do
    [ -f "$extra" ] && songs+=("$extra")
done

# run OUTPUT COMMAND...: prints "wall_seconds peak_rss_kb audio_seconds cpu_seconds"
run() {
    local output=$1; shift
    local start=$EPOCHREALTIME
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt"
    local wall rss
    wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }')
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time.txt")
    cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { print s }' "$work/time.txt")
    echo "$wall $rss $(soxi -D "$output") $cpu"
}

runs=${RUNS:-3}
printf '%-26s %-12s %7s %9s %9s %7s %9s %10s %10s %9s\n' song font audio/s "seqplay×" "fluid×" ratio "cpu ratio" "seqplayMB" "fluidMB" "ΔMB"
for font in "${fonts[@]}"; do
    for song in "${songs[@]}"; do
        # The song's own length (seqplay, no tail), then fluidsynth's length, to give seqplay the same tail.
        read -r _ _ song_seconds < <(run "$work/s.wav" "$seqplay" "$song" --sf2 "$font" -o "$work/s.wav" -r 44100 --tail 0)
        read -r _ _ f_audio < <(run "$work/f.wav" fluidsynth -ni -q -F "$work/f.wav" -r 44100 -R 1 -C 1 "$font" "$song")
        tail=$(awk -v f="$f_audio" -v s="$song_seconds" 'BEGIN { t = f - s; printf "%.6f", (t > 0 ? t : 0) }')
        s_best=; f_best=; s_cpu_best=; f_cpu_best=; s_peak=0; f_peak=0
        for ((i = 0; i < runs; i++)); do
            read -r s_wall s_rss s_audio s_cpu < <(run "$work/s.wav" "$seqplay" "$song" --sf2 "$font" -o "$work/s.wav" -r 44100 --tail "$tail")
            read -r f_wall f_rss f_audio f_cpu < <(run "$work/f.wav" fluidsynth -ni -q -F "$work/f.wav" -r 44100 -R 1 -C 1 "$font" "$song")
            s_cpu_best=$(awk -v a="$s_cpu" -v b="${s_cpu_best:-$s_cpu}" 'BEGIN { print (a < b ? a : b) }')
            f_cpu_best=$(awk -v a="$f_cpu" -v b="${f_cpu_best:-$f_cpu}" 'BEGIN { print (a < b ? a : b) }')
            s_best=$(awk -v a="$s_wall" -v b="${s_best:-$s_wall}" 'BEGIN { print (a < b ? a : b) }')
            f_best=$(awk -v a="$f_wall" -v b="${f_best:-$f_wall}" 'BEGIN { print (a < b ? a : b) }')
            s_peak=$(( s_rss > s_peak ? s_rss : s_peak )); f_peak=$(( f_rss > f_peak ? f_rss : f_peak ))
        done
        awk -v song="$(basename "$song")" -v font="$(basename "$font" .sf2)" -v sw="$s_best" -v sr="$s_peak" -v sa="$s_audio" \
            -v fw="$f_best" -v fr="$f_peak" -v fa="$f_audio" -v sc="$s_cpu_best" -v fc="$f_cpu_best" 'BEGIN {
            sx = sa / (sw > 0 ? sw : 0.01); fx = fa / (fw > 0 ? fw : 0.01)
            printf "%-26s %-12s %7.1f %9.1f %9.1f %7.2f %9.2f %10.1f %10.1f %+9.1f\n", substr(song, 1, 26), font, sa, sx, fx, sx / fx,
                (fc / fa) / ((sc > 0 ? sc : 0.01) / sa), sr / 1024, fr / 1024, (sr - fr) / 1024 }'
    done
done

echo
"$helper" tempo-stress-song "$work/tempo-stress.mid" | sed 's/^/tempo-stress song: /'
"$seqplay" "$work/tempo-stress.mid" --sf2 SoundFonts/click.sf2 -o "$work/s-click.wav" -r 44100 --no-reverb --no-chorus --bit-depth float --tail 0.2
fluidsynth -ni -q -F "$work/f-click.wav" -O float -r 44100 -R 0 -C 0 SoundFonts/click.sf2 "$work/tempo-stress.mid" >/dev/null
read -r s_found s_max s_mean < <("$helper" timing "$work/s-click.wav")
read -r f_found f_max f_mean < <("$helper" timing "$work/f-click.wav")
printf '%-28s %12s %12s\n' "onset error (samples)" seqplay fluidsynth
printf '%-28s %12s %12s\n' "onsets found/expected" "$s_found" "$f_found"
printf '%-28s %12s %12s\n' "max error" "$s_max" "$f_max"
printf '%-28s %12s %12s\n' "mean error" "$s_mean" "$f_mean"

echo
read -r allocations blocks per_block < <("$helper" allocations Songs/bach-prelude-c.mid /usr/share/sounds/sf2/FluidR3_GM.sf2)
echo "allocations in steady state (bach-prelude-c, FluidR3_GM, after the first second): $allocations over $blocks blocks = $per_block per block"
