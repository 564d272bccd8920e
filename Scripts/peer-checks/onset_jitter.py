"""Onset jitter of a live sampler: pairs each note-on that seqplay monitor stamped (kernel time,
JSON Lines) with the onset of its sound in a Loopback capture (raw S16_LE stereo) and compares the
intervals: how far each interval between two onsets in the capture is from the interval between
their kernel timestamps, in samples (the timing error the sampler added), and the spread of
(onset sample - rate x timestamp) over all keys.
An underrun of the output breaks the capture's timeline (the Loopback capture goes on while the playback
restarts), so the interval across it is off by the gap, which is the host's lateness, not the sampler's
timing: with UNDERRUNS = U > 0, the U largest deviations are set aside and printed as such.
Usage: onset_jitter.py CAPTURE.raw MONITOR.jsonl RATE LABEL [UNDERRUNS]
  -> prints 'LABEL: N keys, N onsets, interval deviation D samples (...), K/M intervals within 64 samples, spread S samples (...)'
and exits 0 when every key has an onset."""
import array, json, sys

capture, monitor, rate, label = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
underruns = int(sys.argv[5]) if len(sys.argv) > 5 else 0
samples = array.array("h"); samples.frombytes(open(capture, "rb").read())
left = samples[0::2]
stamps = [e["time"] for e in map(json.loads, open(monitor)) if e["type"] == "note_on" and e["values"]["velocity"] > 0]
threshold, quiet_needed = 200, rate // 20  # onset: above threshold after 50 ms below it
onsets, quiet = [], quiet_needed
for index, value in enumerate(left):
    if value > threshold or value < -threshold:
        if quiet >= quiet_needed: onsets.append(index)
        quiet = 0
    else:
        quiet += 1
if len(onsets) != len(stamps) or not stamps:
    print(f"{label}: {len(stamps)} keys but {len(onsets)} onsets")
    sys.exit(1)
deviations = sorted(abs((onsets[i + 1] - onsets[i]) - (stamps[i + 1] - stamps[i]) * rate) for i in range(len(stamps) - 1))
set_aside = deviations[len(deviations) - underruns:] if 0 < underruns < len(deviations) else []
deviations = deviations[:len(deviations) - len(set_aside)]
offsets = [o - t * rate for o, t in zip(onsets, stamps)]
spread = max(offsets) - min(offsets)
print(f"{label}: {len(stamps)} keys, {len(onsets)} onsets, interval deviation {max(deviations):.0f} samples "
      f"(max; mean {sum(deviations) / len(deviations):.1f}; {max(deviations) / rate * 1000:.2f} ms), "
      f"{sum(d <= 64 for d in deviations)}/{len(deviations)} intervals within 64 samples, "
      f"spread {spread:.0f} samples ({spread / rate * 1000:.2f} ms) at {rate} Hz"
      + (f"; set aside across {underruns} underrun(s): {', '.join(f'{d:.0f}' for d in set_aside)} samples" if set_aside else ""))
