/**
 * @file buffer.c
 * @brief libsai-vasic: the buffer API (pool attributes and statistics, buffer
 *        profiles: create, remove, attributes; dynamic-threshold range refusals).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

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
    RETURN_ON_GET_ATTR_FAULT();
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

static int pool_stat(void *obj, sai_stat_id_t id, int clear, uint64_t *out)
{
    struct vm *m = obj;
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
        st = counters_io(fn, "pool", pool_stat, m, n, ids, read, clear, counters);
    }
    unlock();
    return st;
}

VASIC_STATS_METHODS(buffer_pool, pool_stats)

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
    RETURN_ON_GET_ATTR_FAULT();
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

sai_buffer_api_t buffer_api = {
    .create_buffer_pool = vs_ni_create,
    .remove_buffer_pool = vs_ni_remove,
    .set_buffer_pool_attribute = vs_ni_set,
    .get_buffer_pool_attribute = vs_get_buffer_pool_attribute,
    .get_buffer_pool_stats = vs_get_buffer_pool_stats,
    .get_buffer_pool_stats_ext = vs_get_buffer_pool_stats_ext,
    .clear_buffer_pool_stats = vs_clear_buffer_pool_stats,
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

