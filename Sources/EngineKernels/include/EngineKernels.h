#ifndef SEQPLAY_ENGINE_KERNELS_H
#define SEQPLAY_ENGINE_KERNELS_H

#include <stdint.h>

/// One control block of one voice as the sample loop makes it (seqplay's SoundFont engine, issue 31):
/// where it reads the sample, its amplitude ramp and its low-pass filter's coefficients.
/// The phase of sample k is `phase + k * increment` (after the loop's wraps), computed alike by
/// `seqplay_plan_block` (the control side) and `seqplay_synthesize` (the sample side).
typedef struct {
    double phase;
    double increment;
    int32_t count;          ///< samples to make (set by seqplay_plan_block: fewer when the sample ends)
    int32_t start, last;    ///< the first and the last point of the sample
    int32_t loopStart, loopEnd;
    int32_t looping, hasLooped;
    float amp, ampIncrement;
    float a1, a2, b02, b1;  ///< the filter's coefficients at the block's start
    float a1Incr, a2Incr, b02Incr, b1Incr;
    int32_t incrCount;      ///< samples over which the coefficients glide
    int32_t compensate;     ///< whether the history is rescaled as b02 glides
} SeqplayBlock;

/// Plans up to `length` samples of `block` (phase, increment, loop and sample points set): sets
/// `block->count` (fewer than `length` when a sample that does not loop ends), and returns the phase
/// after `length` samples; `*hasLooped` becomes 1 when the loop wrapped.
double seqplay_plan_block(SeqplayBlock *block, int32_t length, int32_t *hasLooped);

/// The most blocks `seqplay_synthesize_batch` takes.
#define SEQPLAY_BATCH 8

/// Makes `blocks[j]->count` samples into `outs[j]` (64 floats each), for `count` (at most SEQPLAY_BATCH)
/// blocks of different voices: 4-point interpolation of the points (`high`, 16 bits; `low`, the low bytes
/// of a 24-bit font, or NULL), times the amplitude ramp, through the low-pass filter whose history is
/// `histories[j][0...1]` (zeroed first when `fresh[j]`). The points of all the blocks are prefetched
/// first; with AVX2/FMA (when the CPU has them, else portable) the filters run side by side, one voice
/// per lane (a block whose coefficients glide, glides over all its 64 samples, as the engine's do).
void seqplay_synthesize_batch(const SeqplayBlock *const *blocks, float *const *outs, float *const *histories,
                              const int32_t *fresh, int32_t count, const int16_t *high, const uint8_t *low);

/// Adds `source[0..<count]` to `left` and `right` with gains starting at `gainLeft`/`gainRight` that
/// move by `stepLeft`/`stepRight` a sample for `ramp` samples, then stay at `targetLeft`/`targetRight`.
void seqplay_mix(const float *source, float *left, float *right, int32_t count,
                 float gainLeft, float gainRight, float stepLeft, float stepRight, int32_t ramp,
                 float targetLeft, float targetRight);

/// Adds `source[0..<count]` to `destination`.
void seqplay_add(float *destination, const float *source, int32_t count);

/// Whether the AVX2/FMA kernels run (the CPU has both).
int32_t seqplay_kernels_use_avx2(void);

#endif
