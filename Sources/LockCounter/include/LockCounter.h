#ifndef SEQPLAY_LOCK_COUNTER_H
#define SEQPLAY_LOCK_COUNTER_H

/// Starts counting, on the calling thread only, the locks it takes or tries (pthread mutexes,
/// read-write locks, spin locks, semaphores, GLib mutexes): every call, taken or not.
void seqplay_lock_count_begin(void);

/// Stops counting on the calling thread and returns the count since `seqplay_lock_count_begin`.
long seqplay_lock_count_end(void);

#endif
