# Sourced by the benchmark scripts (Benchmarks/dense.sh, Benchmarks/engine.sh), from the repository's root.
# bench_setup NAME: what they share before they run: $bench (.build-bench/NAME, made), $font (FONT, default
# FluidR3_GM), $polyphony (POLYPHONY, default 256), a release build of seqplay in $seqplay (its log in
# $bench/build.log) and a scratch directory $work, removed on exit.
bench_setup() {
    bench=.build-bench/$1
    mkdir -p "$bench"
    font=${FONT:-/usr/share/sounds/sf2/FluidR3_GM.sf2}
    polyphony=${POLYPHONY:-256}
    swift build -c release --product seqplay >"$bench/build.log" 2>&1 || { cat "$bench/build.log"; exit 1; }
    seqplay="$(swift build -c release --show-bin-path)/seqplay"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
}

# run NAME OUTPUT COMMAND...: runs COMMAND under /usr/bin/time -v, prints one row (wall, CPU, peak RSS, seconds of
# audio in OUTPUT, `-` without one) and remembers them in $last_wall, $last_cpu, $last_rss, $last_audio.
run() {
    local name=$1 output=$2; shift 2
    local start=$EPOCHREALTIME
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || { echo "$name failed:"; tail -5 "$work/time.txt"; return 1; }
    last_wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    last_cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { printf "%.2f", s }' "$work/time.txt")
    last_rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/time.txt")
    last_audio=$([ -n "$output" ] && soxi -D "$output" 2>/dev/null || echo -)
    printf '%-44s %8s %8s %9s %8s' "$name" "$last_wall" "$last_cpu" "$last_rss" "$last_audio"
}

# free_port TYPE: a free 127.0.0.1 port for a socket of TYPE (DGRAM or STREAM), for servers a benchmark starts.
free_port() { python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_'"$1"'); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
