/**
 * @file alpha.c
 * @brief libalphad-sai: setting a queue's dynamic threshold (clone on the first
 *        change, then modify the clone) and restoring every queue's original
 *        profile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A libsai refusing the dynamic threshold given as attribute @p idx of the call:
 * vendors answer an out-of-range or unsupported value with INVALID_ATTR_VALUE_idx,
 * ATTR_NOT_SUPPORTED_idx, NOT_SUPPORTED or INVALID_PARAMETER (the shim sets
 * SHARED_DYNAMIC_TH only on a profile it found in dynamic mode). */
static int th_refused(sai_status_t st, uint32_t idx)
{
    return st == SAI_STATUS_INVALID_ATTR_VALUE_0 - (sai_status_t)idx ||
           st == SAI_STATUS_ATTR_NOT_SUPPORTED_0 - (sai_status_t)idx || st == SAI_STATUS_NOT_SUPPORTED ||
           st == SAI_STATUS_INVALID_PARAMETER;
}

/* ---------------------------------------------------------------- alpha */

static void orphan_add(alphad_sai_t *h, sai_object_id_t oid)
{
    if (h->n_orphans == h->cap_orphans) {
        uint32_t cap = h->cap_orphans ? h->cap_orphans * 2 : 8;
        sai_object_id_t *p = realloc(h->orphans, cap * sizeof(*p));
        if (!p)
            return; /* nothing more can be done; the error message names the profile */
        h->orphans = p;
        h->cap_orphans = cap;
    }
    h->orphans[h->n_orphans++] = oid;
}

ALPHAD_API alphad_status_t alphad_sai_set_log2_alpha(alphad_sai_t *h, uint32_t queue, int8_t k)
{
    sai_attribute_t a;
    sai_status_t st;
    if (!h)
        return ALPHAD_E_INVALID_ARG;
    if (queue >= h->n_queues) {
        set_error(h, "queue %u out of range (the switch has %u managed queues)", queue, h->n_queues);
        return ALPHAD_E_NOT_FOUND;
    }
    if (k < ALPHAD_LOG2_ALPHA_MIN || k > ALPHAD_LOG2_ALPHA_MAX) {
        set_error(h, "log2 alpha %d of queue %u outside %d..%d", k, queue, ALPHAD_LOG2_ALPHA_MIN,
                  ALPHAD_LOG2_ALPHA_MAX);
        return ALPHAD_E_RANGE;
    }
    struct queue *q = &h->q[queue];
    if (!q->clone) {
        /* first change: the queue's profile may have been changed by someone
         * else since open; clone what the queue uses now */
        alphad_status_t rc;
        memset(&a, 0, sizeof(a));
        a.id = SAI_QUEUE_ATTR_BUFFER_PROFILE_ID;
        if ((rc = get_attr(h, h->queue_api->get_queue_attribute, "get_queue_attribute", "BUFFER_PROFILE_ID",
                           q->info.queue_oid, &a)))
            return rc;
        if (a.value.oid != q->info.profile_oid && (rc = adopt_profile(h, q, a.value.oid)))
            return rc;
    }
    if (q->orig < 0) {
        set_error(h, "queue %u (oid 0x%llx) has no buffer profile", queue, (unsigned long long)q->info.queue_oid);
        return ALPHAD_E_NOT_SUPPORTED;
    }
    if (!q->info.dynamic) {
        set_error(h, "queue %u uses static-threshold profile 0x%llx: no alpha to set", queue,
                  (unsigned long long)q->info.profile_oid);
        return ALPHAD_E_NOT_SUPPORTED;
    }
    if (k == q->info.log2_alpha)
        return ALPHAD_OK;
    const struct profile *orig = &h->profiles[q->orig];
    if (q->clone) {
        memset(&a, 0, sizeof(a));
        a.id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
        a.value.s8 = k;
        st = h->buf_api->set_buffer_profile_attribute(q->clone, &a);
        if (st != SAI_STATUS_SUCCESS)
            return sai_fail(h, th_refused(st, 0) ? ALPHAD_E_RANGE : ALPHAD_E_SAI, st,
                            "set_buffer_profile_attribute", "profile 0x%llx of queue %u, SHARED_DYNAMIC_TH=%d",
                            (unsigned long long)q->clone, queue, k);
        q->info.log2_alpha = k;
        return ALPHAD_OK;
    }
    /* first change: clone the original profile with the new threshold */
    sai_attribute_t attrs[4];
    sai_object_id_t clone = SAI_NULL_OBJECT_ID;
    memset(attrs, 0, sizeof(attrs));
    attrs[0].id = SAI_BUFFER_PROFILE_ATTR_POOL_ID;
    attrs[0].value.oid = orig->pool;
    attrs[1].id = SAI_BUFFER_PROFILE_ATTR_BUFFER_SIZE;
    attrs[1].value.u64 = orig->size;
    attrs[2].id = SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE;
    attrs[2].value.s32 = SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC;
    attrs[3].id = SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH;
    attrs[3].value.s8 = k;
    st = h->buf_api->create_buffer_profile(&clone, h->switch_id, 4, attrs);
    if (st != SAI_STATUS_SUCCESS)
        return sai_fail(h, th_refused(st, 3) ? ALPHAD_E_RANGE : ALPHAD_E_SAI, st, "create_buffer_profile",
                        "clone of 0x%llx for queue %u, SHARED_DYNAMIC_TH=%d", (unsigned long long)orig->oid,
                        queue, k);
    memset(&a, 0, sizeof(a));
    a.id = SAI_QUEUE_ATTR_BUFFER_PROFILE_ID;
    a.value.oid = clone;
    st = h->queue_api->set_queue_attribute(q->info.queue_oid, &a);
    if (st != SAI_STATUS_SUCCESS) {
        char msg[sizeof(h->last_error)];
        sai_fail(h, ALPHAD_E_SAI, st, "set_queue_attribute", "queue %u oid 0x%llx, BUFFER_PROFILE_ID=0x%llx", queue,
                 (unsigned long long)q->info.queue_oid, (unsigned long long)clone);
        snprintf(msg, sizeof(msg), "%s", h->last_error);
        sai_status_t rst = h->buf_api->remove_buffer_profile(clone);
        if (rst != SAI_STATUS_SUCCESS) {
            char sname[96];
            orphan_add(h, clone);
            set_error(h, "%s; removing the clone 0x%llx also failed: %s (retried by restore)", msg,
                      (unsigned long long)clone, sai_status_name(rst, sname, sizeof(sname)));
        }
        return ALPHAD_E_SAI;
    }
    q->clone = clone;
    q->info.log2_alpha = k;
    return ALPHAD_OK;
}

ALPHAD_API alphad_status_t alphad_sai_set_log2_alpha_bulk(alphad_sai_t *h, const uint32_t *queues, const int8_t *k,
                                                          uint32_t n, uint32_t *n_done)
{
    uint32_t i;
    alphad_status_t rc = ALPHAD_OK;
    if (n_done)
        *n_done = 0;
    if (!h || (n && (!queues || !k)))
        return ALPHAD_E_INVALID_ARG;
    for (i = 0; i < n; i++) {
        rc = alphad_sai_set_log2_alpha(h, queues[i], k[i]);
        if (rc != ALPHAD_OK)
            break;
    }
    if (n_done)
        *n_done = i;
    return rc;
}

ALPHAD_API alphad_status_t alphad_sai_restore(alphad_sai_t *h)
{
    alphad_status_t first = ALPHAD_OK;
    char first_msg[sizeof(((alphad_sai_t *)0)->last_error)];
    if (!h)
        return ALPHAD_E_INVALID_ARG;
    first_msg[0] = '\0';
    for (uint32_t i = 0; i < h->n_queues; i++) {
        struct queue *q = &h->q[i];
        sai_attribute_t a;
        sai_status_t st;
        if (!q->clone)
            continue;
        memset(&a, 0, sizeof(a));
        a.id = SAI_QUEUE_ATTR_BUFFER_PROFILE_ID;
        a.value.oid = q->info.profile_oid;
        st = h->queue_api->set_queue_attribute(q->info.queue_oid, &a);
        if (st != SAI_STATUS_SUCCESS) {
            alphad_status_t rc = sai_fail(h, ALPHAD_E_SAI, st, "set_queue_attribute",
                                          "queue %u oid 0x%llx, BUFFER_PROFILE_ID=0x%llx (original)", i,
                                          (unsigned long long)q->info.queue_oid, (unsigned long long)q->info.profile_oid);
            if (first == ALPHAD_OK) {
                first = rc;
                snprintf(first_msg, sizeof(first_msg), "%s", h->last_error);
            }
            continue; /* the clone is still in use: keep it, retry next time */
        }
        q->info.log2_alpha = q->info.original_log2_alpha;
        sai_object_id_t clone = q->clone;
        q->clone = SAI_NULL_OBJECT_ID;
        st = h->buf_api->remove_buffer_profile(clone);
        if (st != SAI_STATUS_SUCCESS) {
            alphad_status_t rc = sai_fail(h, ALPHAD_E_SAI, st, "remove_buffer_profile", "clone 0x%llx of queue %u",
                                          (unsigned long long)clone, i);
            orphan_add(h, clone);
            if (first == ALPHAD_OK) {
                first = rc;
                snprintf(first_msg, sizeof(first_msg), "%s", h->last_error);
            }
        }
    }
    /* clones whose removal failed earlier */
    for (uint32_t i = 0; i < h->n_orphans;) {
        sai_status_t st = h->buf_api->remove_buffer_profile(h->orphans[i]);
        if (st == SAI_STATUS_SUCCESS) {
            h->orphans[i] = h->orphans[--h->n_orphans];
            continue;
        }
        if (first == ALPHAD_OK) {
            first = sai_fail(h, ALPHAD_E_SAI, st, "remove_buffer_profile", "orphaned clone 0x%llx",
                             (unsigned long long)h->orphans[i]);
            snprintf(first_msg, sizeof(first_msg), "%s", h->last_error);
        }
        i++;
    }
    if (first != ALPHAD_OK)
        snprintf(h->last_error, sizeof(h->last_error), "%s", first_msg);
    return first;
}

ALPHAD_API alphad_status_t alphad_sai_advance(alphad_sai_t *h, uint64_t ns)
{
    if (!h)
        return ALPHAD_E_INVALID_ARG;
    if (!h->vasic_advance) {
        set_error(h, "%s has no manual clock (no vasic_advance symbol)", h->path);
        return ALPHAD_E_NOT_SUPPORTED;
    }
    int rc = h->vasic_advance(ns);
    if (rc == 0)
        return ALPHAD_OK;
    if (rc == -ENOTSUP) {
        set_error(h, "vasic_advance: the model clock is realtime (set VASIC_CLOCK=manual)");
        return ALPHAD_E_NOT_SUPPORTED;
    }
    if (rc == -EINVAL) {
        set_error(h, "vasic_advance(%llu): invalid argument", (unsigned long long)ns);
        return ALPHAD_E_INVALID_ARG;
    }
    set_error(h, "vasic_advance(%llu) failed: %s", (unsigned long long)ns, strerror(-rc));
    return ALPHAD_E_STATE;
}
