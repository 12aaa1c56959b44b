/**
 * @file vasic.c
 * @brief libsai-vasic: the process-wide state, object ids, the sai.h entry
 *        points (initialize, api query, capability and type queries) and the
 *        vasic_* extensions. The SAI surface is split by API: switch.c (with
 *        the clock), port_queue.c, buffer.c; the model is model.c.
 *
 * One switch per process, as with a vendor libsai. Every entry point takes
 * one process-wide mutex; the realtime model thread holds it for at most
 * VASIC_CHUNK_NS of model time at once and yields when a caller waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static const char *const fault_names[FAULT_N] = {"get_stats",      "set_profile", "create_profile",
                                                 "remove_profile", "set_queue",   "get_attr"};

pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
atomic_int g_waiters;

struct vasic_state g;

char g_err[1024];

void lock(void)
{
    atomic_fetch_add(&g_waiters, 1);
    pthread_mutex_lock(&g_mu);
    atomic_fetch_sub(&g_waiters, 1);
}

void unlock(void)
{
    pthread_mutex_unlock(&g_mu);
}

void set_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof(g_err), fmt, ap);
    va_end(ap);
}

uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int fault_take(enum fault_kind k)
{
    if (g.faults[k] > 0) {
        g.faults[k]--;
        set_err("injected fault: %s", fault_names[k]);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- object ids */

int port_of(const struct vm *m, sai_object_id_t oid)
{
    uint64_t i = OID_IDX(oid);
    if (OID_TYPE(oid) != SAI_OBJECT_TYPE_PORT || i == 0 || i > m->n_ports)
        return -1;
    return (int)(i - 1);
}

int queue_of(const struct vm *m, sai_object_id_t oid)
{
    uint64_t i = OID_IDX(oid);
    if (OID_TYPE(oid) != SAI_OBJECT_TYPE_QUEUE || i == 0 || i > m->n_queues)
        return -1;
    return (int)(i - 1);
}

sai_object_id_t profile_oid(const struct vm *m, uint32_t slot)
{
    return OID(SAI_OBJECT_TYPE_BUFFER_PROFILE, ((uint64_t)m->profiles[slot].gen << 24) | (slot + 1));
}

int profile_of(const struct vm *m, sai_object_id_t oid)
{
    uint64_t i = OID_IDX(oid);
    uint32_t slot = (uint32_t)(i & 0xffffffu), gen = (uint32_t)(i >> 24);
    if (OID_TYPE(oid) != SAI_OBJECT_TYPE_BUFFER_PROFILE || slot == 0 || slot > m->n_profiles)
        return -1;
    slot--;
    if (!m->profiles[slot].used || m->profiles[slot].gen != gen)
        return -1;
    return (int)slot;
}

sai_status_t put_oids(sai_object_list_t *l, uint32_t n, uint32_t type, uint64_t first_idx)
{
    if (l->count < n) {
        l->count = n;
        return SAI_STATUS_BUFFER_OVERFLOW;
    }
    if (n && !l->list)
        return SAI_STATUS_INVALID_PARAMETER;
    for (uint32_t i = 0; i < n; i++)
        l->list[i] = OID(type, first_idx + i);
    l->count = n;
    return SAI_STATUS_SUCCESS;
}

sai_status_t counters_io(const char *fn, const char *what, counter_fn one, void *obj, uint32_t n,
                         const sai_stat_id_t *ids, int read, int clear, uint64_t *counters)
{
    for (uint32_t i = 0; i < n; i++)
        if (one(obj, ids[i], 0, NULL) < 0) {
            set_err("%s: %s counter %u not supported", fn, what, ids[i]);
            return SAI_STATUS_NOT_SUPPORTED;
        }
    for (uint32_t i = 0; i < n; i++)
        one(obj, ids[i], clear, read ? &counters[i] : NULL);
    return SAI_STATUS_SUCCESS;
}

int stats_mode_clears(sai_stats_mode_t mode)
{
    return mode == SAI_STATS_MODE_READ ? 0 : mode == SAI_STATS_MODE_READ_AND_CLEAR ? 1 : -1;
}

/* ---------------------------------------------------------------- sai.h */

SAI_EXPORT sai_status_t sai_api_initialize(uint64_t flags, const sai_service_method_table_t *services)
{
    (void)flags;
    lock();
    if (g.initialized) {
        set_err("sai_api_initialize: already initialized (one switch per process)");
        unlock();
        return SAI_STATUS_FAILURE;
    }
    memset(g.faults, 0, sizeof(g.faults));
    g.has_services = services != NULL;
    if (services)
        g.services = *services;
    g.log_level = SAI_LOG_LEVEL_WARN;
    g.initialized = 1;
    g_err[0] = '\0';
    unlock();
    return SAI_STATUS_SUCCESS;
}

SAI_EXPORT sai_status_t sai_api_query(sai_api_t api, void **api_method_table)
{
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (!api_method_table)
        return SAI_STATUS_INVALID_PARAMETER;
    lock();
    if (!g.initialized) {
        unlock();
        return SAI_STATUS_UNINITIALIZED;
    }
    switch (api) {
    case SAI_API_SWITCH:
        *api_method_table = &switch_api;
        break;
    case SAI_API_PORT:
        *api_method_table = &port_api;
        break;
    case SAI_API_QUEUE:
        *api_method_table = &queue_api;
        break;
    case SAI_API_BUFFER:
        *api_method_table = &buffer_api;
        break;
    default:
        st = SAI_STATUS_NOT_IMPLEMENTED;
    }
    unlock();
    return st;
}

SAI_EXPORT sai_status_t sai_api_uninitialize(void)
{
    lock();
    if (!g.initialized) {
        unlock();
        return SAI_STATUS_UNINITIALIZED;
    }
    struct detached d = detach_switch();
    g.initialized = 0;
    g.has_services = 0;
    memset(g.faults, 0, sizeof(g.faults));
    unlock();
    finish_detach(d);
    return SAI_STATUS_SUCCESS;
}

SAI_EXPORT sai_status_t sai_log_set(sai_api_t api, sai_log_level_t log_level)
{
    (void)api;
    if (log_level < SAI_LOG_LEVEL_DEBUG || log_level > SAI_LOG_LEVEL_CRITICAL)
        return SAI_STATUS_INVALID_PARAMETER;
    lock();
    g.log_level = log_level;
    unlock();
    return SAI_STATUS_SUCCESS;
}

SAI_EXPORT sai_object_type_t sai_object_type_query(sai_object_id_t object_id)
{
    sai_object_type_t t = SAI_OBJECT_TYPE_NULL;
    lock();
    struct vm *m = g.m;
    if (m) {
        if (object_id == SWITCH_OID)
            t = SAI_OBJECT_TYPE_SWITCH;
        else if (object_id == POOL_OID)
            t = SAI_OBJECT_TYPE_BUFFER_POOL;
        else if (port_of(m, object_id) >= 0)
            t = SAI_OBJECT_TYPE_PORT;
        else if (queue_of(m, object_id) >= 0)
            t = SAI_OBJECT_TYPE_QUEUE;
        else if (profile_of(m, object_id) >= 0)
            t = SAI_OBJECT_TYPE_BUFFER_PROFILE;
    }
    unlock();
    return t;
}

SAI_EXPORT sai_status_t sai_query_stats_capability(sai_object_id_t switch_id, sai_object_type_t object_type,
                                                  sai_stat_capability_list_t *stats_capability)
{
    if (!stats_capability)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    (void)m;
    sai_status_t st = SAI_STATUS_SUCCESS;
    uint32_t n = 0;
    if (switch_id != SWITCH_OID) {
        set_err("sai_query_stats_capability: no switch 0x%llx", (unsigned long long)switch_id);
        st = SAI_STATUS_INVALID_OBJECT_ID;
    } else if (g.no_stats_capability) {
        st = SAI_STATUS_NOT_IMPLEMENTED;
    } else if (object_type != SAI_OBJECT_TYPE_QUEUE && object_type != SAI_OBJECT_TYPE_BUFFER_POOL) {
        st = SAI_STATUS_NOT_SUPPORTED;
    } else {
        for (size_t k = 0; k < n_stat_names; k++)
            if (stat_names[k].type == object_type && !stat_unsupported(&stat_names[k])) {
                if (n < stats_capability->count && stats_capability->list) {
                    stats_capability->list[n].stat_enum = stat_names[k].id;
                    stats_capability->list[n].stat_modes = stat_names[k].modes;
                }
                n++;
            }
        if (n > stats_capability->count || (n && !stats_capability->list))
            st = SAI_STATUS_BUFFER_OVERFLOW;
        stats_capability->count = n;
    }
    unlock();
    return st;
}

SAI_EXPORT sai_object_id_t sai_switch_id_query(sai_object_id_t object_id)
{
    return sai_object_type_query(object_id) == SAI_OBJECT_TYPE_NULL ? SAI_NULL_OBJECT_ID : SWITCH_OID;
}

/* ---------------------------------------------------------------- vasic.h */

VASIC_API int vasic_advance(uint64_t ns)
{
    lock();
    struct vm *m = g.m;
    if (!m) {
        unlock();
        return -ENODEV;
    }
    if (g.realtime) {
        unlock();
        return -ENOTSUP;
    }
    g.target_ns = ns > UINT64_MAX - g.target_ns ? UINT64_MAX : g.target_ns + ns;
    while (g.m == m && m->now_ns + m->sw.step_ns <= g.target_ns) {
        vm_run_until(m, chunk_end(m, g.target_ns));
        if (atomic_load(&g_waiters) > 0) {
            unlock();
            sched_yield();
            lock();
        }
    }
    int rc = g.m == m ? 0 : -ENODEV;
    unlock();
    return rc;
}

VASIC_API uint64_t vasic_now_ns(void)
{
    uint64_t t;
    lock();
    t = g.m ? g.m->now_ns : 0;
    unlock();
    return t;
}

VASIC_API const char *vasic_last_error(void)
{
    return g_err;
}

VASIC_API int vasic_totals(struct vasic_totals *out)
{
    if (!out)
        return -EINVAL;
    lock();
    struct vm *m = g.m;
    if (!m) {
        unlock();
        return -ENODEV;
    }
    memset(out, 0, sizeof(*out));
    out->incast_offered_bytes = m->offered[VSCN_INCAST];
    out->incast_dropped_bytes = m->dropped[VSCN_INCAST];
    out->incast_delivered_bytes = m->delivered[VSCN_INCAST];
    out->greedy_offered_bytes = m->offered[VSCN_GREEDY];
    out->greedy_dropped_bytes = m->dropped[VSCN_GREEDY];
    out->greedy_delivered_bytes = m->delivered[VSCN_GREEDY];
    out->onoff_offered_bytes = m->offered[VSCN_ONOFF];
    out->onoff_dropped_bytes = m->dropped[VSCN_ONOFF];
    out->onoff_delivered_bytes = m->delivered[VSCN_ONOFF];
    out->incast_bursts = m->bursts;
    out->incast_bursts_skipped = m->bursts_skipped;
    out->model_ns = m->now_ns;
    out->lag_ns = g.lag_ns;
    out->max_lag_ns = g.max_lag_ns;
    out->steps = m->steps;
    unlock();
    return 0;
}

VASIC_API int vasic_inject_fault(const char *what, int count)
{
    if (!what || count < 0)
        return -EINVAL;
    for (int k = 0; k < FAULT_N; k++)
        if (strcmp(what, fault_names[k]) == 0) {
            lock();
            g.faults[k] = count;
            unlock();
            return 0;
        }
    return -EINVAL;
}

VASIC_API int vasic_profile_count(void)
{
    int n;
    lock();
    n = g.m ? (int)g.m->live_profiles : -ENODEV;
    unlock();
    return n;
}

