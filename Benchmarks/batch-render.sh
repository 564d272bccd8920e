#!/usr/bin/env bash
# Batch rendering (issue 12), in one run on the same files, FluidR3_GM at 44.1 kHz, reverb and chorus on
# (both tools' defaults):
#   - short songs: up to MAX_FILES (default 44) corpus files of 5–60 s (../shared/corpus wellformed/ and
#     synthetic/, as `seqplay info` measures them; malformed/ is left out: fluidsynth -F renders one of its
#     files for minutes), rendered by
#       1. a sequential loop of `fluidsynth -ni -F` (the anchor),
#       2. `xargs -P2 fluidsynth -ni -F` (two at a time),
#       3. `seqplay render DIR --output-dir OUT --jobs 2` (one process, the font loaded once);
#     × real time of each, seqplay's ratio to 1 (target ≥ 4) and to 2 (target ≥ 2), and peak RSS (target:
#     seqplay's batch ≤ one fluidsynth process + 60 MB).
#     What is compared: each tool renders the same songs completely, so × real time counts the songs'
#     own seconds (the sum of `seqplay info` durations, the same for every tool) per wall second, and
#     each ratio is the ratio of wall times. The tools' tails differ: fluidsynth -F renders until its
#     last voice has died (up to 13 s past the song's end on these files), seqplay until its output falls silent
#     (at most 3 s); so each tool's own written audio per wall second is printed too, for information
#     (that figure favours the tool that writes the longer, cheaper tail).
#     Where the time goes: the files that take fluidsynth longest (timed one by one in the loop),
#     fluidsynth's start-up per process (the font load, timed with no MIDI file), the CPU seconds of each
#     run, and the bound this sets: both tools run FluidSynth's own synthesis code (libfluidsynth), so
#     with the font loaded once a 2-core batch can at best take (loop − N × start-up) / 2.
#     The load average (`uptime`) before and after is printed: figures from a busy machine are not
#     comparable with a quiet one's.
#   - one long song (LONG_SONG, default the longest corpus file up to 10 min among those scanned that plays on
#     at least 8 channels: --threads splits a song by channel, so a one-channel song cannot use two cores) rendered by
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
# channels FILE: how many MIDI channels the song plays on.
channels() {
    "$seqplay" info "$1" --json 2>/dev/null | python3 -c 'import json, sys; print(len({c for t in json.load(sys.stdin)["tracks"] for c in t["channels"]}))' 2>/dev/null || echo 0
}

mkdir -p "$work/in" "$work/fluid" "$work/xargs" "$work/seqplay"
count=0
song_seconds=0
longest=; longest_seconds=0
# With LONG_ONLY and LONG_SONG set there is nothing to scan for.
[ -n "${LONG_ONLY:-}" ] && [ -n "${LONG_SONG:-}" ] && max_files=0
while (( count < max_files )) && IFS= read -r file; do
    seconds=$(duration "$file")
    [ -n "$seconds" ] || continue
    if awk -v s="$seconds" -v l="$longest_seconds" 'BEGIN { exit !(s > l && s <= 600) }' && [ "$(channels "$file")" -ge 8 ]; then
        longest=$file; longest_seconds=$seconds
    fi
    awk -v s="$seconds" 'BEGIN { exit !(s >= 5 && s <= 60) }' || continue
    count=$((count + 1))
    song_seconds=$(awk -v a="$song_seconds" -v s="$seconds" 'BEGIN { printf "%.3f", a + s }')
    cp "$file" "$work/in/$(printf '%03d' "$count")-$(basename "$file" | tr -c 'A-Za-z0-9._\n-' '_')"
    (( count < max_files )) || break
done < <(find "$corpus/wellformed" "$corpus/synthetic" -type f \( -iname '*.mid' -o -iname '*.midi' -o -iname '*.kar' -o -iname '*.smf' \) \
          ! -iname '*invalid*' | sort)
long_song=${LONG_SONG:-$longest}

# measure NAME COMMAND...: runs the command under /usr/bin/time; sets wall, cpu (user + system seconds)
# and rss_mb.
measure() {
    local name=$1; shift
    local start=$EPOCHREALTIME
    /usr/bin/time -v "$@" >/dev/null 2>"$work/$name.time" || true
    wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    cpu=$(awk -F': ' '/(User|System) time/ { s += $2 } END { printf "%.2f", s }' "$work/$name.time")
    rss_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/$name.time")
}
# audio DIR: seconds of audio in the WAV files under DIR.
audio() { find "$1" -name '*.wav' -print0 | xargs -0 -r soxi -D | awk '{ s += $1 } END { printf "%.1f", s }'; }

# fluid_one MIDI DIR [TIMES]: renders MIDI into DIR; with TIMES, appends "seconds file" to it.
fluid_one() {
    local start=$EPOCHREALTIME
    fluidsynth -ni -q -F "$2/$(basename "$1").wav" -r 44100 "$font" "$1" >/dev/null 2>&1
    if [ -n "${3:-}" ]; then awk -v a="$start" -v b="$EPOCHREALTIME" -v f="$(basename "$1")" 'BEGIN { printf "%.3f %s\n", b - a, f }' >>"$3"; fi
}
export -f fluid_one
export font

if [ -z "${LONG_ONLY:-}" ]; then
load_before=$(uptime | sed 's/.*load average: //')
# fluidsynth's start-up per process: the font loaded, no MIDI file (it then exits); the least CPU of 3.
startup_cpu=$(for _ in 1 2 3; do measure startup fluidsynth -ni -q -F "$work/none.wav" -r 44100 "$font"; echo "$cpu"; done | sort -n | head -1)

measure fluid bash -c 'for f in "$0"/*; do fluid_one "$f" "$1" "$2"; done' "$work/in" "$work/fluid" "$work/fluid-times"
fluid_wall=$wall; fluid_cpu=$cpu; fluid_rss=$rss_mb; fluid_audio=$(audio "$work/fluid")
measure xargs bash -c 'find "$0" -type f -print0 | xargs -0 -P2 -I{} bash -c "fluid_one \"\$1\" \"\$2\"" _ {} "$1"' "$work/in" "$work/xargs"
xargs_wall=$wall; xargs_cpu=$cpu; xargs_audio=$(audio "$work/xargs")
measure seqplay "$seqplay" render "$work/in" --output-dir "$work/seqplay" --sf2 "$font" -r 44100 --jobs 2
seq_wall=$wall; seq_cpu=$cpu; seq_rss=$rss_mb; seq_audio=$(audio "$work/seqplay")
failed=$(( count - $(find "$work/seqplay" -name '*.wav' | wc -l) ))
load_after=$(uptime | sed 's/.*load average: //')

echo "short songs: $count files of 5–60 s from $corpus ($song_seconds s of music by seqplay info; $failed not rendered by seqplay), FluidR3_GM, 44.1 kHz"
echo "load average before: $load_before; after: $load_after (2 cores; a loaded machine slows every row)"
echo "× real time = song seconds / wall seconds (the same songs for every tool; ratios are ratios of wall times)"
printf '%-36s %8s %8s %10s %10s %14s\n' "" "wall s" "CPU s" "× real" "peak MB" "audio written"
row() { printf '%-36s %8.2f %8.2f %10.1f %10s %8.1f s %5.1f×\n' "$1" "$2" "$3" "$(awk -v a="$song_seconds" -v w="$2" 'BEGIN { print a / w }')" "$4" "$5" "$(awk -v a="$5" -v w="$2" 'BEGIN { print a / w }')"; }
row "fluidsynth -F, one file at a time" "$fluid_wall" "$fluid_cpu" "$fluid_rss" "$fluid_audio"
row "xargs -P2 fluidsynth -F" "$xargs_wall" "$xargs_cpu" "-" "$xargs_audio"
row "seqplay render DIR --jobs 2" "$seq_wall" "$seq_cpu" "$seq_rss" "$seq_audio"
awk -v f="$fluid_wall" -v x="$xargs_wall" -v s="$seq_wall" 'BEGIN {
    printf "ratio seqplay / sequential fluidsynth: %.2f (target ≥ 4)\n", f / s
    printf "ratio seqplay / xargs -P2 fluidsynth:  %.2f (target ≥ 2)\n", x / s }'
echo "peak RSS: seqplay batch $seq_rss MB, one fluidsynth process $fluid_rss MB (target: ≤ +60 MB)"
echo "where the time goes: the files that took fluidsynth longest (of $fluid_wall s):"
sort -rn "$work/fluid-times" | head -5 | awk '{ printf "  %6.2f s  %s\n", $1, $2 }'
# Where seqplay's CPU goes: the share of libfluidsynth in a profile of the same batch (perf record, --jobs 1).
share="(perf is not usable here: no profile)"
if command -v perf >/dev/null && perf record -q -o "$work/perf.data" "$seqplay" render "$work/in" --output-dir "$work/profiled" --sf2 "$font" \
        -r 44100 --jobs 1 >/dev/null 2>&1; then
    share=$(perf report -i "$work/perf.data" --no-children --sort dso -g none 2>/dev/null \
        | awk '/libfluidsynth/ { f = $1 } /seqplay *$/ { s = $1 } END { printf "of which libfluidsynth %s and seqplay'\''s own code %s (perf record of the same batch)", f, s }')
fi
awk -v fc="$fluid_cpu" -v xc="$xargs_cpu" -v sc="$seq_cpu" -v n="$count" -v u="$startup_cpu" -v share="$share" 'BEGIN {
    synth = fc - n * u
    printf "CPU seconds (what the load does not change): the fluidsynth loop %.2f s = %d × %.2f s start-up (font load, no song) + %.2f s synthesis;\n", fc, n, u, synth
    printf "  seqplay %.2f s, %s\n", sc, share
    printf "  On an idle 2-core machine a batch takes at least its CPU / 2 and the loop its CPU: ratios at most %.2f and %.2f with seqplay as it is.\n", fc / (sc / 2), xc / sc
    printf "  The targets need seqplay ≤ %.2f s CPU (4×) and ≤ %.2f s (2×), below FluidSynth'\''s own synthesis of these songs (%.2f s).\n", fc / 2, xc / 2, synth }'
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
