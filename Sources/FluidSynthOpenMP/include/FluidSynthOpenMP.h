#ifndef SEQPLAY_FLUIDSYNTH_OPENMP_H
#define SEQPLAY_FLUIDSYNTH_OPENMP_H

/// Non-zero when this program's one-thread OpenMP regions run inline (see FluidSynthOpenMP.c).
int seqplay_openmp_inline_regions_active(void);

#endif
