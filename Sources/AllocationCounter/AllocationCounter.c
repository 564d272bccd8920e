// Interposes the malloc family: the executable's definitions win over libc's at dynamic link time.
// Each forwards to glibc's internal entry point and, when the calling thread has counting on,
// counts the call. Thread-local state lives in the executable's static TLS block, so reading it
// never allocates.
#include "AllocationCounter.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static __thread int counting;
static __thread seqplay_alloc_counts counts;

static inline void count_allocation(void) {
    if (counting) counts.allocations++;
}

void seqplay_alloc_count_begin(void) {
    counts.allocations = 0;
    counts.frees = 0;
    counting = 1;
}

seqplay_alloc_counts seqplay_alloc_count_end(void) {
    counting = 0;
    return counts;
}

void *malloc(size_t size) {
    count_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_allocation();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_allocation();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer && counting) counts.frees++;
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count_allocation();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    count_allocation();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count_allocation();
    return __libc_pvalloc(size);
}
