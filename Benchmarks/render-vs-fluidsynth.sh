#!/usr/bin/env bash
# seqplay vs `fluidsynth -ni -F` rendering the same songs with the same fonts, in one run:
#   - × real time of each (audio seconds / wall seconds, font loading included) and the ratio
#     seqplay/fluidsynth (target ≥ 1.0; run with `taskset -c 0` to pin both to one core),
#   - peak RSS of each (/usr/bin/time -v; target seqplay ≤ fluidsynth + 20 MB),
#   - onset error of each on the tempo-stress click song (1200 tempo changes; target ≤ 32 samples),
#   - heap allocations per 512-frame block in steady state of seqplay's render loop (target 0).
# Both render at 44100 Hz with reverb and chorus on (their defaults); the timing song renders with
# reverb and chorus off and 32-bit float output on both. seqplay renders with --tail 0, so both
# stop at the end of the song.
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

# run NAME OUTPUT COMMAND...: prints "wall_seconds peak_rss_kb audio_seconds"
run() {
    local output=$1; shift
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt"
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time.txt")
    echo "$wall $rss $(soxi -D "$output")"
}

printf '%-26s %-12s %9s %9s %7s %10s %10s %9s\n' song font "seqplay×" "fluid×" ratio "seqplayMB" "fluidMB" "ΔMB"
for font in "${fonts[@]}"; do
    for song in "${songs[@]}"; do
        read -r s_wall s_rss s_audio < <(run "$work/s.wav" "$seqplay" "$song" --sf2 "$font" -o "$work/s.wav" -r 44100 --tail 0)
        read -r f_wall f_rss f_audio < <(run "$work/f.wav" fluidsynth -ni -q -F "$work/f.wav" -r 44100 -R 1 -C 1 "$font" "$song")
        awk -v song="$(basename "$song")" -v font="$(basename "$font" .sf2)" -v sw="$s_wall" -v sr="$s_rss" -v sa="$s_audio" \
            -v fw="$f_wall" -v fr="$f_rss" -v fa="$f_audio" 'BEGIN {
            sx = sa / (sw > 0 ? sw : 0.01); fx = fa / (fw > 0 ? fw : 0.01)
            printf "%-26s %-12s %9.1f %9.1f %7.2f %10.1f %10.1f %+9.1f\n", substr(song, 1, 26), font, sx, fx, sx / fx, sr / 1024, fr / 1024, (sr - fr) / 1024 }'
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
