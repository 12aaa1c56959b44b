/**
 * @file stats.c
 * @brief libalphad-sai: which counters the libsai supports, and reading them.
 *
 * At open, sai_query_stats_capability (when the libsai exports and implements
 * it) says which of the counters alphad reads are supported, with which modes;
 * otherwise each counter is read once on the first queue and the pool. A read
 * then asks only for supported counters; an unsupported counter reads as 0 and
 * is reported by alphad_sai_stats_supported(). A counter the libsai turns down
 * later (NOT_SUPPORTED) is dropped from the set instead of failing every read.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

typedef sai_status_t (*query_stats_capability_fn)(sai_object_id_t, sai_object_type_t,
                                                  sai_stat_capability_list_t *);

/* The counters alphad reads, by ALPHAD_STAT_QUEUE_* bit (alphad_queue_stats_t order). */
static const struct {
    sai_stat_id_t id;
    uint32_t mode;
} QUEUE_STATS[6] = {
    {SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES, SAI_STATS_MODE_READ},
    {SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES, SAI_STATS_MODE_READ_AND_CLEAR},
    {SAI_QUEUE_STAT_BYTES, SAI_STATS_MODE_READ},
    {SAI_QUEUE_STAT_PACKETS, SAI_STATS_MODE_READ},
    {SAI_QUEUE_STAT_DROPPED_PACKETS, SAI_STATS_MODE_READ},
    {SAI_QUEUE_STAT_DROPPED_BYTES, SAI_STATS_MODE_READ},
};
enum { Q_WM = 1 };
/* ... and by ALPHAD_STAT_POOL_* bit */
static const struct {
    sai_stat_id_t id;
    uint32_t mode;
} POOL_STATS[2] = {
    {SAI_BUFFER_POOL_STAT_CURR_OCCUPANCY_BYTES, SAI_STATS_MODE_READ},
    {SAI_BUFFER_POOL_STAT_WATERMARK_BYTES, SAI_STATS_MODE_READ_AND_CLEAR},
};

/* A libsai saying "not this counter" rather than failing. */
static int unsupported(sai_status_t st)
{
    return st == SAI_STATUS_NOT_SUPPORTED || st == SAI_STATUS_NOT_IMPLEMENTED ||
           SAI_STATUS_IS_ATTR_NOT_SUPPORTED(st) || SAI_STATUS_IS_ATTR_NOT_IMPLEMENTED(st);
}

static void build_read_list(alphad_sai_t *h)
{
    h->n_q_read = 0;
    for (uint8_t b = 0; b < 6; b++)
        if (b != Q_WM && (h->queue_stats_ok >> b & 1)) {
            h->q_read_ids[h->n_q_read] = QUEUE_STATS[b].id;
            h->q_read_field[h->n_q_read++] = b;
        }
}

/* Capability list of one object type; NULL if the libsai cannot say. */
static sai_stat_capability_t *capabilities(alphad_sai_t *h, query_stats_capability_fn q, sai_object_type_t t,
                                           uint32_t *n)
{
    sai_stat_capability_list_t l = {64, NULL};
    for (int attempt = 0; attempt < 2; attempt++) {
        free(l.list);
        l.list = calloc(l.count ? l.count : 1, sizeof(*l.list));
        if (!l.list)
            return NULL;
        sai_status_t st = q(h->switch_id, t, &l);
        if (st == SAI_STATUS_SUCCESS) {
            *n = l.count;
            return l.list;
        }
        if (st != SAI_STATUS_BUFFER_OVERFLOW)
            break;
    }
    free(l.list);
    return NULL;
}

static uint32_t from_capabilities(const sai_stat_capability_t *caps, uint32_t n, const sai_stat_id_t *ids,
                                  const uint32_t *modes, uint32_t count)
{
    uint32_t ok = 0;
    for (uint32_t b = 0; b < count; b++)
        for (uint32_t i = 0; i < n; i++)
            if (caps[i].stat_enum == ids[b] && (caps[i].stat_modes & modes[b]) == modes[b])
                ok |= 1u << b;
    return ok;
}

void probe_stats(alphad_sai_t *h)
{
    sai_stat_id_t qids[6], pids[2];
    uint32_t qmodes[6], pmodes[2];
    for (int b = 0; b < 6; b++)
        qids[b] = QUEUE_STATS[b].id, qmodes[b] = QUEUE_STATS[b].mode;
    for (int b = 0; b < 2; b++)
        pids[b] = POOL_STATS[b].id, pmodes[b] = POOL_STATS[b].mode;
    h->queue_stats_ok = ALPHAD_STAT_QUEUE_ALL;
    h->pool_stats_ok = ALPHAD_STAT_POOL_ALL;

    query_stats_capability_fn q = (query_stats_capability_fn)dlsym(h->lib, "sai_query_stats_capability");
    uint32_t n = 0;
    sai_stat_capability_t *caps = q ? capabilities(h, q, SAI_OBJECT_TYPE_QUEUE, &n) : NULL;
    if (caps) {
        h->queue_stats_ok = from_capabilities(caps, n, qids, qmodes, 6);
        free(caps);
    } else if (h->n_queues) {
        uint64_t v;
        h->queue_stats_ok = 0;
        for (int b = 0; b < 6; b++)
            if (h->queue_api->get_queue_stats_ext(h->q[0].info.queue_oid, 1, &qids[b], qmodes[b], &v) ==
                SAI_STATUS_SUCCESS)
                h->queue_stats_ok |= 1u << b;
    }
    caps = q ? capabilities(h, q, SAI_OBJECT_TYPE_BUFFER_POOL, &n) : NULL;
    if (caps) {
        h->pool_stats_ok = from_capabilities(caps, n, pids, pmodes, 2);
        free(caps);
    } else if (h->pool) {
        uint64_t v;
        h->pool_stats_ok = 0;
        for (int b = 0; b < 2; b++)
            if (h->buf_api->get_buffer_pool_stats_ext(h->pool, 1, &pids[b], pmodes[b], &v) == SAI_STATUS_SUCCESS)
                h->pool_stats_ok |= 1u << b;
    }
    build_read_list(h);
}

ALPHAD_API alphad_status_t alphad_sai_stats_supported(const alphad_sai_t *h, uint32_t *queue_stats,
                                                      uint32_t *pool_stats)
{
    if (!h)
        return ALPHAD_E_INVALID_ARG;
    if (queue_stats)
        *queue_stats = h->queue_stats_ok;
    if (pool_stats)
        *pool_stats = h->pool_stats_ok;
    return ALPHAD_OK;
}

/* One queue's READ counters; a counter turned down is dropped, the rest re-read. */
static sai_status_t read_queue(alphad_sai_t *h, uint32_t i, uint64_t *c)
{
    sai_object_id_t oid = h->q[i].info.queue_oid;
    sai_status_t st = SAI_STATUS_SUCCESS;
    if (!h->n_q_read)
        return st;
    st = h->queue_api->get_queue_stats_ext(oid, h->n_q_read, h->q_read_ids, SAI_STATS_MODE_READ, c);
    if (st == SAI_STATUS_SUCCESS || !unsupported(st))
        return st;
    for (uint32_t k = 0; k < h->n_q_read; k++) {
        sai_status_t one = h->queue_api->get_queue_stats_ext(oid, 1, &h->q_read_ids[k], SAI_STATS_MODE_READ, &c[k]);
        if (one != SAI_STATUS_SUCCESS && !unsupported(one))
            return one;
        if (one != SAI_STATUS_SUCCESS)
            h->queue_stats_ok &= ~(1u << h->q_read_field[k]);
    }
    build_read_list(h);
    if (!h->n_q_read)
        return SAI_STATUS_SUCCESS;
    return h->queue_api->get_queue_stats_ext(oid, h->n_q_read, h->q_read_ids, SAI_STATS_MODE_READ, c);
}

ALPHAD_API alphad_status_t alphad_sai_read_stats(alphad_sai_t *h, alphad_queue_stats_t *q, uint32_t n,
                                                 alphad_pool_stats_t *pool, uint64_t *t_ns)
{
    uint64_t c[6];
    sai_status_t st;
    if (!h || (!q && h->n_queues))
        return ALPHAD_E_INVALID_ARG;
    if (n < h->n_queues)
        return ALPHAD_E_BUFFER_TOO_SMALL;
    if (t_ns) {
        if (h->vasic_now_ns) {
            *t_ns = h->vasic_now_ns();
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            *t_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        }
    }
    sai_get_queue_stats_ext_fn get = h->queue_api->get_queue_stats_ext;
    for (uint32_t i = 0; i < h->n_queues; i++) {
        sai_object_id_t oid = h->q[i].info.queue_oid;
        uint64_t f[6] = {0};
        st = read_queue(h, i, c);
        if (st != SAI_STATUS_SUCCESS)
            return sai_fail(h, ALPHAD_E_SAI, st, "get_queue_stats_ext", "queue %u oid 0x%llx, READ", i,
                            (unsigned long long)oid);
        for (uint32_t k = 0; k < h->n_q_read; k++)
            f[h->q_read_field[k]] = c[k];
        if (h->queue_stats_ok >> Q_WM & 1) {
            st = get(oid, 1, &QUEUE_STATS[Q_WM].id, SAI_STATS_MODE_READ_AND_CLEAR, &f[Q_WM]);
            if (st != SAI_STATUS_SUCCESS && unsupported(st)) {
                h->queue_stats_ok &= ~(1u << Q_WM);
                f[Q_WM] = 0;
            } else if (st != SAI_STATUS_SUCCESS) {
                return sai_fail(h, ALPHAD_E_SAI, st, "get_queue_stats_ext",
                                "queue %u oid 0x%llx, READ_AND_CLEAR", i, (unsigned long long)oid);
            }
        }
        alphad_queue_stats_t *s = &q[i];
        s->curr_occupancy_bytes = f[0];
        s->shared_watermark_bytes = f[1];
        s->bytes = f[2];
        s->packets = f[3];
        s->dropped_packets = f[4];
        s->dropped_bytes = f[5];
    }
    if (pool) {
        pool->size_bytes = h->pool_size;
        pool->curr_occupancy_bytes = pool->watermark_bytes = 0;
        uint64_t *out[2] = {&pool->curr_occupancy_bytes, &pool->watermark_bytes};
        for (int b = 0; h->pool && b < 2; b++) {
            if (!(h->pool_stats_ok >> b & 1))
                continue;
            st = h->buf_api->get_buffer_pool_stats_ext(h->pool, 1, &POOL_STATS[b].id, POOL_STATS[b].mode, out[b]);
            if (st != SAI_STATUS_SUCCESS && unsupported(st)) {
                h->pool_stats_ok &= ~(1u << b);
                *out[b] = 0;
            } else if (st != SAI_STATUS_SUCCESS) {
                return sai_fail(h, ALPHAD_E_SAI, st, "get_buffer_pool_stats_ext", "pool 0x%llx, %s",
                                (unsigned long long)h->pool, b ? "READ_AND_CLEAR" : "READ");
            }
        }
    }
    return ALPHAD_OK;
}
