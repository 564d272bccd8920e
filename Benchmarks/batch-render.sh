#!/usr/bin/env bash
# Batch rendering (issue 12), in one run on the same files, FluidR3_GM at 44.1 kHz, reverb and chorus on
# (both tools' defaults):
#   - short songs: up to MAX_FILES (default 44) corpus files of 5–60 s (../shared/corpus wellformed/ and
#     synthetic/, as `seqplay info` measures them; malformed/ is left out: fluidsynth -F renders one of its
#     files for minutes), rendered by
#       1. a sequential loop of `fluidsynth -ni -F` (the anchor),
#       2. `xargs -P2 fluidsynth -ni -F` (two at a time),
#       3. `seqplay render DIR --output-dir OUT --jobs 2` (one process, the font loaded once);
#     × real time of each (audio seconds written / wall seconds), seqplay's ratio to 1 (target ≥ 4)
#     and to 2 (target ≥ 2), and peak RSS (target: seqplay's batch ≤ one fluidsynth process + 60 MB);
#   - one long song (LONG_SONG, default the longest corpus file up to 10 min among those scanned) rendered by
#     `fluidsynth -F` and by `seqplay --threads 1` and `--threads 2` (best of RUNS, default 3, each): × real
#     time, the ratio of --threads 2 to fluidsynth (target ≥ 1.7×) and to --threads 1, and whether the two
#     seqplay outputs are the same bytes. LONG_ONLY=1 measures only this part (run it when `uptime` is low).
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup >/dev/null
# SEQPLAY=path runs an already built binary instead of building one.
if [ -z "${SEQPLAY:-}" ]; then swift build -c release --product seqplay >/dev/null 2>&1; fi
seqplay=${SEQPLAY:-$PWD/.build/release/seqplay}
font=/usr/share/sounds/sf2/FluidR3_GM.sf2
corpus=${CORPUS:-../shared/corpus}
max_files=${MAX_FILES:-44}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# duration FILE: the song's length in seconds as seqplay reads it (nothing for a file it refuses).
duration() {
    "$seqplay" info "$1" --json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["duration"]["seconds"])' 2>/dev/null || true
}

mkdir -p "$work/in" "$work/fluid" "$work/xargs" "$work/seqplay"
count=0
longest=; longest_seconds=0
# With LONG_ONLY and LONG_SONG set there is nothing to scan for.
[ -n "${LONG_ONLY:-}" ] && [ -n "${LONG_SONG:-}" ] && max_files=0
while (( count < max_files )) && IFS= read -r file; do
    seconds=$(duration "$file")
    [ -n "$seconds" ] || continue
    if awk -v s="$seconds" -v l="$longest_seconds" 'BEGIN { exit !(s > l && s <= 600) }'; then longest=$file; longest_seconds=$seconds; fi
    awk -v s="$seconds" 'BEGIN { exit !(s >= 5 && s <= 60) }' || continue
    count=$((count + 1))
    cp "$file" "$work/in/$(printf '%03d' "$count")-$(basename "$file" | tr -c 'A-Za-z0-9._\n-' '_')"
    (( count < max_files )) || break
done < <(find "$corpus/wellformed" "$corpus/synthetic" -type f \( -iname '*.mid' -o -iname '*.midi' -o -iname '*.kar' -o -iname '*.smf' \) \
          ! -iname '*invalid*' | sort)
long_song=${LONG_SONG:-$longest}

# measure NAME COMMAND...: runs the command under /usr/bin/time; sets wall and rss_mb.
measure() {
    local name=$1; shift
    local start=$EPOCHREALTIME
    /usr/bin/time -v "$@" >/dev/null 2>"$work/$name.time" || true
    wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    rss_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/$name.time")
}
# audio DIR: seconds of audio in the WAV files under DIR.
audio() { find "$1" -name '*.wav' -print0 | xargs -0 -r soxi -D | awk '{ s += $1 } END { printf "%.1f", s }'; }

fluid_one() { fluidsynth -ni -q -F "$2/$(basename "$1").wav" -r 44100 "$font" "$1" >/dev/null 2>&1; }
export -f fluid_one
export font

if [ -z "${LONG_ONLY:-}" ]; then
measure fluid bash -c 'for f in "$0"/*; do fluid_one "$f" "$1"; done' "$work/in" "$work/fluid"
fluid_wall=$wall; fluid_rss=$rss_mb; fluid_audio=$(audio "$work/fluid")
measure xargs bash -c 'find "$0" -type f -print0 | xargs -0 -P2 -I{} bash -c "fluid_one \"\$1\" \"\$2\"" _ {} "$1"' "$work/in" "$work/xargs"
xargs_wall=$wall; xargs_audio=$(audio "$work/xargs")
# One fluidsynth process's peak RSS (the largest of the sequential loop's children).
measure seqplay "$seqplay" render "$work/in" --output-dir "$work/seqplay" --sf2 "$font" -r 44100 --jobs 2
seq_wall=$wall; seq_rss=$rss_mb; seq_audio=$(audio "$work/seqplay")
failed=$(( count - $(find "$work/seqplay" -name '*.wav' | wc -l) ))

echo "short songs: $count files of 5–60 s from $corpus ($(audio "$work/seqplay") s of audio as seqplay renders them; $failed not rendered), FluidR3_GM, 44.1 kHz"
printf '%-44s %8s %10s %10s\n' "" "wall s" "× real" "peak MB"
printf '%-44s %8.2f %10.1f %10s\n' "fluidsynth -F, one file at a time" "$fluid_wall" "$(awk -v a="$fluid_audio" -v w="$fluid_wall" 'BEGIN { print a / w }')" "$fluid_rss"
printf '%-44s %8.2f %10.1f %10s\n' "xargs -P2 fluidsynth -F" "$xargs_wall" "$(awk -v a="$xargs_audio" -v w="$xargs_wall" 'BEGIN { print a / w }')" "-"
printf '%-44s %8.2f %10.1f %10s\n' "seqplay render DIR --jobs 2" "$seq_wall" "$(awk -v a="$seq_audio" -v w="$seq_wall" 'BEGIN { print a / w }')" "$seq_rss"
awk -v f="$fluid_wall" -v x="$xargs_wall" -v s="$seq_wall" -v fa="$fluid_audio" -v xa="$xargs_audio" -v sa="$seq_audio" 'BEGIN {
    printf "ratio (× real time) seqplay / sequential fluidsynth: %.2f (target ≥ 4)\n", (sa / s) / (fa / f)
    printf "ratio (× real time) seqplay / xargs -P2 fluidsynth:  %.2f (target ≥ 2)\n", (sa / s) / (xa / x) }'
echo "peak RSS: seqplay batch $seq_rss MB, one fluidsynth process $fluid_rss MB (target: ≤ +60 MB)"
fi

echo
if "$seqplay" render --help 2>&1 | grep -q -- '--threads'; then
    long_seconds=$(duration "$long_song")
    # best NAME COMMAND...: the shortest wall time of RUNS runs (sets wall).
    best() {
        local name=$1 shortest=; shift
        for _ in $(seq "${RUNS:-3}"); do
            measure "$name" "$@"
            if [ -z "$shortest" ] || awk -v a="$wall" -v b="$shortest" 'BEGIN { exit !(a < b) }'; then shortest=$wall; fi
        done
        wall=$shortest
    }
    best long-fluid fluidsynth -ni -q -F "$work/long-f.wav" -r 44100 "$font" "$long_song"
    lf_wall=$wall; lf_audio=$(soxi -D "$work/long-f.wav")
    best long-seqplay1 "$seqplay" "$long_song" --sf2 "$font" -r 44100 -o "$work/long-s1.wav" --threads 1
    l1_wall=$wall; l1_audio=$(soxi -D "$work/long-s1.wav")
    best long-seqplay2 "$seqplay" "$long_song" --sf2 "$font" -r 44100 -o "$work/long-s2.wav" --threads 2
    l2_wall=$wall; l2_audio=$(soxi -D "$work/long-s2.wav")
    same=$(cmp -s "$work/long-s1.wav" "$work/long-s2.wav" && echo "the same bytes" || echo "DIFFERENT bytes")
    echo "long song: $(basename "$long_song") ($long_seconds s), best of ${RUNS:-3}, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
    printf '%-44s %8s %10s\n' "" "wall s" "× real"
    printf '%-44s %8.2f %10.1f\n' "fluidsynth -F" "$lf_wall" "$(awk -v a="$lf_audio" -v w="$lf_wall" 'BEGIN { print a / w }')"
    printf '%-44s %8.2f %10.1f\n' "seqplay --threads 1" "$l1_wall" "$(awk -v a="$l1_audio" -v w="$l1_wall" 'BEGIN { print a / w }')"
    printf '%-44s %8.2f %10.1f\n' "seqplay --threads 2" "$l2_wall" "$(awk -v a="$l2_audio" -v w="$l2_wall" 'BEGIN { print a / w }')"
    awk -v fw="$lf_wall" -v fa="$lf_audio" -v w1="$l1_wall" -v a1="$l1_audio" -v w2="$l2_wall" -v a2="$l2_audio" 'BEGIN {
        printf "ratio (× real time) seqplay --threads 2 / fluidsynth -F: %.2f (target ≥ 1.7)\n", (a2 / w2) / (fa / fw)
        printf "ratio (× real time) seqplay --threads 2 / --threads 1:   %.2f\n", (a2 / w2) / (a1 / w1) }'
    echo "seqplay --threads 1 and --threads 2 wrote $same"
else
    echo "long song: seqplay has no --threads yet (issue 12 item 4); not measured"
fi
