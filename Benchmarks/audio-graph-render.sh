#!/usr/bin/env bash
# Audio graph render throughput vs a hand-written loop, and allocations on the render path (release build).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product AudioGraphBenchmark >/dev/null
.build/release/AudioGraphBenchmark
