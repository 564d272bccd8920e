#!/usr/bin/env bash
# Fuzzes the SMF reader with libFuzzer + AddressSanitizer for SECONDS (default 60), seeded with the
# corpus in ../shared/corpus when it is there. Exits non-zero if libFuzzer finds a crash, a leak or a
# timeout; crashing inputs are left in .build-fuzz/artifacts/.
#   Scripts/fuzz-smf.sh [SECONDS]
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/.build-fuzz"
corpus_dir="${SEQPLAY_CORPUS:-$root/../shared/corpus}"
flags=(-parse-as-library -sanitize=fuzzer,address -O -g)
mkdir -p "$build/lib" "$build/work-corpus" "$build/artifacts"

# Each module is compiled as it is in the package, instrumented, into a static library.
swiftc "${flags[@]}" -module-name MIDICore -emit-module -emit-module-path "$build/lib/MIDICore.swiftmodule" \
    -emit-library -static -o "$build/lib/libMIDICore.a" "$root"/Sources/MIDICore/*.swift
swiftc "${flags[@]}" -module-name MIDIFile -I "$build/lib" -emit-module -emit-module-path "$build/lib/MIDIFile.swiftmodule" \
    -emit-library -static -o "$build/lib/libMIDIFile.a" "$root"/Sources/MIDIFile/*.swift
swiftc "${flags[@]}" -I "$build/lib" -L "$build/lib" -lMIDIFile -lMIDICore \
    -o "$build/fuzz-smf" "$root/Fuzz/SMFReaderFuzzTarget.swift"

seeds=()
if [ -d "$corpus_dir" ]; then
    seeds=("$corpus_dir")
else
    echo "fuzz-smf: corpus $corpus_dir absent; starting from an empty corpus"
fi
# Swift's own crash backtracer would get in AddressSanitizer's way.
export SWIFT_BACKTRACE=enable=no
# The target fails an input that takes over 2 s of CPU (a hang); -timeout is wall-clock, so it is only
# a backstop, loose enough for a machine busy with other builds. -rss_limit_mb: memory bounded well
# below the machine's.
exec "$build/fuzz-smf" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=1100000 \
    -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$build/work-corpus" "${seeds[@]}"
