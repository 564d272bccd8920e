#include <fluidsynth.h>

// fluid_synth_set_sample_rate is marked deprecated in FluidSynth 2.1-2.3 because it is not
// real-time safe (it rebuilds the effects); 2.4 brings it back. seqplay calls it only while no
// audio is rendered, so this wrapper keeps the deprecation warning out of the Swift build.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline void seqplay_fluid_synth_set_sample_rate(fluid_synth_t *synth, float sample_rate) {
    fluid_synth_set_sample_rate(synth, sample_rate);
}
#pragma GCC diagnostic pop

// FluidSynth 2.3 fades each voice's four output gains (left, right, reverb send, chorus send) over
// its first 64-frame block from `current_amp`, which it never resets when a voice slot is reused:
// a new voice fades in from the gains of whatever voice used its slot before (a never-used slot
// starts from 0). Which slot a note gets depends on every other channel's notes, so renders are not
// additive over channels (one synth per stem or per group of channels would not sum to one synth's
// render; measured -42 dBFS in the first block of such notes). This sets the fade of a voice just
// started to begin from 0, as in a fresh slot, so each voice sounds the same whatever played
// before it. It reaches into FluidSynth 2.3.1's private structures (fluid_voice_t.rvoice at byte
// 3680; fluid_rvoice_t.buffers at byte 1144: count, then {current_amp, target_amp: double,
// mapping: int} x 4; fluid_real_t is double in Debian's build), so it checks the voice's public
// fields at their private places first and does nothing (returns 0) when they do not match.
static inline int seqplay_fluid_voice_start_gains_from_zero(fluid_voice_t *voice) {
    unsigned char *bytes = (unsigned char *)voice;
    unsigned int id;
    __builtin_memcpy(&id, bytes, sizeof id);
    if (id != fluid_voice_get_id(voice) || bytes[5] != fluid_voice_get_channel(voice)
        || bytes[6] != fluid_voice_get_key(voice) || bytes[7] != fluid_voice_get_velocity(voice)) return 0;
    unsigned char *rvoice;
    __builtin_memcpy(&rvoice, bytes + 3680, sizeof rvoice);
    if (rvoice == 0 || bytes[3696] > 1 || bytes[3697] > 1) return 0;
    unsigned int count;
    __builtin_memcpy(&count, rvoice + 1144, sizeof count);
    if (count > 4) return 0;
    for (unsigned int i = 0; i < count; i++) {
        double zero = 0;
        __builtin_memcpy(rvoice + 1144 + 8 + 24 * i, &zero, sizeof zero);
    }
    return 1;
}

// Calls seqplay_fluid_voice_start_gains_from_zero on every playing voice of `synth` with an id above
// `after_id` (the voices of the notes started since; -1 before the first), using `buffer`
// (`capacity` more than the polyphony) for the voice list. Returns the highest id seen, or `after_id`; sets `*failed` when a
// voice did not match FluidSynth 2.3.1's layout.
static inline long long seqplay_fluid_synth_start_new_voice_gains_from_zero(fluid_synth_t *synth, fluid_voice_t **buffer,
                                                                             int capacity, long long after_id, int *failed) {
    fluid_synth_get_voicelist(synth, buffer, capacity, -1);
    long long highest = after_id;
    for (int i = 0; i < capacity && buffer[i] != 0; i++) {
        long long id = fluid_voice_get_id(buffer[i]);
        if (id <= after_id) continue;
        if (!seqplay_fluid_voice_start_gains_from_zero(buffer[i])) *failed = 1;
        if (id > highest) highest = id;
    }
    return highest;
}
