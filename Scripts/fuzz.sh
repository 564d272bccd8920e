#!/usr/bin/env bash
# Fuzzes one of seqplay's decoders of untrusted bytes with libFuzzer + AddressSanitizer for SECONDS
# (default 60). Exits non-zero if libFuzzer finds a crash, a leak or a timeout; crashing inputs are
# left in .build-fuzz/TARGET/artifacts/, the grown corpus in .build-fuzz/TARGET/work-corpus/.
#   Scripts/fuzz.sh smf [SECONDS]       the MIDI file reader (Fuzz/SMFReaderFuzzTarget.swift), seeded with ../shared/corpus
#   Scripts/fuzz.sh sf2 [SECONDS]       the SoundFont structural check and preset reader (Fuzz/SoundFontStructureFuzzTarget.swift)
#   Scripts/fuzz.sh rtpmidi [SECONDS]   RTP-MIDI and session packet decoding (Fuzz/RTPMIDIPacketFuzzTarget.swift)
#   Scripts/fuzz.sh shell [SECONDS]     the FluidSynth shell face's line parser (Fuzz/ShellLineFuzzTarget.swift)
#   Scripts/fuzz.sh osc [SECONDS]       OSC packets through liblo into the OSC face's requests (Fuzz/OSCMessageFuzzTarget.swift)
set -euo pipefail
target="${1:?usage: Scripts/fuzz.sh smf|sf2|rtpmidi|shell|osc [SECONDS]}"
seconds="${2:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/.build-fuzz/$target"
flags=(-parse-as-library -package-name seqplay -sanitize=fuzzer,address -O -g)  # -package-name: `package` declarations, as SwiftPM builds them
mkdir -p "$build/lib" "$build/work-corpus" "$build/artifacts" "$build/seeds"

# What is compiled is kept with a stamp of what it was made from (the compiler, the flags, the sources and
# the modules compiled before it): an unchanged module or fuzzer is not compiled again.
compiler=$(swiftc --version 2>&1)
chain=""
# fresh PRODUCT INPUTS...: true when PRODUCT exists and was made from INPUTS (files) and everything before.
fresh() {
    local product=$1; shift
    chain=$({ echo "$chain"; echo "$compiler"; echo "${flags[*]} $product"; cat "$@"; } | sha256sum | cut -c1-64)
    [ -e "$product" ] && [ "$(cat "$product.stamp" 2>/dev/null)" = "$chain" ]
}
# module NAME FILES...: compiles the files as module NAME, instrumented, into a static library.
extra=()  # more compiler flags (a C library's module map), for the modules and the fuzzer
module() {
    local name=$1; shift
    fresh "$build/lib/lib$name.a" "$@" && return
    swiftc "${flags[@]}" "${extra[@]}" -module-name "$name" -I "$build/lib" -emit-module -emit-module-path "$build/lib/$name.swiftmodule" \
        -enable-testing -emit-library -static -o "$build/lib/lib$name.a" "$@"
    echo "$chain" >"$build/lib/lib$name.a.stamp"
}
seeds=("$build/seeds")
case "$target" in
smf)
    module MIDICore "$root"/Sources/MIDICore/*.swift
    module SeqplaySupport "$root"/Sources/SeqplaySupport/OutputFiles/*.swift
    module MIDIFile "$root"/Sources/MIDIFile/*.swift
    libs=(-lMIDIFile -lSeqplaySupport -lMIDICore); source_file=SMFReaderFuzzTarget.swift; max_len=1100000
    corpus_dir="${SEQPLAY_CORPUS:-$root/../shared/corpus}"
    if [ -d "$corpus_dir" ]; then seeds+=("$corpus_dir"); else echo "fuzz: corpus $corpus_dir absent"; fi ;;
sf2)
    # The SoundFont reader the sampler checks files with; FluidSynth itself is not linked.
    module SoundFontFile "$root"/Sources/SoundFontFile/*.swift
    libs=(-lSoundFontFile); source_file=SoundFontStructureFuzzTarget.swift; max_len=4096
    cp "$root"/SoundFonts/click.sf2 "$build/seeds/" ;;
rtpmidi)
    module MIDICore "$root"/Sources/MIDICore/*.swift
    module NetworkMIDI "$root"/Sources/NetworkMIDI/{RTPMIDIPacket,RecoveryJournal,SessionPacket,PacketError}.swift
    libs=(-lNetworkMIDI -lMIDICore); source_file=RTPMIDIPacketFuzzTarget.swift; max_len=1500
    # Seeds: an invitation, a clock sync and a note on with a journal, as the session sends them.
    printf '\xff\xffIN\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x02seqplay\x00' > "$build/seeds/invitation"
    printf '\xff\xffCK\x00\x00\x00\x02\x01\x00\x00\x00%024d' 0 | head -c 36 > "$build/seeds/clock-sync"
    printf '\x80\x61\x00\x01\x00\x00\x00\x10\x00\x00\x00\x02\x43\x90\x3c\x64\x00\x00\x01\x40\x00\x01\x08\x00\x07\x00' \
        > "$build/seeds/note-on" ;;
shell)
    # The parser alone: the shell's requests and the commands they make (with SamplerSettings, whose
    # reverb and chorus the commands carry; no FluidSynth).
    module Sampler "$root"/Sources/Sampler/FluidSynth/SamplerSettings.swift
    module Control "$root"/Sources/Control/{ControlCommand,ShellCommandParser}.swift
    libs=(-lControl -lSampler); source_file=ShellLineFuzzTarget.swift; max_len=70000
    printf 'select 1 1 0 3' > "$build/seeds/select"
    printf 'channels -verbose' > "$build/seeds/channels"
    printf 'rev_setroomsize 0 0.5' > "$build/seeds/reverb"
    printf 'noteon 9 36 127' > "$build/seeds/noteon" ;;
osc)
    # liblo decodes (not instrumented), then the OSC face's requests (Control with its OSC/ server; the
    # state's presets are Sampler's Preset).
    extra=(-I "$root/Sources/CLiblo")
    module SeqplaySupport "$root"/Sources/SeqplaySupport/Realtime/{ServiceThread,StopRequest,MonotonicClock}.swift
    module Sampler "$root"/Sources/Sampler/FluidSynth/{SamplerSettings,Preset}.swift
    module Control "$root"/Sources/Control/OSC/*.swift "$root"/Sources/Control/{ControlCommand,ControlEvent,ControlState,ShellCommandParser,OSCRequest}.swift
    libs=(-lControl -lSampler -lSeqplaySupport -llo); source_file=OSCMessageFuzzTarget.swift; max_len=4096
    printf '/seqplay/channel/1/program\0\0,i\0\0\0\0\0\x13' > "$build/seeds/program"
    printf '/seqplay/gain\0\0\0,f\0\0\x3f\0\0\0' > "$build/seeds/gain"
    printf '/seqplay/state\0\0,i\0\0\0\0\x27\x10' > "$build/seeds/state" ;;
*) echo "fuzz: unknown target $target (smf, sf2, rtpmidi, shell, osc)" >&2; exit 64 ;;
esac
# Each fuzzer: its target and what the targets share (the CPU-time limit of one input).
sources=("$root/Fuzz/$source_file" "$root/Fuzz/CPUTimeLimit.swift")
if ! fresh "$build/fuzz" "${sources[@]}"; then
    swiftc "${flags[@]}" "${extra[@]}" -I "$build/lib" -L "$build/lib" "${libs[@]}" -o "$build/fuzz" "${sources[@]}"
    echo "$chain" >"$build/fuzz.stamp"
fi

# Swift's own crash backtracer would get in AddressSanitizer's way.
export SWIFT_BACKTRACE=enable=no
# Each target fails an input that takes over 2 s of CPU (a hang) where that matters; -timeout is
# wall-clock, so it is only a backstop, loose enough for a machine busy with other builds.
# -rss_limit_mb: memory bounded well below the machine's.
exec "$build/fuzz" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len="$max_len" \
    -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$build/work-corpus" "${seeds[@]}"
