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
