/**
 * @file switch.c
 * @brief libsai-vasic: the switch API (create/remove/attributes), the clock
 *        (realtime model thread or manual) and the vendor-behaviour profile keys.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "scenario.h"

#include "internal.h"

/* ---------------------------------------------------------------- clock */

/* End of the next stretch to run under the lock: at most VASIC_CHUNK_NS of
 * busy model time, but an idle stretch is skipped in one go. */
uint64_t chunk_end(struct vm *m, uint64_t target)
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

struct detached detach_switch(void)
{
    struct detached d = {g.m, g.has_thread, g.thread};
    g.m = NULL;
    g.has_thread = 0;
    g.gen++;
    return d;
}

void finish_detach(struct detached d)
{
    if (d.join)
        pthread_join(d.thread, NULL);
    vm_destroy(d.m);
}

static const char *const th_refusal_names[TH_N] = {"invalid_attr_value", "attr_not_supported", "not_supported",
                                                   "invalid_parameter"};

/* The counters the model keeps, by object type: what sai_query_stats_capability
 * reports and what VASIC_UNSUPPORTED_STATS can take away. */
const struct stat_name stat_names[] = {
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
const size_t n_stat_names = sizeof(stat_names) / sizeof(stat_names[0]);
/* ---------------------------------------------------------------- vendor profile */

int stat_unsupported(const struct stat_name *s)
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
        for (; k < n_stat_names; k++)
            if (strlen(stat_names[k].name) == len && strncmp(v, stat_names[k].name, len) == 0)
                break;
        if (k == n_stat_names) {
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
    RETURN_ON_GET_ATTR_FAULT();
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

sai_switch_api_t switch_api = {
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

