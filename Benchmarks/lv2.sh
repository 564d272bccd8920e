#!/usr/bin/env bash
# LV2 hosting overhead (issue 22): the same effect on the same audio through lilv's own host and through seqplay.
#   1. seqplay renders SONG dry to a float WAV (timed: T_dry),
#   2. lv2apply runs PLUGIN over that WAV (timed: T_lv2apply; it runs the plugin one frame per call),
#   3. seqplay renders SONG with --fx lv2:PLUGIN (timed: T_fx); the effect's share is T_fx − T_dry.
# Prints each time (best of RUNS, default 3), the ratio T_lv2apply / T_fx (seqplay synthesising the song and
# running the plugin against lv2apply running the plugin alone), the effect's share T_fx − T_dry and
# T_lv2apply / share when the share is above timing noise, and whether both outputs are the same audio (max difference).
# SEQPLAY=path uses an already built binary instead of a release build; SONG, FONT, PLUGINS override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v lv2apply >/dev/null || { echo "lv2apply (lilv-utils) is not installed: Scripts/setup" >&2; exit 1; }
if [ -z "${SEQPLAY:-}" ]; then swift build -c release --product seqplay >/dev/null 2>&1; fi
seqplay=${SEQPLAY:-$PWD/.build/release/seqplay}
song=${SONG:-Songs/pachelbel-canon.mid}
font=${FONT:-SoundFonts/seqplay-gm.sf2}
runs=${RUNS:-3}
plugins=${PLUGINS:-"http://drobilla.net/plugins/mda/Delay http://drobilla.net/plugins/mda/Ambience"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

best() { # best CMD...: the shortest wall time of RUNS runs, in seconds
    local best=""
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s.%N)
        best=$(python3 -c "import sys; t=$end-$start; b='$best'; print(t if not b or t < float(b) else b)")
    done
    echo "$best"
}

render=("$seqplay" "$song" --sf2 "$font" --tail 3 --bit-depth float)
echo "song: $song ($("$seqplay" info "$song" | awk '/^Duration/ {print $2}')), $(nproc) cores, load: $(uptime | sed 's/.*load average: //')"
dry=$(best "${render[@]}" -o "$work/dry.wav")
printf '%-45s %8.3f s\n' "seqplay dry render" "$dry"
for plugin in $plugins; do
    applied=$(best lv2apply -i "$work/dry.wav" -o "$work/applied.wav" "$plugin")
    hosted=$(best "${render[@]}" --fx "lv2:$plugin" -o "$work/hosted.wav")
    python3 - "$plugin" "$applied" "$hosted" "$dry" "$work/applied.wav" "$work/hosted.wav" <<'PY'
import array, struct, sys
plugin, applied, hosted, dry = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
def samples(path):
    data = open(path, 'rb').read(); pos = 12
    while pos < len(data):
        size = struct.unpack('<I', data[pos + 4:pos + 8])[0]
        if data[pos:pos + 4] == b'data':
            a = array.array('f'); a.frombytes(data[pos + 8:pos + 8 + size]); return a
        pos += 8 + size + (size & 1)
a, b = samples(sys.argv[5]), samples(sys.argv[6])
difference = max(abs(x - y) for x, y in zip(a, b))
effect = hosted - dry
share = (f"effect's share {effect:.3f} s, ratio lv2apply / share {applied / effect:.0f}x" if effect > 0.02
         else "effect's share within timing noise (< 20 ms)")
print(f"{plugin}\n  lv2apply {applied:7.3f} s   seqplay --fx {hosted:7.3f} s   ratio lv2apply / seqplay --fx {applied / hosted:.1f}x"
      f"   ({share})   max difference {difference:.2g}")
PY
done
