#include <lo/lo.h>
#include <stdint.h>

/* lo_arg is a union Swift reads awkwardly: one reader per OSC type seqplay takes. */
static inline int32_t seqplay_lo_int32(const lo_arg *a) { return a->i; }
static inline float seqplay_lo_float(const lo_arg *a) { return a->f; }
static inline double seqplay_lo_double(const lo_arg *a) { return a->d; }
static inline int64_t seqplay_lo_int64(const lo_arg *a) { return a->h; }
static inline const char *seqplay_lo_string(const lo_arg *a) { return &a->s; }
