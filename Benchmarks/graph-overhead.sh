#!/usr/bin/env bash
# The audio graph's overhead over bare FluidSynth rendering the same song (release build; target ≤ 5 %).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product GraphOverheadBenchmark >/dev/null
.build/release/GraphOverheadBenchmark SoundFonts/seqplay-gm.sf2
