#!/usr/bin/env bash
# Library index and query speed: `seqplay library add` over 10,000 MIDI files (copies of the corpus's
# MIDI files, well-formed and malformed, under varied names) on 2 cores, `library update` with nothing
# changed, and queries over them — against the anchor, `seqplay info --json` run once per file
# (2 at a time, on the same 2 cores; timed over SAMPLE files and scaled to all of them).
# Targets: index >= 500 files/s; a query <= 50 ms (best of 5; the whole command and, from --timing, the
# query's own time in the process).
#   Benchmarks/library-index.sh            FILES=10000 SAMPLE=500 CORES=0,1
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${SEQPLAY_CORPUS:-$root/../shared/corpus}"
files="${FILES:-10000}"
sample="${SAMPLE:-500}"
cores="${CORES:-0,1}"
work="$root/.build-bench/library"

(cd "$root" && swift build -c release --product seqplay >"$root/.build-bench-library.log" 2>&1) || { cat "$root/.build-bench-library.log"; exit 1; }
seqplay="$(cd "$root" && swift build -c release --show-bin-path)/seqplay"

rm -rf "$work" && mkdir -p "$work/songs"
mapfile -t sources < <(find "$corpus/wellformed" "$corpus/malformed" "$corpus/synthetic" "$corpus/fuzz-crashes" -type f \
    \( -iname '*.mid' -o -iname '*.rmi' \) | sort)
for ((i = 0; i < files; i++)); do
    source="${sources[i % ${#sources[@]}]}"
    folder="$work/songs/set-$((i / 500))"
    [ -d "$folder" ] || mkdir -p "$folder"
    name="$(basename "$source")"
    cp "$source" "$folder/$i-copy-${name%.*}.${name##*.}"
done
echo "files: $files copies of ${#sources[@]} corpus MIDI files ($(du -sh "$work/songs" | cut -f1)), cores $cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

now() { date +%s.%N; }
seconds() { python3 -c "print(f'{$2 - $1:.3f}')"; }
db="$work/library.sqlite"

start=$(now)
taskset -c "$cores" "$seqplay" library add --db "$db" "$work/songs" >"$work/add.txt" 2>"$work/refused.txt"
add_s=$(seconds "$start" "$(now)")
echo "library add:      $add_s s  ($(python3 -c "print(round($files / $add_s))") files/s; target >= 500)  $(cat "$work/add.txt")"

start=$(now)
taskset -c "$cores" "$seqplay" library update --db "$db" >"$work/update.txt"
echo "library update:   $(seconds "$start" "$(now)") s with nothing changed  $(cat "$work/update.txt")"

query() {
    local best=999999 inside=999999 elapsed timing=()
    [ "$2" = query ] && timing=(--timing)
    for _ in 1 2 3 4 5; do
        start=$(now)
        taskset -c "$cores" "$seqplay" "$@" "${timing[@]}" >"$work/query.txt" 2>"$work/timing.txt"
        elapsed=$(python3 -c "print(round(($(now) - $start) * 1000, 1))")
        best=$(python3 -c "print(min($best, $elapsed))")
        if [ ${#timing[@]} -gt 0 ]; then
            inside=$(python3 -c "import re; print(min($inside, float(re.search(r'query ([0-9.]+) ms', open('$work/timing.txt').read()).group(1))))")
        fi
    done
    local own=""
    [ ${#timing[@]} -gt 0 ] && own="; the query itself $inside ms"
    echo "$best ms whole command (best of 5$own)  $(wc -l <"$work/query.txt") lines  seqplay $*"
}
echo "process start, for comparison:"
query help library
echo "queries (the whole command):"
query library query --db "$db" --where 'drums and duration < 60 and (family = "Strings" or tempo >= 120)' --paths
query library query --db "$db" --where 'time_signature = 3/4 and key = "D minor"' --sort duration:desc --limit 20
query library query --db "$db" --where 'title contains "the"' --json
query library query --db "$db" --group-by family

mapfile -t some < <(find "$work/songs" -type f | sort | awk -v n="$sample" -v total="$files" 'NR % int(total / n) == 0' | head -n "$sample")
start=$(now)
printf '%s\0' "${some[@]}" | taskset -c "$cores" xargs -0 -P 2 -n 1 "$seqplay" info --json >/dev/null 2>&1 || true
info_s=$(seconds "$start" "$(now)")
python3 - "$info_s" "${#some[@]}" "$files" "$add_s" <<'PY'
import sys
info, sample, files, add = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
rate = sample / info
print(f"anchor, seqplay info --json per file (2 at a time): {info:.2f} s for {sample} files = {rate:.0f} files/s, "
      f"{files / rate:.1f} s for {files} files")
print(f"library add is {files / add / rate:.1f}x the per-file info rate")
PY
