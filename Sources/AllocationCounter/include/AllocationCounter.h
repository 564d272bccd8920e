// Counts heap allocations made by the calling thread, to prove code allocation-free.
//
// Linking this target replaces the process's malloc family (malloc, calloc, realloc, free,
// posix_memalign, aligned_alloc, memalign, valloc, pvalloc) with versions that forward to glibc's
// and count calls on the calling thread while counting is on. Link it into test and benchmark
// targets only, never into the seqplay product.
#ifndef SEQPLAY_ALLOCATION_COUNTER_H
#define SEQPLAY_ALLOCATION_COUNTER_H

/// What one thread called between seqplay_alloc_count_begin() and seqplay_alloc_count_end().
typedef struct {
    /// Calls that allocate: malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc, pvalloc.
    long allocations;
    /// Calls to free with a non-null pointer.
    long frees;
} seqplay_alloc_counts;

/// Zeroes this thread's counts and starts counting this thread's calls.
void seqplay_alloc_count_begin(void);

/// Stops counting this thread's calls and returns the counts since seqplay_alloc_count_begin().
seqplay_alloc_counts seqplay_alloc_count_end(void);

#endif
