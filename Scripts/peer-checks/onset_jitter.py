"""Onset jitter of a live sampler: pairs each note-on that seqplay monitor stamped (kernel time,
JSON Lines) with the onset of its sound in a Loopback capture (raw S16_LE stereo) and prints the
spread of (onset sample - rate x timestamp): the timing jitter the sampler added, in samples.
Usage: onset_jitter.py CAPTURE.raw MONITOR.jsonl RATE LABEL  -> prints 'LABEL: N keys, jitter J samples'
and exits 0 when every key has an onset."""
import array, json, sys

capture, monitor, rate, label = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
samples = array.array("h"); samples.frombytes(open(capture, "rb").read())
left = samples[0::2]
stamps = [e["time"] for e in map(json.loads, open(monitor)) if e["event"] == "noteOn" and e["velocity"] > 0]
threshold, quiet_needed = 200, rate // 20  # onset: above threshold after 50 ms below it
onsets, quiet = [], quiet_needed
for index, value in enumerate(left):
    if value > threshold or value < -threshold:
        if quiet >= quiet_needed: onsets.append(index)
        quiet = 0
    else:
        quiet += 1
offsets = [o - t * rate for o, t in zip(onsets, stamps)]
jitter = max(offsets) - min(offsets) if offsets else float("nan")
print(f"{label}: {len(stamps)} keys, {len(onsets)} onsets, jitter {jitter:.0f} samples "
      f"({jitter / rate * 1000:.2f} ms) at {rate} Hz")
sys.exit(0 if len(onsets) == len(stamps) and stamps else 1)
