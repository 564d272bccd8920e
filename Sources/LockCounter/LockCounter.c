// Interposes the locking calls a library on the audio path could make: the executable's definitions
// win over libc's and GLib's at dynamic link time (as AllocationCounter's malloc does). Each counts the
// call when the calling thread has counting on, then forwards to the next definition (libc, GLib).
// Tests and benchmarks only, never the product.
#define _GNU_SOURCE
#include "LockCounter.h"

#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>

static __thread int counting;
static __thread long count;

void seqplay_lock_count_begin(void) {
    count = 0;
    counting = 1;
}

long seqplay_lock_count_end(void) {
    counting = 0;
    return count;
}

// Each interposer resolves the next definition once (dlsym takes only the loader's internal lock).
#define FORWARD(result, name, parameters, arguments)                      \
    result name parameters {                                              \
        static result (*next) parameters;                                 \
        if (counting) count++;                                            \
        if (!next) next = (result (*) parameters)dlsym(RTLD_NEXT, #name); \
        return next arguments;                                            \
    }

FORWARD(int, pthread_mutex_lock, (pthread_mutex_t *mutex), (mutex))
FORWARD(int, pthread_mutex_trylock, (pthread_mutex_t *mutex), (mutex))
FORWARD(int, pthread_rwlock_rdlock, (pthread_rwlock_t *lock), (lock))
FORWARD(int, pthread_rwlock_wrlock, (pthread_rwlock_t *lock), (lock))
FORWARD(int, pthread_spin_lock, (pthread_spinlock_t *lock), (lock))
FORWARD(int, sem_wait, (sem_t *semaphore), (semaphore))

// GLib's GMutex and GRecMutex (FluidSynth's own mutexes are these). Opaque here: only forwarded.
FORWARD(void, g_mutex_lock, (void *mutex), (mutex))
FORWARD(void, g_rec_mutex_lock, (void *mutex), (mutex))
