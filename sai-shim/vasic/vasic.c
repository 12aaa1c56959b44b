/**
 * @file vasic.c
 * @brief libsai-vasic: the SAI entry points and method tables over the
 *        shared-buffer model, the clock (realtime thread or manual) and the
 *        vasic_* extensions.
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

#include <sai.h>

#include "alphad/vasic.h"
#include "model.h"
#include "scenario.h"
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

static const char *const fault_names[FAULT_N] = {"get_stats",      "set_profile", "create_profile",
                                                 "remove_profile", "set_queue",   "get_attr"};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int g_waiters;

static struct {
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
} g;

static char g_err[1024];

static void lock(void)
{
    atomic_fetch_add(&g_waiters, 1);
    pthread_mutex_lock(&g_mu);
    atomic_fetch_sub(&g_waiters, 1);
}

static void unlock(void)
{
    pthread_mutex_unlock(&g_mu);
}

static void set_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof(g_err), fmt, ap);
    va_end(ap);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fault_take(enum fault_kind k)
{
    if (g.faults[k] > 0) {
        g.faults[k]--;
        set_err("injected fault: %s", fault_names[k]);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- object ids */

static int port_of(const struct vm *m, sai_object_id_t oid)
{
    uint64_t i = OID_IDX(oid);
    if (OID_TYPE(oid) != SAI_OBJECT_TYPE_PORT || i == 0 || i > m->n_ports)
        return -1;
    return (int)(i - 1);
}

static int queue_of(const struct vm *m, sai_object_id_t oid)
{
    uint64_t i = OID_IDX(oid);
    if (OID_TYPE(oid) != SAI_OBJECT_TYPE_QUEUE || i == 0 || i > m->n_queues)
        return -1;
    return (int)(i - 1);
}

static sai_object_id_t profile_oid(const struct vm *m, uint32_t slot)
{
    return OID(SAI_OBJECT_TYPE_BUFFER_PROFILE, ((uint64_t)m->profiles[slot].gen << 24) | (slot + 1));
}

static int profile_of(const struct vm *m, sai_object_id_t oid)
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

static sai_status_t put_oids(sai_object_list_t *l, uint32_t n, uint32_t type, uint64_t first_idx)
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

#define ATTR_NOT_IMPLEMENTED(i) (SAI_STATUS_ATTR_NOT_IMPLEMENTED_0 - (sai_status_t)(i))
#define ATTR_INVALID_VALUE(i) (SAI_STATUS_INVALID_ATTR_VALUE_0 - (sai_status_t)(i))

/* How an out-of-range dynamic threshold is refused: vendors differ (VASIC_TH_REFUSAL). */
enum th_refusal { TH_INVALID_ATTR_VALUE, TH_ATTR_NOT_SUPPORTED, TH_NOT_SUPPORTED, TH_INVALID_PARAMETER, TH_N };
static const char *const th_refusal_names[TH_N] = {"invalid_attr_value", "attr_not_supported", "not_supported",
                                                   "invalid_parameter"};

static sai_status_t th_refused(uint32_t i)
{
    switch (g.th_refusal) {
    case TH_ATTR_NOT_SUPPORTED:
        return SAI_STATUS_ATTR_NOT_SUPPORTED_0 - (sai_status_t)i;
    case TH_NOT_SUPPORTED:
        return SAI_STATUS_NOT_SUPPORTED;
    case TH_INVALID_PARAMETER:
        return SAI_STATUS_INVALID_PARAMETER;
    default:
        return ATTR_INVALID_VALUE(i);
    }
}
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

/* ---------------------------------------------------------------- clock */

/* End of the next stretch to run under the lock: at most VASIC_CHUNK_NS of
 * busy model time, but an idle stretch is skipped in one go. */
static uint64_t chunk_end(struct vm *m, uint64_t target)
{
    /* At least one whole step, or a model with step_ns > VASIC_CHUNK_NS would
     * never advance. */
    uint64_t span = m->sw.step_ns > VASIC_CHUNK_NS ? m->sw.step_ns : VASIC_CHUNK_NS;
    uint64_t end = m->now_ns + span;
    uint64_t quiet = vm_quiet_until(m);
    if (quiet > end)
        end = quiet;
    return end < target ? end : target;
}

static void *rt_main(void *arg)
{
    uint64_t my_gen = (uint64_t)(uintptr_t)arg;
    for (;;) {
        long sleep_ns = VASIC_POLL_NS;
        int ran = 0;
        lock();
        if (g.gen != my_gen || !g.m) {
            unlock();
            break;
        }
        struct vm *m = g.m;
        uint64_t wall = mono_ns() - g.t0_ns;
        if (m->now_ns + m->sw.step_ns <= wall) {
            vm_run_until(m, chunk_end(m, wall));
            ran = 1;
        } else if (m->n_active == 0 && m->n_busy == 0) {
            sleep_ns = VASIC_IDLE_POLL_NS;
        }
        uint64_t now_wall = mono_ns() - g.t0_ns;
        g.lag_ns = now_wall > m->now_ns ? now_wall - m->now_ns : 0;
        if (g.lag_ns > g.max_lag_ns)
            g.max_lag_ns = g.lag_ns;
        unlock();
        if (ran) {
            if (atomic_load(&g_waiters) > 0)
                sched_yield();
            continue;
        }
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* Detach the switch (lock held). The caller unlocks, then calls finish_detach. */
struct detached {
    struct vm *m;
    int join;
    pthread_t thread;
};

static struct detached detach_switch(void)
{
    struct detached d = {g.m, g.has_thread, g.thread};
    g.m = NULL;
    g.has_thread = 0;
    g.gen++;
    return d;
}

static void finish_detach(struct detached d)
{
    if (d.join)
        pthread_join(d.thread, NULL);
    vm_destroy(d.m);
}

/* ---------------------------------------------------------------- vendor profile */

/* The counters the model keeps, by object type: what sai_query_stats_capability
 * reports and what VASIC_UNSUPPORTED_STATS can take away. */
static const struct stat_name {
    const char *name;
    sai_object_type_t type;
    sai_stat_id_t id;
    uint32_t modes;
} stat_names[] = {
#define RC (SAI_STATS_MODE_READ | SAI_STATS_MODE_READ_AND_CLEAR)
    {"SAI_QUEUE_STAT_PACKETS", SAI_OBJECT_TYPE_QUEUE, SAI_QUEUE_STAT_PACKETS, RC},
    {"SAI_QUEUE_STAT_BYTES", SAI_OBJECT_TYPE_QUEUE, SAI_QUEUE_STAT_BYTES, RC},
    {"SAI_QUEUE_STAT_DROPPED_PACKETS", SAI_OBJECT_TYPE_QUEUE, SAI_QUEUE_STAT_DROPPED_PACKETS, RC},
    {"SAI_QUEUE_STAT_DROPPED_BYTES", SAI_OBJECT_TYPE_QUEUE, SAI_QUEUE_STAT_DROPPED_BYTES, RC},
    {"SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES", SAI_OBJECT_TYPE_QUEUE, SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES,
     SAI_STATS_MODE_READ},
    {"SAI_QUEUE_STAT_WATERMARK_BYTES", SAI_OBJECT_TYPE_QUEUE, SAI_QUEUE_STAT_WATERMARK_BYTES, RC},
    {"SAI_QUEUE_STAT_SHARED_CURR_OCCUPANCY_BYTES", SAI_OBJECT_TYPE_QUEUE,
     SAI_QUEUE_STAT_SHARED_CURR_OCCUPANCY_BYTES, SAI_STATS_MODE_READ},
    {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES", SAI_OBJECT_TYPE_QUEUE, SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES, RC},
    {"SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES", SAI_OBJECT_TYPE_BUFFER_POOL,
     SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES, SAI_STATS_MODE_READ},
    {"SAI_BUFFER_POOL_STAT_WATERMARK_BYTES", SAI_OBJECT_TYPE_BUFFER_POOL, SAI_BUFFER_POOL_STAT_WATERMARK_BYTES, RC},
    {"SAI_BUFFER_POOL_STAT_DROPPED_PACKETS", SAI_OBJECT_TYPE_BUFFER_POOL, SAI_BUFFER_POOL_STAT_DROPPED_PACKETS, RC},
#undef RC
};
#define N_STAT_NAMES (sizeof(stat_names) / sizeof(stat_names[0]))

static int stat_unsupported(const struct stat_name *s)
{
    uint64_t mask = s->type == SAI_OBJECT_TYPE_QUEUE ? g.no_queue_stats : g.no_pool_stats;
    return s->id < 64 && (mask >> s->id & 1);
}

/* VASIC_UNSUPPORTED_STATS: comma-separated counter names the switch lacks. */
static int parse_unsupported(const char *v)
{
    g.no_queue_stats = g.no_pool_stats = 0;
    while (v && *v) {
        size_t len = strcspn(v, ",");
        size_t k = 0;
        for (; k < N_STAT_NAMES; k++)
            if (strlen(stat_names[k].name) == len && strncmp(v, stat_names[k].name, len) == 0)
                break;
        if (k == N_STAT_NAMES) {
            set_err("profile: VASIC_UNSUPPORTED_STATS: unknown counter '%.*s'", (int)len, v);
            return -1;
        }
        if (stat_names[k].type == SAI_OBJECT_TYPE_QUEUE)
            g.no_queue_stats |= 1ull << stat_names[k].id;
        else
            g.no_pool_stats |= 1ull << stat_names[k].id;
        v += len + (v[len] == ',');
    }
    return 0;
}

/* The vendor behaviours of the profile (VASIC_UNSUPPORTED_STATS, VASIC_STATS_CAPABILITY,
 * VASIC_TH_REFUSAL); 0, or -1 with the error set. */
static int read_vendor_profile(uint32_t profile_id)
{
    const char *uns = NULL, *cap = NULL, *ref = NULL;
    g.no_queue_stats = g.no_pool_stats = 0;
    g.no_stats_capability = 0;
    g.th_refusal = TH_INVALID_ATTR_VALUE;
    if (!g.has_services || !g.services.profile_get_value)
        return 0;
    uns = g.services.profile_get_value(profile_id, "VASIC_UNSUPPORTED_STATS");
    cap = g.services.profile_get_value(profile_id, "VASIC_STATS_CAPABILITY");
    ref = g.services.profile_get_value(profile_id, "VASIC_TH_REFUSAL");
    if (parse_unsupported(uns))
        return -1;
    if (cap && strcmp(cap, "off") == 0) {
        g.no_stats_capability = 1;
    } else if (cap && strcmp(cap, "on") != 0) {
        set_err("profile: bad value '%s' for VASIC_STATS_CAPABILITY (expected on or off)", cap);
        return -1;
    }
    if (ref) {
        int k = 0;
        while (k < TH_N && strcmp(ref, th_refusal_names[k]) != 0)
            k++;
        if (k == TH_N) {
            set_err("profile: bad value '%s' for VASIC_TH_REFUSAL (expected invalid_attr_value, "
                    "attr_not_supported, not_supported or invalid_parameter)", ref);
            return -1;
        }
        g.th_refusal = k;
    }
    return 0;
}

/* ---------------------------------------------------------------- switch api */

static sai_status_t vs_create_switch(sai_object_id_t *switch_id, uint32_t attr_count,
                                     const sai_attribute_t *attr_list)
{
    int init = -1;
    uint32_t profile_id = 0;
    const char *path = NULL, *text = NULL, *clock = NULL;
    struct vscn scn;
    char err[sizeof(g_err)];
    sai_status_t st = SAI_STATUS_SUCCESS;

    if (!switch_id || (attr_count && !attr_list))
        return SAI_STATUS_INVALID_PARAMETER;
    lock();
    if (!g.initialized) {
        unlock();
        return SAI_STATUS_UNINITIALIZED;
    }
    g_err[0] = '\0';
    if (g.m) {
        set_err("create_switch: the virtual ASIC has one switch and it exists");
        unlock();
        return SAI_STATUS_ITEM_ALREADY_EXISTS;
    }
    for (uint32_t i = 0; i < attr_count; i++) {
        /* other attributes a NOS passes at create (MAC, callbacks) are ignored */
        if (attr_list[i].id == SAI_SWITCH_ATTR_INIT_SWITCH)
            init = attr_list[i].value.booldata ? 1 : 0;
        else if (attr_list[i].id == SAI_SWITCH_ATTR_SWITCH_PROFILE_ID)
            profile_id = attr_list[i].value.u32;
    }
    if (init < 0) {
        set_err("create_switch: SAI_SWITCH_ATTR_INIT_SWITCH is mandatory");
        unlock();
        return SAI_STATUS_MANDATORY_ATTRIBUTE_MISSING;
    }
    if (init == 0) {
        set_err("create_switch: INIT_SWITCH=false (connect to a running SDK) is not supported");
        unlock();
        return SAI_STATUS_NOT_SUPPORTED;
    }
    if (g.has_services && g.services.profile_get_value) {
        path = g.services.profile_get_value(profile_id, "VASIC_SCENARIO");
        text = g.services.profile_get_value(profile_id, "VASIC_SCENARIO_TEXT");
        clock = g.services.profile_get_value(profile_id, "VASIC_CLOCK");
    }
    if (g.has_services && g.services.profile_get_next_value) {
        /* a misspelt VASIC_ key is an error, not a silent default */
        static const char *const known[] = {"VASIC_SCENARIO",          "VASIC_SCENARIO_TEXT",
                                            "VASIC_CLOCK",             "VASIC_UNSUPPORTED_STATS",
                                            "VASIC_STATS_CAPABILITY", "VASIC_TH_REFUSAL"};
        const char *k = NULL, *v = NULL;
        g.services.profile_get_next_value(profile_id, NULL, NULL); /* reset */
        for (int n = 0; n < 100000 && g.services.profile_get_next_value(profile_id, &k, &v) == 0 && k; n++) {
            int ok = strncmp(k, "VASIC_", 6) != 0;
            for (size_t j = 0; j < sizeof(known) / sizeof(known[0]) && !ok; j++)
                ok = strcmp(k, known[j]) == 0;
            if (!ok) {
                set_err("profile: unknown key '%s' (known: VASIC_SCENARIO, VASIC_SCENARIO_TEXT, VASIC_CLOCK, "
                        "VASIC_UNSUPPORTED_STATS, VASIC_STATS_CAPABILITY, VASIC_TH_REFUSAL)",
                        k);
                unlock();
                return SAI_STATUS_INVALID_PARAMETER;
            }
        }
    }
    if (read_vendor_profile(profile_id)) {
        unlock();
        return SAI_STATUS_INVALID_PARAMETER;
    }
    int realtime = 1;
    if (clock && strcmp(clock, "manual") == 0) {
        realtime = 0;
    } else if (clock && strcmp(clock, "realtime") != 0) {
        set_err("profile: bad value '%s' for VASIC_CLOCK (expected realtime or manual)", clock);
        unlock();
        return SAI_STATUS_INVALID_PARAMETER;
    }
    int rc;
    if (path && *path)
        rc = vscn_parse_file(path, &scn, err, sizeof(err));
    else if (text)
        rc = vscn_parse_text(text, "VASIC_SCENARIO_TEXT", &scn, err, sizeof(err));
    else {
        vscn_defaults(&scn);
        rc = 0;
    }
    if (rc) {
        set_err("%s", err);
        unlock();
        return SAI_STATUS_FAILURE;
    }
    struct vm *m = vm_create(&scn, err, sizeof(err));
    vscn_free(&scn);
    if (!m) {
        set_err("%s", err);
        unlock();
        return SAI_STATUS_FAILURE;
    }
    g.m = m;
    g.realtime = realtime;
    g.target_ns = 0;
    g.lag_ns = g.max_lag_ns = 0;
    g.t0_ns = mono_ns();
    g.has_thread = 0;
    if (realtime) {
        if (pthread_create(&g.thread, NULL, rt_main, (void *)(uintptr_t)g.gen) != 0) {
            set_err("create_switch: cannot start the model thread");
            g.m = NULL;
            vm_destroy(m);
            st = SAI_STATUS_FAILURE;
        } else {
            g.has_thread = 1;
        }
    }
    if (st == SAI_STATUS_SUCCESS)
        *switch_id = SWITCH_OID;
    unlock();
    return st;
}

static sai_status_t vs_remove_switch(sai_object_id_t switch_id)
{
    lock();
    if (!g.initialized) {
        unlock();
        return SAI_STATUS_UNINITIALIZED;
    }
    if (!g.m || switch_id != SWITCH_OID) {
        unlock();
        return SAI_STATUS_INVALID_OBJECT_ID;
    }
    struct detached d = detach_switch();
    unlock();
    finish_detach(d);
    return SAI_STATUS_SUCCESS;
}

static sai_status_t vs_get_switch_attribute(sai_object_id_t switch_id, uint32_t attr_count,
                                            sai_attribute_t *attr_list)
{
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (attr_count && !attr_list)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    if (switch_id != SWITCH_OID) {
        unlock();
        return SAI_STATUS_INVALID_OBJECT_ID;
    }
    if (fault_take(FAULT_GET_ATTR)) {
        unlock();
        return SAI_STATUS_FAILURE;
    }
    for (uint32_t i = 0; i < attr_count && st == SAI_STATUS_SUCCESS; i++) {
        sai_attribute_t *a = &attr_list[i];
        switch (a->id) {
        case SAI_SWITCH_ATTR_PORT_NUMBER:
            a->value.u32 = m->n_ports;
            break;
        case SAI_SWITCH_ATTR_PORT_LIST:
            st = put_oids(&a->value.objlist, m->n_ports, SAI_OBJECT_TYPE_PORT, 1);
            break;
        case SAI_SWITCH_ATTR_NUMBER_OF_QUEUES:
            a->value.u32 = m->n_queues;
            break;
        case SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE:
            a->value.u64 = m->sw.buffer_bytes / 1024; /* KB */
            break;
        case SAI_SWITCH_ATTR_INGRESS_BUFFER_POOL_NUM:
            a->value.u32 = 0;
            break;
        case SAI_SWITCH_ATTR_EGRESS_BUFFER_POOL_NUM:
            a->value.u32 = 1;
            break;
        default:
            st = ATTR_NOT_IMPLEMENTED(i);
        }
    }
    unlock();
    return st;
}

static sai_switch_api_t switch_api = {
    .create_switch = vs_create_switch,
    .remove_switch = vs_remove_switch,
    .set_switch_attribute = vs_ni_set,
    .get_switch_attribute = vs_get_switch_attribute,
    .get_switch_stats = vs_ni_stats,
    .get_switch_stats_ext = vs_ni_stats_ext,
    .clear_switch_stats = vs_ni_clear,
    .switch_mdio_read = vs_ni_mdio_read,
    .switch_mdio_write = vs_ni_mdio_write,
    .create_switch_tunnel = vs_ni_create,
    .remove_switch_tunnel = vs_ni_remove,
    .set_switch_tunnel_attribute = vs_ni_set,
    .get_switch_tunnel_attribute = vs_ni_get,
    .switch_mdio_cl22_read = vs_ni_mdio_read,
    .switch_mdio_cl22_write = vs_ni_mdio_write,
};

/* ---------------------------------------------------------------- port api */

static sai_status_t vs_get_port_attribute(sai_object_id_t port_id, uint32_t attr_count,
                                          sai_attribute_t *attr_list)
{
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (attr_count && !attr_list)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    int p = port_of(m, port_id);
    if (p < 0) {
        set_err("get_port_attribute: no port 0x%llx", (unsigned long long)port_id);
        unlock();
        return SAI_STATUS_INVALID_OBJECT_ID;
    }
    if (fault_take(FAULT_GET_ATTR)) {
        unlock();
        return SAI_STATUS_FAILURE;
    }
    for (uint32_t i = 0; i < attr_count && st == SAI_STATUS_SUCCESS; i++) {
        sai_attribute_t *a = &attr_list[i];
        switch (a->id) {
        case SAI_PORT_ATTR_TYPE:
            a->value.s32 = SAI_PORT_TYPE_LOGICAL;
            break;
        case SAI_PORT_ATTR_OPER_STATUS:
            a->value.s32 = SAI_PORT_OPER_STATUS_UP;
            break;
        case SAI_PORT_ATTR_SPEED:
            a->value.u32 = (uint32_t)(m->ports[p].speed_bps / 1000000u); /* Mbps */
            break;
        case SAI_PORT_ATTR_QOS_NUMBER_OF_QUEUES:
            a->value.u32 = m->sw.queues;
            break;
        case SAI_PORT_ATTR_QOS_QUEUE_LIST:
            st = put_oids(&a->value.objlist, m->sw.queues, SAI_OBJECT_TYPE_QUEUE,
                          (uint64_t)p * m->sw.queues + 1);
            break;
        default:
            st = ATTR_NOT_IMPLEMENTED(i);
        }
    }
    unlock();
    return st;
}

static sai_port_api_t port_api = {
    .create_port = vs_ni_create,
    .remove_port = vs_ni_remove,
    .set_port_attribute = vs_ni_set,
    .get_port_attribute = vs_get_port_attribute,
    .get_port_stats = vs_ni_stats,
    .get_port_stats_ext = vs_ni_stats_ext,
    .clear_port_stats = vs_ni_clear,
    .clear_port_all_stats = vs_ni_remove,
    .create_port_pool = vs_ni_create,
    .remove_port_pool = vs_ni_remove,
    .set_port_pool_attribute = vs_ni_set,
    .get_port_pool_attribute = vs_ni_get,
    .get_port_pool_stats = vs_ni_stats,
    .get_port_pool_stats_ext = vs_ni_stats_ext,
    .clear_port_pool_stats = vs_ni_clear,
    .create_port_connector = vs_ni_create,
    .remove_port_connector = vs_ni_remove,
    .set_port_connector_attribute = vs_ni_set,
    .get_port_connector_attribute = vs_ni_get,
    .create_port_serdes = vs_ni_create,
    .remove_port_serdes = vs_ni_remove,
    .set_port_serdes_attribute = vs_ni_set,
    .get_port_serdes_attribute = vs_ni_get,
    .create_ports = vs_ni_bulk_create,
    .remove_ports = vs_ni_bulk_remove,
    .set_ports_attribute = vs_ni_bulk_set,
    .get_ports_attribute = vs_ni_bulk_get,
    .create_port_serdess = vs_ni_bulk_create,
    .remove_port_serdess = vs_ni_bulk_remove,
    .set_port_serdess_attribute = vs_ni_bulk_set,
    .get_port_serdess_attribute = vs_ni_bulk_get,
    .create_port_llr_profile = vs_ni_create,
    .remove_port_llr_profile = vs_ni_remove,
    .set_port_llr_profile_attribute = vs_ni_set,
    .get_port_llr_profile_attribute = vs_ni_get,
};

/* ---------------------------------------------------------------- queue api */

static sai_status_t vs_set_queue_attribute(sai_object_id_t queue_id, const sai_attribute_t *attr)
{
    if (!attr)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    int q = queue_of(m, queue_id);
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (q < 0) {
        set_err("set_queue_attribute: no queue 0x%llx", (unsigned long long)queue_id);
        st = SAI_STATUS_INVALID_OBJECT_ID;
    } else if (fault_take(FAULT_SET_QUEUE)) {
        st = SAI_STATUS_FAILURE;
    } else if (attr->id == SAI_QUEUE_ATTR_BUFFER_PROFILE_ID) {
        int slot = profile_of(m, attr->value.oid);
        if (slot < 0) {
            set_err("set_queue_attribute: no buffer profile 0x%llx", (unsigned long long)attr->value.oid);
            st = SAI_STATUS_INVALID_PARAMETER;
        } else {
            vm_queue_set_profile(m, (uint32_t)q, (uint32_t)slot);
        }
    } else if (attr->id == SAI_QUEUE_ATTR_TYPE || attr->id == SAI_QUEUE_ATTR_PORT ||
               attr->id == SAI_QUEUE_ATTR_INDEX) {
        set_err("set_queue_attribute: attribute %u is create-only", attr->id);
        st = SAI_STATUS_INVALID_PARAMETER;
    } else {
        st = ATTR_NOT_IMPLEMENTED(0);
    }
    unlock();
    return st;
}

static sai_status_t vs_get_queue_attribute(sai_object_id_t queue_id, uint32_t attr_count,
                                           sai_attribute_t *attr_list)
{
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (attr_count && !attr_list)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    int q = queue_of(m, queue_id);
    if (q < 0) {
        set_err("get_queue_attribute: no queue 0x%llx", (unsigned long long)queue_id);
        unlock();
        return SAI_STATUS_INVALID_OBJECT_ID;
    }
    if (fault_take(FAULT_GET_ATTR)) {
        unlock();
        return SAI_STATUS_FAILURE;
    }
    const struct vm_queue *vq = &m->queues[q];
    for (uint32_t i = 0; i < attr_count && st == SAI_STATUS_SUCCESS; i++) {
        sai_attribute_t *a = &attr_list[i];
        switch (a->id) {
        case SAI_QUEUE_ATTR_TYPE:
            a->value.s32 = SAI_QUEUE_TYPE_UNICAST;
            break;
        case SAI_QUEUE_ATTR_PORT:
            a->value.oid = OID(SAI_OBJECT_TYPE_PORT, vq->port + 1);
            break;
        case SAI_QUEUE_ATTR_INDEX:
            a->value.u8 = (uint8_t)vq->index;
            break;
        case SAI_QUEUE_ATTR_BUFFER_PROFILE_ID:
            a->value.oid = profile_oid(m, vq->profile);
            break;
        default:
            st = ATTR_NOT_IMPLEMENTED(i);
        }
    }
    unlock();
    return st;
}

/* One queue counter; clear = read-and-clear semantics. Returns -1 if unsupported. */
static int queue_stat(struct vm_queue *q, sai_stat_id_t id, int clear, uint64_t *out)
{
    uint64_t *c = NULL;
    if (id < 64 && (g.no_queue_stats >> id & 1))
        return -1;
    switch (id) {
    case SAI_QUEUE_STAT_PACKETS:
        c = &q->tx_packets;
        break;
    case SAI_QUEUE_STAT_BYTES:
        c = &q->tx_bytes;
        break;
    case SAI_QUEUE_STAT_DROPPED_PACKETS:
        c = &q->drop_packets;
        break;
    case SAI_QUEUE_STAT_DROPPED_BYTES:
        c = &q->drop_bytes;
        break;
    case SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES:
    case SAI_QUEUE_STAT_SHARED_CURR_OCCUPANCY_BYTES:
        if (out)
            *out = q->len; /* a gauge: nothing to clear */
        return 0;
    case SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES:
        if (out)
            *out = q->wm;
        if (clear)
            q->wm = q->len; /* the peak restarts from the current occupancy */
        return 0;
    case SAI_QUEUE_STAT_WATERMARK_BYTES:
        if (out)
            *out = q->wm_total;
        if (clear)
            q->wm_total = q->len;
        return 0;
    default:
        return -1;
    }
    if (out)
        *out = *c;
    if (clear)
        *c = 0;
    return 0;
}

static sai_status_t queue_stats(const char *fn, sai_object_id_t queue_id, uint32_t n,
                                const sai_stat_id_t *ids, int read, int clear, uint64_t *counters)
{
    if (n && (!ids || (read && !counters)))
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    sai_status_t st = SAI_STATUS_SUCCESS;
    int q = queue_of(m, queue_id);
    if (q < 0) {
        set_err("%s: no queue 0x%llx", fn, (unsigned long long)queue_id);
        st = SAI_STATUS_INVALID_OBJECT_ID;
    } else if (fault_take(FAULT_GET_STATS)) {
        st = SAI_STATUS_FAILURE;
    } else {
        struct vm_queue *vq = &m->queues[q];
        for (uint32_t i = 0; i < n; i++)
            if (queue_stat(vq, ids[i], 0, NULL) < 0) {
                set_err("%s: queue counter %u not supported", fn, ids[i]);
                st = SAI_STATUS_NOT_SUPPORTED;
                break;
            }
        if (st == SAI_STATUS_SUCCESS)
            for (uint32_t i = 0; i < n; i++)
                queue_stat(vq, ids[i], clear, read ? &counters[i] : NULL);
    }
    unlock();
    return st;
}

static sai_status_t vs_get_queue_stats(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids, uint64_t *c)
{
    return queue_stats("get_queue_stats", id, n, ids, 1, 0, c);
}

static sai_status_t vs_get_queue_stats_ext(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids,
                                           sai_stats_mode_t mode, uint64_t *c)
{
    if (mode != SAI_STATS_MODE_READ && mode != SAI_STATS_MODE_READ_AND_CLEAR)
        return SAI_STATUS_INVALID_PARAMETER;
    return queue_stats("get_queue_stats_ext", id, n, ids, 1, mode == SAI_STATS_MODE_READ_AND_CLEAR, c);
}

static sai_status_t vs_clear_queue_stats(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids)
{
    return queue_stats("clear_queue_stats", id, n, ids, 0, 1, NULL);
}

static sai_queue_api_t queue_api = {
    .create_queue = vs_ni_create,
    .remove_queue = vs_ni_remove,
    .set_queue_attribute = vs_set_queue_attribute,
    .get_queue_attribute = vs_get_queue_attribute,
    .get_queue_stats = vs_get_queue_stats,
    .get_queue_stats_ext = vs_get_queue_stats_ext,
    .clear_queue_stats = vs_clear_queue_stats,
    .set_queues_attribute = vs_ni_bulk_set,
    .get_queues_attribute = vs_ni_bulk_get,
};

/* ---------------------------------------------------------------- buffer api */

static sai_status_t vs_get_buffer_pool_attribute(sai_object_id_t pool_id, uint32_t attr_count,
                                                 sai_attribute_t *attr_list)
{
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (attr_count && !attr_list)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    if (pool_id != POOL_OID) {
        set_err("get_buffer_pool_attribute: no pool 0x%llx", (unsigned long long)pool_id);
        unlock();
        return SAI_STATUS_INVALID_OBJECT_ID;
    }
    if (fault_take(FAULT_GET_ATTR)) {
        unlock();
        return SAI_STATUS_FAILURE;
    }
    for (uint32_t i = 0; i < attr_count && st == SAI_STATUS_SUCCESS; i++) {
        sai_attribute_t *a = &attr_list[i];
        switch (a->id) {
        case SAI_BUFFER_POOL_ATTR_SHARED_SIZE:
        case SAI_BUFFER_POOL_ATTR_SIZE:
            a->value.u64 = m->sw.buffer_bytes;
            break;
        case SAI_BUFFER_POOL_ATTR_TYPE:
            a->value.s32 = SAI_BUFFER_POOL_TYPE_EGRESS;
            break;
        case SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE:
            a->value.s32 = SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC;
            break;
        default:
            st = ATTR_NOT_IMPLEMENTED(i);
        }
    }
    unlock();
    return st;
}

static int pool_stat(struct vm *m, sai_stat_id_t id, int clear, uint64_t *out)
{
    if (id < 64 && (g.no_pool_stats >> id & 1))
        return -1;
    switch (id) {
    case SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES:
        if (out)
            *out = m->pool_occ;
        return 0;
    case SAI_BUFFER_POOL_STAT_WATERMARK_BYTES:
        if (out)
            *out = m->pool_wm;
        if (clear)
            m->pool_wm = m->pool_occ;
        return 0;
    case SAI_BUFFER_POOL_STAT_DROPPED_PACKETS:
        if (out)
            *out = m->pool_drop_packets;
        if (clear)
            m->pool_drop_packets = 0;
        return 0;
    default:
        return -1;
    }
}

static sai_status_t pool_stats(const char *fn, sai_object_id_t pool_id, uint32_t n,
                               const sai_stat_id_t *ids, int read, int clear, uint64_t *counters)
{
    if (n && (!ids || (read && !counters)))
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (pool_id != POOL_OID) {
        set_err("%s: no pool 0x%llx", fn, (unsigned long long)pool_id);
        st = SAI_STATUS_INVALID_OBJECT_ID;
    } else if (fault_take(FAULT_GET_STATS)) {
        st = SAI_STATUS_FAILURE;
    } else {
        for (uint32_t i = 0; i < n; i++)
            if (pool_stat(m, ids[i], 0, NULL) < 0) {
                set_err("%s: pool counter %u not supported", fn, ids[i]);
                st = SAI_STATUS_NOT_SUPPORTED;
                break;
            }
        if (st == SAI_STATUS_SUCCESS)
            for (uint32_t i = 0; i < n; i++)
                pool_stat(m, ids[i], clear, read ? &counters[i] : NULL);
    }
    unlock();
    return st;
}

static sai_status_t vs_get_pool_stats(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids, uint64_t *c)
{
    return pool_stats("get_buffer_pool_stats", id, n, ids, 1, 0, c);
}

static sai_status_t vs_get_pool_stats_ext(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids,
                                          sai_stats_mode_t mode, uint64_t *c)
{
    if (mode != SAI_STATS_MODE_READ && mode != SAI_STATS_MODE_READ_AND_CLEAR)
        return SAI_STATUS_INVALID_PARAMETER;
    return pool_stats("get_buffer_pool_stats_ext", id, n, ids, 1, mode == SAI_STATS_MODE_READ_AND_CLEAR, c);
}

static sai_status_t vs_clear_pool_stats(sai_object_id_t id, uint32_t n, const sai_stat_id_t *ids)
{
    return pool_stats("clear_buffer_pool_stats", id, n, ids, 0, 1, NULL);
}

static sai_status_t vs_create_buffer_profile(sai_object_id_t *profile_id, sai_object_id_t switch_id,
                                             uint32_t attr_count, const sai_attribute_t *attr_list)
{
    if (!profile_id || (attr_count && !attr_list))
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    sai_status_t st = SAI_STATUS_SUCCESS;
    int have_pool = 0, have_size = 0, mode = -1, have_dyn = 0, have_static = 0;
    int8_t dyn = 0;
    uint64_t size = 0, static_th = 0;
    if (switch_id != SWITCH_OID) {
        set_err("create_buffer_profile: no switch 0x%llx", (unsigned long long)switch_id);
        st = SAI_STATUS_INVALID_OBJECT_ID;
        goto out;
    }
    if (fault_take(FAULT_CREATE_PROFILE)) {
        st = SAI_STATUS_FAILURE;
        goto out;
    }
    for (uint32_t i = 0; i < attr_count; i++) {
        const sai_attribute_t *a = &attr_list[i];
        switch (a->id) {
        case SAI_BUFFER_PROFILE_ATTR_POOL_ID:
            if (a->value.oid != POOL_OID) {
                set_err("create_buffer_profile: no pool 0x%llx", (unsigned long long)a->value.oid);
                st = ATTR_INVALID_VALUE(i);
                goto out;
            }
            have_pool = 1;
            break;
        case SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE:
            size = a->value.u64;
            have_size = 1;
            break;
        case SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE:
            if (a->value.s32 != SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC &&
                a->value.s32 != SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC) {
                set_err("create_buffer_profile: bad threshold mode %d", a->value.s32);
                st = ATTR_INVALID_VALUE(i);
                goto out;
            }
            mode = a->value.s32;
            break;
        case SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH:
            if (a->value.s8 < m->sw.th_min || a->value.s8 > m->sw.th_max) {
                set_err("create_buffer_profile: SHARED_DYNAMIC_TH %d outside %d..%d", a->value.s8,
                        m->sw.th_min, m->sw.th_max);
                st = th_refused(i);
                goto out;
            }
            dyn = a->value.s8;
            have_dyn = 1;
            break;
        case SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH:
            static_th = a->value.u64;
            have_static = 1;
            break;
        case SAI_BUFFER_PROFILE_ATTR_XOFF_TH:
        case SAI_BUFFER_PROFILE_ATTR_XON_TH:
            set_err("create_buffer_profile: lossless thresholds (XON/XOFF) are not modelled");
            st = SAI_STATUS_ATTR_NOT_SUPPORTED_0 - (sai_status_t)i;
            goto out;
        default:
            set_err("create_buffer_profile: unknown attribute %u", a->id);
            st = ATTR_UNKNOWN(i);
            goto out;
        }
    }
    if (mode < 0)
        mode = SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC; /* the pool's mode */
    if (!have_pool || !have_size || (mode == SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC && !have_dyn) ||
        (mode == SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC && !have_static)) {
        set_err("create_buffer_profile: missing %s", !have_pool ? "POOL_ID"
                                                     : !have_size ? "BUFFER_SIZE"
                                                     : have_dyn || mode == SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC
                                                         ? "SHARED_STATIC_TH"
                                                         : "SHARED_DYNAMIC_TH");
        st = SAI_STATUS_MANDATORY_ATTRIBUTE_MISSING;
        goto out;
    }
    int slot = vm_profile_alloc(m);
    if (slot < 0) {
        set_err("create_buffer_profile: out of memory");
        st = SAI_STATUS_NO_MEMORY;
        goto out;
    }
    struct vm_profile *p = &m->profiles[slot];
    p->size = size;
    p->mode = mode == SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC ? VM_TH_DYNAMIC : VM_TH_STATIC;
    p->dynamic_th = dyn;
    p->static_th = static_th;
    *profile_id = profile_oid(m, (uint32_t)slot);
out:
    unlock();
    return st;
}

static sai_status_t vs_remove_buffer_profile(sai_object_id_t profile_id)
{
    ENTER(m);
    sai_status_t st = SAI_STATUS_SUCCESS;
    int slot = profile_of(m, profile_id);
    if (slot < 0) {
        set_err("remove_buffer_profile: no buffer profile 0x%llx", (unsigned long long)profile_id);
        st = SAI_STATUS_INVALID_OBJECT_ID;
    } else if (fault_take(FAULT_REMOVE_PROFILE)) {
        st = SAI_STATUS_FAILURE;
    } else if (m->profiles[slot].refs > 0) {
        set_err("remove_buffer_profile: profile 0x%llx is used by %u queue(s)",
                (unsigned long long)profile_id, m->profiles[slot].refs);
        st = SAI_STATUS_OBJECT_IN_USE;
    } else {
        vm_profile_free(m, (uint32_t)slot);
    }
    unlock();
    return st;
}

static sai_status_t vs_set_buffer_profile_attribute(sai_object_id_t profile_id, const sai_attribute_t *attr)
{
    if (!attr)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    sai_status_t st = SAI_STATUS_SUCCESS;
    int slot = profile_of(m, profile_id);
    struct vm_profile *p = slot >= 0 ? &m->profiles[slot] : NULL;
    if (!p) {
        set_err("set_buffer_profile_attribute: no buffer profile 0x%llx", (unsigned long long)profile_id);
        st = SAI_STATUS_INVALID_OBJECT_ID;
    } else if (fault_take(FAULT_SET_PROFILE)) {
        st = SAI_STATUS_FAILURE;
    } else {
        switch (attr->id) {
        case SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH:
            if (p->mode != VM_TH_DYNAMIC) {
                set_err("set_buffer_profile_attribute: SHARED_DYNAMIC_TH on a static profile");
                st = SAI_STATUS_INVALID_PARAMETER;
            } else if (attr->value.s8 < m->sw.th_min || attr->value.s8 > m->sw.th_max) {
                set_err("set_buffer_profile_attribute: SHARED_DYNAMIC_TH %d outside %d..%d",
                        attr->value.s8, m->sw.th_min, m->sw.th_max);
                st = th_refused(0);
            } else {
                p->dynamic_th = attr->value.s8;
            }
            break;
        case SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH:
            if (p->mode != VM_TH_STATIC) {
                set_err("set_buffer_profile_attribute: SHARED_STATIC_TH on a dynamic profile");
                st = SAI_STATUS_INVALID_PARAMETER;
            } else {
                p->static_th = attr->value.u64;
            }
            break;
        case SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE:
            p->size = attr->value.u64;
            break;
        case SAI_BUFFER_PROFILE_ATTR_POOL_ID:
        case SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE:
            set_err("set_buffer_profile_attribute: %s is create-only",
                    attr->id == SAI_BUFFER_PROFILE_ATTR_POOL_ID ? "POOL_ID" : "THRESHOLD_MODE");
            st = SAI_STATUS_INVALID_PARAMETER;
            break;
        case SAI_BUFFER_PROFILE_ATTR_XOFF_TH:
        case SAI_BUFFER_PROFILE_ATTR_XON_TH:
            st = SAI_STATUS_ATTR_NOT_SUPPORTED_0;
            break;
        default:
            st = ATTR_UNKNOWN(0);
        }
    }
    unlock();
    return st;
}

static sai_status_t vs_get_buffer_profile_attribute(sai_object_id_t profile_id, uint32_t attr_count,
                                                    sai_attribute_t *attr_list)
{
    if (attr_count && !attr_list)
        return SAI_STATUS_INVALID_PARAMETER;
    ENTER(m);
    sai_status_t st = SAI_STATUS_SUCCESS;
    int slot = profile_of(m, profile_id);
    const struct vm_profile *p = slot >= 0 ? &m->profiles[slot] : NULL;
    if (!p) {
        set_err("get_buffer_profile_attribute: no buffer profile 0x%llx", (unsigned long long)profile_id);
        unlock();
        return SAI_STATUS_INVALID_OBJECT_ID;
    }
    if (fault_take(FAULT_GET_ATTR)) {
        unlock();
        return SAI_STATUS_FAILURE;
    }
    for (uint32_t i = 0; i < attr_count && st == SAI_STATUS_SUCCESS; i++) {
        sai_attribute_t *a = &attr_list[i];
        switch (a->id) {
        case SAI_BUFFER_PROFILE_ATTR_POOL_ID:
            a->value.oid = POOL_OID;
            break;
        case SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE:
            a->value.u64 = p->size;
            break;
        case SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE:
            a->value.s32 = p->mode == VM_TH_DYNAMIC ? SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC
                                                    : SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC;
            break;
        case SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH:
            if (p->mode != VM_TH_DYNAMIC)
                st = ATTR_INVALID(i); /* condition: THRESHOLD_MODE == DYNAMIC */
            else
                a->value.s8 = p->dynamic_th;
            break;
        case SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH:
            if (p->mode != VM_TH_STATIC)
                st = ATTR_INVALID(i);
            else
                a->value.u64 = p->static_th;
            break;
        default:
            st = ATTR_NOT_IMPLEMENTED(i);
        }
    }
    unlock();
    return st;
}

static sai_buffer_api_t buffer_api = {
    .create_buffer_pool = vs_ni_create,
    .remove_buffer_pool = vs_ni_remove,
    .set_buffer_pool_attribute = vs_ni_set,
    .get_buffer_pool_attribute = vs_get_buffer_pool_attribute,
    .get_buffer_pool_stats = vs_get_pool_stats,
    .get_buffer_pool_stats_ext = vs_get_pool_stats_ext,
    .clear_buffer_pool_stats = vs_clear_pool_stats,
    .create_ingress_priority_group = vs_ni_create,
    .remove_ingress_priority_group = vs_ni_remove,
    .set_ingress_priority_group_attribute = vs_ni_set,
    .get_ingress_priority_group_attribute = vs_ni_get,
    .get_ingress_priority_group_stats = vs_ni_stats,
    .get_ingress_priority_group_stats_ext = vs_ni_stats_ext,
    .clear_ingress_priority_group_stats = vs_ni_clear,
    .create_buffer_profile = vs_create_buffer_profile,
    .remove_buffer_profile = vs_remove_buffer_profile,
    .set_buffer_profile_attribute = vs_set_buffer_profile_attribute,
    .get_buffer_profile_attribute = vs_get_buffer_profile_attribute,
    .set_ingress_priority_groups_attribute = vs_ni_bulk_set,
    .get_ingress_priority_groups_attribute = vs_ni_bulk_get,
};

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
        for (size_t k = 0; k < N_STAT_NAMES; k++)
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
