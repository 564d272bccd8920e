// Keeps FluidSynth's OpenMP regions from allocating on the audio render thread.
//
// Debian builds libfluidsynth with OpenMP: its reverb and chorus run inside
// `#pragma omp parallel num_threads(fx_units)` once per 64-frame block, one thread with the default single
// effects unit. libgomp allocates (and frees) a team descriptor for every one-thread region, so each
// rendered block would call malloc on the render thread.
//
// A program that links this file defines GOMP_parallel, the entry point the compiler emits for
// `#pragma omp parallel`; the dynamic linker binds libfluidsynth's calls to it. A region asked to run
// on exactly one thread runs its body inline, which OpenMP defines as equivalent (worksharing, barrier,
// single and task constructs outside a team behave as in a team of one, and libgomp implements them
// so). Every other region goes to libgomp's own GOMP_parallel unchanged.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include "FluidSynthOpenMP.h"

typedef void (*gomp_parallel_function)(void (*)(void *), void *, unsigned, unsigned);

// Both functions share one section, so the linker keeps GOMP_parallel wherever the Swift side
// references seqplay_openmp_inline_regions_active (unreferenced sections are dropped in release builds).
#define SEQPLAY_OPENMP_SECTION __attribute__((section(".text.seqplay_openmp"), used))

static _Atomic int inline_regions;

SEQPLAY_OPENMP_SECTION
void GOMP_parallel(void (*body)(void *), void *data, unsigned num_threads, unsigned flags) {
    if (num_threads == 1) {
        atomic_store_explicit(&inline_regions, 1, memory_order_relaxed);
        body(data);
        return;
    }
    static _Atomic(gomp_parallel_function) libgomp_parallel;
    gomp_parallel_function next = atomic_load_explicit(&libgomp_parallel, memory_order_acquire);
    if (next == NULL) {
        next = (gomp_parallel_function)dlsym(RTLD_NEXT, "GOMP_parallel");
        atomic_store_explicit(&libgomp_parallel, next, memory_order_release);
    }
    next(body, data, num_threads, flags);
}

SEQPLAY_OPENMP_SECTION
int seqplay_openmp_inline_regions_active(void) {
    return atomic_load_explicit(&inline_regions, memory_order_relaxed);
}
