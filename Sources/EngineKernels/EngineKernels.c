// The sample loops of seqplay's SoundFont engine (issue 31): 4-point interpolation, amplitude ramp,
// FluidSynth's resonant low-pass filter, and the mix into the output. Each kernel exists twice: for
// AVX2/FMA (chosen at load when the CPU has them) and portable; the phase arithmetic is the same in both
// and in seqplay_plan_block (no contraction into FMA), so the control side knows where every sample reads.
#include "EngineKernels.h"

#include <math.h>
#include <stddef.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#pragma clang fp contract(off)

// MARK: - Phases

static inline double phase_at(double base, double increment, int32_t k) { return base + (double)k * increment; }

/// The first k in [from, to) whose phase reaches the loop's end, or `to`.
static int32_t next_wrap(double base, double increment, double loopEnd, int32_t from, int32_t to) {
    if (from >= to) return to;
    if (phase_at(base, increment, to - 1) < loopEnd) return to;
    double estimate = ceil((loopEnd - base) / increment);
    int32_t k = estimate < (double)from ? from : estimate > (double)(to - 1) ? to - 1 : (int32_t)estimate;
    while (k > from && phase_at(base, increment, k - 1) >= loopEnd) k--;
    while (k < to && phase_at(base, increment, k) < loopEnd) k++;
    return k;
}

double seqplay_plan_block(SeqplayBlock *block, int32_t length, int32_t *hasLooped) {
    double base = block->phase, increment = block->increment;
    int32_t looped = block->hasLooped;
    if (block->looping) {
        double loopLength = (double)(block->loopEnd - block->loopStart);
        int32_t k = 0;
        while ((k = next_wrap(base, increment, (double)block->loopEnd, k, length)) < length) {
            base -= loopLength;
            looped = 1;
        }
        block->count = length;
    } else {
        int32_t count = length;
        if ((int64_t)phase_at(base, increment, length - 1) > block->last) {
            int32_t low = 0, high = length - 1;  // the first k past the last point is in [low, high]
            while (low < high) {
                int32_t middle = (low + high) / 2;
                if ((int64_t)phase_at(base, increment, middle) > block->last) high = middle; else low = middle + 1;
            }
            count = low;
        }
        block->count = count;
    }
    *hasLooped = looped;
    return phase_at(base, increment, length);
}

// MARK: - Points and interpolation

static inline float point(const int16_t *high, const uint8_t *low, int64_t i) {
    if (low) return (float)((int32_t)high[i] * 256 | (int32_t)low[i]) * (1.0f / 8388608.0f);
    return (float)high[i] * (1.0f / 32768.0f);
}

/// Asks for the cache lines a block reads (at most 8 of the 16-bit points, 4 of the low bytes).
static inline void prefetch_block(const SeqplayBlock *b, const int16_t *high, const uint8_t *low) {
    int64_t first = (int64_t)b->phase - 1, span = (int64_t)((double)b->count * b->increment) + 4;
    if (first < 0) first = 0;
    if (span > 256) span = 256;
    for (int64_t i = 0; i < span; i += 32) __builtin_prefetch(high + first + i);
    if (low) for (int64_t i = 0; i < span; i += 64) __builtin_prefetch(low + first + i);
}

/// One sample at `phase`, the four points taken as FluidSynth takes them at the sample's edges: the first
/// point repeated before the start, the loop end's point before the loop start once looped, the loop
/// start after the loop end, the last point after the end.
static inline float interpolate(const SeqplayBlock *b, const int16_t *high, const uint8_t *low, double phase, int32_t looped) {
    int64_t index = (int64_t)phase;
    float x = (float)(phase - (double)index);
    float p0, p1 = point(high, low, index), p2, p3;
    if (index <= b->start) p0 = point(high, low, b->start);
    else if (b->looping && looped && index == b->loopStart) p0 = point(high, low, b->loopEnd - 1);
    else p0 = point(high, low, index - 1);
    if (b->looping) {
        int64_t length = b->loopEnd - b->loopStart;
        p2 = point(high, low, index + 1 >= b->loopEnd ? index + 1 - length : index + 1);
        p3 = point(high, low, index + 2 >= b->loopEnd ? index + 2 - length : index + 2);
    } else {
        p2 = point(high, low, index + 1 < b->last ? index + 1 : b->last);
        p3 = point(high, low, index + 2 < b->last ? index + 2 : b->last);
    }
    float c0 = x * (-0.5f + x * (1.0f - 0.5f * x));
    float c1 = 1.0f + x * x * (1.5f * x - 2.5f);
    float c2 = x * (0.5f + x * (2.0f - 1.5f * x));
    float c3 = 0.5f * x * x * (x - 1.0f);
    return c0 * p0 + c1 * p1 + c2 * p2 + c3 * p3;
}

static inline void interpolate_scalar(const SeqplayBlock *b, const int16_t *high, const uint8_t *low, double base,
                                      int32_t looped, int32_t from, int32_t to, float *out) {
    for (int32_t k = from; k < to; k++)
        out[k] = interpolate(b, high, low, phase_at(base, b->increment, k), looped) * (b->amp + (float)k * b->ampIncrement);
}

// MARK: - Filter

/// FluidSynth's fluid_iir_filter_apply over `count` samples in place, gliding the coefficients first.
static inline void filter(const SeqplayBlock *b, float *out, int32_t count, float *history) {
    float h1 = history[0], h2 = history[1];
    float a1 = b->a1, a2 = b->a2, b02 = b->b02, b1 = b->b1;
    int32_t k = 0, glide = b->incrCount < count ? b->incrCount : count;
    for (; k < glide; k++) {
        float centre = out[k] - a1 * h1 - a2 * h2;
        out[k] = b02 * (centre + h2) + b1 * h1;
        h2 = h1;
        h1 = centre;
        float oldB02 = b02;
        a1 += b->a1Incr; a2 += b->a2Incr; b02 += b->b02Incr; b1 += b->b1Incr;
        if (b->compensate && fabsf(b02) > 0.001f) {
            float scale = oldB02 / b02;
            h1 *= scale; h2 *= scale;
        }
    }
    for (; k < count; k++) {
        float centre = out[k] - a1 * h1 - a2 * h2;
        out[k] = b02 * (centre + h2) + b1 * h1;
        h2 = h1;
        h1 = centre;
    }
    if (fabsf(h1) < 1e-20f) h1 = 0;
    history[0] = h1;
    history[1] = h2;
}

// MARK: - Mix

static inline void mix(const float *restrict source, float *restrict left, float *restrict right, int32_t count,
                       float gainLeft, float gainRight, float stepLeft, float stepRight, int32_t ramp,
                       float targetLeft, float targetRight) {
    int32_t i = 0, glide = ramp < count ? ramp : count;
    for (; i < glide; i++) {
        left[i] += source[i] * (gainLeft + (float)i * stepLeft);
        right[i] += source[i] * (gainRight + (float)i * stepRight);
    }
    for (; i < count; i++) {
        left[i] += source[i] * targetLeft;
        right[i] += source[i] * targetRight;
    }
}

static inline void add(float *restrict destination, const float *restrict source, int32_t count) {
    for (int32_t i = 0; i < count; i++) destination[i] += source[i];
}

// MARK: - Portable kernels

typedef void (*interpolate_run_fn)(const SeqplayBlock *, const int16_t *, const uint8_t *, double, int32_t, int32_t, int32_t, float *);

static void synthesize_runs(const SeqplayBlock *b, const int16_t *high, const uint8_t *low, float *out, interpolate_run_fn run) {
    double base = b->phase, loopLength = (double)(b->loopEnd - b->loopStart);
    int32_t looped = b->hasLooped, k = 0, count = b->count;
    while (k < count) {
        int32_t end = b->looping ? next_wrap(base, b->increment, (double)b->loopEnd, k, count) : count;
        if (end == k) { base -= loopLength; looped = 1; continue; }
        run(b, high, low, base, looped, k, end, out);
        k = end;
    }
}

static void synthesize_portable(const SeqplayBlock *b, const int16_t *high, const uint8_t *low, float *out, float *history) {
    synthesize_runs(b, high, low, out, interpolate_scalar);
    filter(b, out, b->count, history);
}

static void synthesize_batch_portable(const SeqplayBlock *const *blocks, float *const *outs, float *const *histories,
                                      int32_t count, const int16_t *high, const uint8_t *low) {
    for (int32_t j = 0; j < count; j++) prefetch_block(blocks[j], high, low);
    for (int32_t j = 0; j < count; j++) synthesize_portable(blocks[j], high, low, outs[j], histories[j]);
}

static void mix_portable(const float *source, float *left, float *right, int32_t count, float gainLeft, float gainRight,
                         float stepLeft, float stepRight, int32_t ramp, float targetLeft, float targetRight) {
    mix(source, left, right, count, gainLeft, gainRight, stepLeft, stepRight, ramp, targetLeft, targetRight);
}

static void add_portable(float *destination, const float *source, int32_t count) { add(destination, source, count); }

// MARK: - AVX2/FMA kernels

#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2,fma")))

/// Eight samples at a time where all four points of each lie inside the sample (or the loop); the
/// edges one at a time. Where each half's four samples read within 8 points (always at a pitch ratio
/// up to 1, sometimes up to 5/3), those points are one 16-byte load and each sample's 4-point window is picked from it by a byte
/// shuffle; else the points are gathered two by two (a 32-bit gather at a 16-bit point reads it and the next).
AVX2 static void interpolate_avx2(const SeqplayBlock *b, const int16_t *high, const uint8_t *low, double base,
                                  int32_t looped, int32_t from, int32_t to, float *out) {
    const int64_t limit = b->looping ? b->loopEnd : (int64_t)b->last + 1;
    const __m256d baseV = _mm256_set1_pd(base), incrementV = _mm256_set1_pd(b->increment);
    const __m256d steps0 = _mm256_set_pd(3, 2, 1, 0), steps1 = _mm256_set_pd(7, 6, 5, 4);
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), oneHalf = _mm256_set1_ps(1.5f);
    const __m256 two = _mm256_set1_ps(2.0f), twoHalf = _mm256_set1_ps(2.5f);
    const __m256 scale = _mm256_set1_ps(low ? 1.0f / 8388608.0f : 1.0f / 32768.0f);
    const __m256 ampIncrement = _mm256_set1_ps(b->ampIncrement), amp = _mm256_set1_ps(b->amp);
    const __m256i minusOne = _mm256_set1_epi32(-1), plusOne = _mm256_set1_epi32(1), windowSpan = _mm256_set1_epi32(4);
    // Byte shuffles: a dword's low byte into all four of its bytes, then + 0, 1, 2, 3 (a point pair's bytes), + 4 (the next pair).
    const __m256i firstBytes = _mm256_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12);
    const __m256i pairBytes = _mm256_set1_epi32(0x03020100), nextPairBytes = _mm256_set1_epi32(0x04040404);
    int32_t k = from;
    while (k < to) {
        if (k + 8 <= to) {
            // The phases as phase_at makes them: base + (double)(k + lane) * increment.
            const __m256d kV = _mm256_set1_pd((double)k);
            __m256d q0 = _mm256_add_pd(baseV, _mm256_mul_pd(_mm256_add_pd(kV, steps0), incrementV));
            __m256d q1 = _mm256_add_pd(baseV, _mm256_mul_pd(_mm256_add_pd(kV, steps1), incrementV));
            __m128i i0 = _mm256_cvttpd_epi32(q0), i1 = _mm256_cvttpd_epi32(q1);
            int64_t first = _mm_cvtsi128_si32(i0), middle = _mm_cvtsi128_si32(i1), last = _mm_extract_epi32(i1, 3);
            if (first > b->start && (!(b->looping && looped) || first > b->loopStart) && last >= first && last + 2 < limit) {
                __m256 x = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_sub_pd(q1, _mm256_cvtepi32_pd(i1))),
                                           _mm256_cvtpd_ps(_mm256_sub_pd(q0, _mm256_cvtepi32_pd(i0))));
                __m256i index = _mm256_set_m128i(i1, i0);
                // Each half's lanes counted from its first lane's point: within 4 of it, and with the 8 points
                // from that lane's p0 inside, the windows are in the 16 bytes loaded there.
                __m256i offset = _mm256_sub_epi32(index, _mm256_shuffle_epi32(index, 0));
                int windowed = last + 6 < limit
                    && !_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(offset, windowSpan)));
                __m256i g01, g23, bytes = _mm256_setzero_si256();
                if (windowed) {
                    __m256i window = _mm256_loadu2_m128i((const __m128i *)(high + middle - 1), (const __m128i *)(high + first - 1));
                    __m256i pick = _mm256_add_epi32(_mm256_shuffle_epi8(_mm256_add_epi32(offset, offset), firstBytes), pairBytes);
                    g01 = _mm256_shuffle_epi8(window, pick);
                    g23 = _mm256_shuffle_epi8(window, _mm256_add_epi32(pick, nextPairBytes));
                    if (low) {
                        __m256i lowWindow = _mm256_set_m128i(_mm_loadl_epi64((const __m128i *)(low + middle - 1)),
                                                             _mm_loadl_epi64((const __m128i *)(low + first - 1)));
                        bytes = _mm256_shuffle_epi8(lowWindow, _mm256_add_epi32(_mm256_shuffle_epi8(offset, firstBytes), pairBytes));
                    }
                } else {
                    g01 = _mm256_i32gather_epi32((const int *)high, _mm256_add_epi32(index, minusOne), 2);
                    g23 = _mm256_i32gather_epi32((const int *)high, _mm256_add_epi32(index, plusOne), 2);
                    if (low) bytes = _mm256_i32gather_epi32((const int *)low, _mm256_add_epi32(index, minusOne), 1);
                }
                __m256i v0 = _mm256_srai_epi32(_mm256_slli_epi32(g01, 16), 16), v1 = _mm256_srai_epi32(g01, 16);
                __m256i v2 = _mm256_srai_epi32(_mm256_slli_epi32(g23, 16), 16), v3 = _mm256_srai_epi32(g23, 16);
                if (low) {
                    const __m256i mask = _mm256_set1_epi32(0xFF);
                    v0 = _mm256_or_si256(_mm256_slli_epi32(v0, 8), _mm256_and_si256(bytes, mask));
                    v1 = _mm256_or_si256(_mm256_slli_epi32(v1, 8), _mm256_and_si256(_mm256_srli_epi32(bytes, 8), mask));
                    v2 = _mm256_or_si256(_mm256_slli_epi32(v2, 8), _mm256_and_si256(_mm256_srli_epi32(bytes, 16), mask));
                    v3 = _mm256_or_si256(_mm256_slli_epi32(v3, 8), _mm256_srli_epi32(bytes, 24));
                }
                __m256 c0 = _mm256_mul_ps(x, _mm256_fmadd_ps(x, _mm256_fnmadd_ps(half, x, one), _mm256_sub_ps(_mm256_setzero_ps(), half)));
                __m256 c1 = _mm256_fmadd_ps(_mm256_mul_ps(x, x), _mm256_fmsub_ps(oneHalf, x, twoHalf), one);
                __m256 c2 = _mm256_mul_ps(x, _mm256_fmadd_ps(x, _mm256_fnmadd_ps(oneHalf, x, two), half));
                __m256 c3 = _mm256_mul_ps(_mm256_mul_ps(half, _mm256_mul_ps(x, x)), _mm256_sub_ps(x, one));
                __m256 s = _mm256_mul_ps(c0, _mm256_cvtepi32_ps(v0));
                s = _mm256_fmadd_ps(c1, _mm256_cvtepi32_ps(v1), s);
                s = _mm256_fmadd_ps(c2, _mm256_cvtepi32_ps(v2), s);
                s = _mm256_fmadd_ps(c3, _mm256_cvtepi32_ps(v3), s);
                __m256 lanes = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(k), _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0)));
                __m256 gain = _mm256_mul_ps(_mm256_fmadd_ps(lanes, ampIncrement, amp), scale);
                _mm256_storeu_ps(out + k, _mm256_mul_ps(s, gain));
                k += 8;
                continue;
            }
        }
        out[k] = interpolate(b, high, low, phase_at(base, b->increment, k), looped) * (b->amp + (float)k * b->ampIncrement);
        k++;
    }
}

/// An 8 × 8 transpose (its own inverse): rows of samples to rows of lanes.
AVX2 static inline void transpose8(__m256 *r) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)), s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)), s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    r[0] = _mm256_permute2f128_ps(s0, s4, 0x20); r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    r[2] = _mm256_permute2f128_ps(s2, s6, 0x20); r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    r[4] = _mm256_permute2f128_ps(s0, s4, 0x31); r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    r[6] = _mm256_permute2f128_ps(s2, s6, 0x31); r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

/// The filters of up to 8 voices' 64-sample blocks side by side, one voice per lane (the recursion's
/// latency is paid once for eight voices). Lanes past `count` filter silence into `spare`.
AVX2 static void filter_batch_avx2(const SeqplayBlock *const *blocks, float *const *outs, float *const *histories, int32_t count) {
    float spare[64] __attribute__((aligned(32))) = {0};
    float values[12][8] __attribute__((aligned(32)));
    float *rows[8];
    int32_t compensating = 0;
    for (int32_t j = 0; j < 8; j++) {
        const SeqplayBlock *b = j < count ? blocks[j] : NULL;
        int32_t glides = b && b->incrCount > 0;
        rows[j] = b ? outs[j] : spare;
        values[0][j] = b ? b->a1 : 0; values[1][j] = b ? b->a2 : 0; values[2][j] = b ? b->b02 : 0; values[3][j] = b ? b->b1 : 0;
        values[4][j] = glides ? b->a1Incr : 0; values[5][j] = glides ? b->a2Incr : 0;
        values[6][j] = glides ? b->b02Incr : 0; values[7][j] = glides ? b->b1Incr : 0;
        values[8][j] = b ? histories[j][0] : 0; values[9][j] = b ? histories[j][1] : 0;
        int32_t compensates = glides && b->compensate;
        values[10][j] = compensates ? 1.0f : 0.0f;
        values[11][j] = 0;
        compensating |= compensates;
    }
    __m256 a1 = _mm256_load_ps(values[0]), a2 = _mm256_load_ps(values[1]), b02 = _mm256_load_ps(values[2]), b1 = _mm256_load_ps(values[3]);
    const __m256 a1Incr = _mm256_load_ps(values[4]), a2Incr = _mm256_load_ps(values[5]);
    const __m256 b02Incr = _mm256_load_ps(values[6]), b1Incr = _mm256_load_ps(values[7]);
    __m256 h1 = _mm256_load_ps(values[8]), h2 = _mm256_load_ps(values[9]);
    const __m256 compensates = _mm256_cmp_ps(_mm256_load_ps(values[10]), _mm256_setzero_ps(), _CMP_NEQ_OQ);
    const __m256 one = _mm256_set1_ps(1.0f), threshold = _mm256_set1_ps(0.001f), signless = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    for (int32_t t = 0; t < 64; t += 8) {
        __m256 r[8];
        for (int32_t j = 0; j < 8; j++) r[j] = _mm256_loadu_ps(rows[j] + t);
        transpose8(r);
        for (int32_t k = 0; k < 8; k++) {
            __m256 centre = _mm256_fnmadd_ps(a1, h1, _mm256_fnmadd_ps(a2, h2, r[k]));
            r[k] = _mm256_fmadd_ps(b02, _mm256_add_ps(centre, h2), _mm256_mul_ps(b1, h1));
            h2 = h1;
            h1 = centre;
            __m256 oldB02 = b02;
            a1 = _mm256_add_ps(a1, a1Incr); a2 = _mm256_add_ps(a2, a2Incr);
            b02 = _mm256_add_ps(b02, b02Incr); b1 = _mm256_add_ps(b1, b1Incr);
            if (compensating) {
                __m256 apply = _mm256_and_ps(compensates, _mm256_cmp_ps(_mm256_and_ps(b02, signless), threshold, _CMP_GT_OQ));
                __m256 scale = _mm256_blendv_ps(one, _mm256_div_ps(oldB02, b02), apply);
                h1 = _mm256_mul_ps(h1, scale);
                h2 = _mm256_mul_ps(h2, scale);
            }
        }
        transpose8(r);
        for (int32_t j = 0; j < 8; j++) _mm256_storeu_ps(rows[j] + t, r[j]);
    }
    _mm256_store_ps(values[8], h1);
    _mm256_store_ps(values[9], h2);
    for (int32_t j = 0; j < count; j++) {
        histories[j][0] = fabsf(values[8][j]) < 1e-20f ? 0 : values[8][j];
        histories[j][1] = values[9][j];
    }
}

AVX2 static void synthesize_batch_avx2(const SeqplayBlock *const *blocks, float *const *outs, float *const *histories,
                                       int32_t count, const int16_t *high, const uint8_t *low) {
    for (int32_t j = 0; j < count; j++) prefetch_block(blocks[j], high, low);
    for (int32_t j = 0; j < count; j++) synthesize_runs(blocks[j], high, low, outs[j], interpolate_avx2);
    filter_batch_avx2(blocks, outs, histories, count);
}

AVX2 static void mix_avx2(const float *source, float *left, float *right, int32_t count, float gainLeft, float gainRight,
                          float stepLeft, float stepRight, int32_t ramp, float targetLeft, float targetRight) {
    mix(source, left, right, count, gainLeft, gainRight, stepLeft, stepRight, ramp, targetLeft, targetRight);
}

AVX2 static void add_avx2(float *destination, const float *source, int32_t count) { add(destination, source, count); }
#endif

// MARK: - Dispatch

typedef void (*synthesize_batch_fn)(const SeqplayBlock *const *, float *const *, float *const *, int32_t, const int16_t *, const uint8_t *);
typedef void (*mix_fn)(const float *, float *, float *, int32_t, float, float, float, float, int32_t, float, float);
typedef void (*add_fn)(float *, const float *, int32_t);

static synthesize_batch_fn synthesize_batch_kernel = synthesize_batch_portable;
static mix_fn mix_kernel = mix_portable;
static add_fn add_kernel = add_portable;
static int32_t uses_avx2 = 0;

__attribute__((constructor)) static void choose_kernels(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        synthesize_batch_kernel = synthesize_batch_avx2;
        mix_kernel = mix_avx2;
        add_kernel = add_avx2;
        uses_avx2 = 1;
    }
#endif
}

void seqplay_synthesize_batch(const SeqplayBlock *const *blocks, float *const *outs, float *const *histories,
                              const int32_t *fresh, int32_t count, const int16_t *high, const uint8_t *low) {
    for (int32_t j = 0; j < count; j++)
        if (fresh[j]) { histories[j][0] = 0; histories[j][1] = 0; }
    synthesize_batch_kernel(blocks, outs, histories, count, high, low);
}

void seqplay_mix(const float *source, float *left, float *right, int32_t count, float gainLeft, float gainRight,
                 float stepLeft, float stepRight, int32_t ramp, float targetLeft, float targetRight) {
    mix_kernel(source, left, right, count, gainLeft, gainRight, stepLeft, stepRight, ramp, targetLeft, targetRight);
}

void seqplay_add(float *destination, const float *source, int32_t count) { add_kernel(destination, source, count); }

int32_t seqplay_kernels_use_avx2(void) { return uses_avx2; }
