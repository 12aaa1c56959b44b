/**
 * @file internal.h
 * @brief libsai-vasic's process-wide state and helpers shared by its sources:
 *        vasic.c (state, object ids, sai.h entry points, vasic_* extensions),
 *        switch.c (switch API, clock thread, vendor profile keys), port_queue.c
 *        (port and queue APIs), buffer.c (buffer pool and profile API).
 *        The model itself is model.c; stubs.c answers what is not implemented.
 */
#ifndef VASIC_INTERNAL_H
#define VASIC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <sai.h>

#include "alphad/vasic.h"
#include "model.h"
#include "stubs.h"

#define SAI_EXPORT __attribute__((visibility("default")))

/** Longest stretch of model time run while holding the lock. */
#define VASIC_CHUNK_NS 20000ull
/** Realtime thread: sleep when caught up with the wall clock. */
#define VASIC_POLL_NS 100000L
#define VASIC_IDLE_POLL_NS 1000000L

/* Object ids: type in bits 48..63, index (1-based) below. */
#define OID(type, idx) (((uint64_t)(type) << 48) | (uint64_t)(idx))
#define OID_TYPE(o) ((uint32_t)((o) >> 48))
#define OID_IDX(o) ((o) & 0xffffffffffffull)
#define SWITCH_OID OID(SAI_OBJECT_TYPE_SWITCH, 1)
#define POOL_OID OID(SAI_OBJECT_TYPE_BUFFER_POOL, 1)

enum fault_kind {
    FAULT_GET_STATS,
    FAULT_SET_PROFILE,
    FAULT_CREATE_PROFILE,
    FAULT_REMOVE_PROFILE,
    FAULT_SET_QUEUE,
    FAULT_GET_ATTR,
    FAULT_N
};

/* How an out-of-range dynamic threshold is refused: vendors differ (VASIC_TH_REFUSAL). */
enum th_refusal { TH_INVALID_ATTR_VALUE, TH_ATTR_NOT_SUPPORTED, TH_NOT_SUPPORTED, TH_INVALID_PARAMETER, TH_N };

/** The one switch of the process and how it runs. Guarded by g_mu (lock()/unlock()). */
struct vasic_state {
    int initialized;
    sai_service_method_table_t services;
    int has_services;
    struct vm *m;
    int realtime;
    uint64_t gen;          /* bumped when a switch goes away: stops its thread */
    pthread_t thread;
    int has_thread;
    uint64_t t0_ns;
    uint64_t target_ns;    /* manual clock: requested model time */
    uint64_t lag_ns, max_lag_ns;
    int faults[FAULT_N];
    sai_log_level_t log_level;
    /* vendor behaviours a profile can ask for (see vasic.h) */
    uint64_t no_queue_stats, no_pool_stats; /* bit i: counter id i unsupported */
    int no_stats_capability;                /* sai_query_stats_capability: NOT_IMPLEMENTED */
    int th_refusal;                         /* enum th_refusal */
};

extern struct vasic_state g;
extern pthread_mutex_t g_mu;
extern atomic_int g_waiters;
extern char g_err[1024];

void lock(void);
void unlock(void);
void set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t mono_ns(void);
int fault_take(enum fault_kind k);

/* In a get_*_attribute with the model locked: the read fault a test injected, if any,
 * returns SAI_STATUS_FAILURE with the model unlocked. */
#define RETURN_ON_GET_ATTR_FAULT()                                                             \
    do {                                                                                       \
        if (fault_take(FAULT_GET_ATTR)) {                                                      \
            unlock();                                                                          \
            return SAI_STATUS_FAILURE;                                                         \
        }                                                                                      \
    } while (0)

/* object ids (vasic.c): index of the object, or -1 */
int port_of(const struct vm *m, sai_object_id_t oid);
int queue_of(const struct vm *m, sai_object_id_t oid);
sai_object_id_t profile_oid(const struct vm *m, uint32_t slot);
int profile_of(const struct vm *m, sai_object_id_t oid);
sai_status_t put_oids(sai_object_list_t *l, uint32_t n, uint32_t type, uint64_t first_idx);

/* One counter of one object: 0, or -1 if the object has no such counter. */
typedef int (*counter_fn)(void *obj, sai_stat_id_t id, int clear, uint64_t *out);
/* n counters of one object, all or none (lock held): NOT_SUPPORTED names the first
 * counter the object lacks. */
sai_status_t counters_io(const char *fn, const char *what, counter_fn one, void *obj, uint32_t n,
                         const sai_stat_id_t *ids, int read, int clear, uint64_t *counters);
/* get_*_stats_ext mode: 0 for READ, 1 for READ_AND_CLEAR, -1 for any other */
int stats_mode_clears(sai_stats_mode_t mode);

/* The three SAI statistics methods of an object type (vs_get_<obj>_stats, its _ext,
 * vs_clear_<obj>_stats) over impl(fn, id, n, ids, read, clear, counters). */
#define VASIC_STATS_METHODS(obj, impl)                                                                        \
    static sai_status_t vs_get_##obj##_stats(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids,          \
                                             uint64_t *c)                                                     \
    {                                                                                                         \
        return impl("get_" #obj "_stats", id, n, ids, 1, 0, c);                                               \
    }                                                                                                         \
    static sai_status_t vs_get_##obj##_stats_ext(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids,      \
                                                 sai_stats_mode_t mode, uint64_t *c)                          \
    {                                                                                                         \
        const int clear = stats_mode_clears(mode);                                                            \
        return clear < 0 ? SAI_STATUS_INVALID_PARAMETER : impl("get_" #obj "_stats_ext", id, n, ids, 1, clear, c); \
    }                                                                                                         \
    static sai_status_t vs_clear_##obj##_stats(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids)        \
    {                                                                                                         \
        return impl("clear_" #obj "_stats", id, n, ids, 0, 1, NULL);                                          \
    }

#define ATTR_NOT_IMPLEMENTED(i) (SAI_STATUS_ATTR_NOT_IMPLEMENTED_0 - (sai_status_t)(i))
#define ATTR_INVALID_VALUE(i) (SAI_STATUS_INVALID_ATTR_VALUE_0 - (sai_status_t)(i))

#define ATTR_UNKNOWN(i) (SAI_STATUS_UNKNOWN_ATTRIBUTE_0 - (sai_status_t)(i))
#define ATTR_INVALID(i) (SAI_STATUS_INVALID_ATTRIBUTE_0 - (sai_status_t)(i))

/* Common prologue of object calls: lock, check there is a switch. */
#define ENTER(m)                                            \
    struct vm *m;                                           \
    lock();                                                 \
    if (!g.initialized) {                                   \
        unlock();                                           \
        return SAI_STATUS_UNINITIALIZED;                    \
    }                                                       \
    g_err[0] = '\0';                                       \
    m = g.m;                                                \
    if (!m) {                                               \
        set_err("no switch: create_switch not called");     \
        unlock();                                           \
        return SAI_STATUS_INVALID_OBJECT_ID;                \
    }

/* counters (switch.c) */
struct stat_name {
    const char *name;
    sai_object_type_t type;
    sai_stat_id_t id;
    uint32_t modes;
};
extern const struct stat_name stat_names[];
extern const size_t n_stat_names;
int stat_unsupported(const struct stat_name *s);

/* switch lifecycle (switch.c) */
struct detached {
    struct vm *m;
    int join;
    pthread_t thread;
};
struct detached detach_switch(void);
void finish_detach(struct detached d);
uint64_t chunk_end(struct vm *m, uint64_t target);

/* method tables */
extern sai_switch_api_t switch_api;
extern sai_port_api_t port_api;
extern sai_queue_api_t queue_api;
extern sai_buffer_api_t buffer_api;

#endif /* VASIC_INTERNAL_H */
