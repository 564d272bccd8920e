#!/usr/bin/env bash
# Cost per effect in ns per stereo frame (release build), against an in-place gain loop, and the allocations
# made rendering the issue's effect chain through the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product EffectsBenchmark >/dev/null
.build/release/EffectsBenchmark
