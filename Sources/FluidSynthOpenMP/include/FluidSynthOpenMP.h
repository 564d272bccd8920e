#ifndef SEQPLAY_FLUIDSYNTH_OPENMP_H
#define SEQPLAY_FLUIDSYNTH_OPENMP_H

/// Routes libfluidsynth's one-thread OpenMP regions to run inline (see FluidSynthOpenMP.c). Call it
/// after libfluidsynth is loaded and before rendering; later calls do nothing. Returns how many of
/// libfluidsynth's import slots were routed (0 when it uses no OpenMP).
int seqplay_openmp_route_fluidsynth_regions(void);

/// Non-zero once a one-thread OpenMP region has run inline.
int seqplay_openmp_inline_regions_active(void);

#endif
