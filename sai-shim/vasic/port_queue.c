/**
 * @file port_queue.c
 * @brief libsai-vasic: the port and queue APIs (attributes, queue statistics).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

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
    RETURN_ON_GET_ATTR_FAULT();
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

sai_port_api_t port_api = {
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
    RETURN_ON_GET_ATTR_FAULT();
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
static int queue_stat(void *obj, sai_stat_id_t id, int clear, uint64_t *out)
{
    struct vm_queue *q = obj;
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
        st = counters_io(fn, "queue", queue_stat, vq, n, ids, read, clear, counters);
    }
    unlock();
    return st;
}

VASIC_STATS_METHODS(queue, queue_stats)

sai_queue_api_t queue_api = {
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

